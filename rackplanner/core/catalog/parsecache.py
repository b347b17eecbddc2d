"""The built-in catalog's parsed YAML kept as JSON, keyed by the files' content.

Parsing the YAML is most of the app's catalog load (about 0.1 s); reading the same data back
as JSON takes a few milliseconds. A change to any built-in file changes the key, so a stale
entry is never read; a missing or damaged cache file only means parsing the YAML again.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from rackplanner.core.appdirs import app_dirs

FORMAT = 1  # bump when what is stored changes


def cache_dir() -> Path:
    """``$RACKPLANNER_CACHE_DIR``, else the platform's cache folder (``~/.cache/rackplanner`` on Linux,
    ``~/Library/Caches/rackplanner`` on macOS, ``%LOCALAPPDATA%\\rackplanner\\Cache`` on Windows)."""
    override = os.environ.get("RACKPLANNER_CACHE_DIR")
    if override:
        return Path(override)
    return app_dirs().user_cache_path


def content_key(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _plain(value: object) -> str:
    # YAML reads bare dates as dates; the models accept the same date written as text.
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__}")


def parsed(paths: Sequence[Path], parse: Callable[[Path], object]) -> dict[str, object]:
    """Each file's parsed data by file name: from the cache when the files are unchanged, else ``parse``."""
    try:
        store = cache_dir() / f"catalog-{content_key(paths)}.json"
    except OSError:
        return {path.name: parse(path) for path in paths}  # parse names the unreadable file
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
        if isinstance(data, dict) and sorted(data) == sorted(p.name for p in paths):
            return data
    except (OSError, ValueError):
        pass  # not there yet, or damaged: parse the YAML
    data = {path.name: parse(path) for path in paths}
    _write(store, data)
    return data


def _write(store: Path, data: dict[str, object]) -> None:
    """Write atomically; a cache that cannot be written is simply not kept."""
    temp: str | None = None
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        for old in store.parent.glob("catalog-*.json"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=store.parent, suffix=".tmp", delete=False, encoding="utf-8") as out:
            temp = out.name
            json.dump(data, out, default=_plain)
        os.replace(temp, store)
        temp = None
    except (OSError, TypeError, ValueError):
        pass
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
