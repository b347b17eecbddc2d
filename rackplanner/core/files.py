"""Writing files so that readers never see a partial one: temp file, fsync, rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, payload: bytes, *, keep_backup: bool = False) -> None:
    """Replace ``path`` with ``payload`` so that readers never see a partial file."""
    folder = path.parent if str(path.parent) else Path(".")
    tmp_name = _write_temp(folder, path.name, payload)
    try:
        if keep_backup and path.exists():
            backup_tmp = _write_temp(folder, path.name + ".bak", path.read_bytes())
            os.replace(backup_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def _write_temp(folder: Path, name: str, payload: bytes) -> str:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return tmp_name


def _fsync_folder(folder: Path) -> None:
    # Makes the rename itself durable; not possible on every platform (Windows).
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
