"""The one boundary for files: everything rackplanner reads and writes passes through here.

Reading: only regular files, no larger than a cap stated in the message, decoded strictly;
JSON and YAML through a safe loader with limits on nesting and on the
values aliases can expand to. Writing: a temporary file beside the target, flushed to disk,
then renamed over it, so a reader never sees half a file; through a symlink, the file it
points to is replaced and the link kept. Every problem is one line naming the file.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml

from rackplanner.core.errors import InputError, OutputError

# The file types a path can be besides a regular file, as people call them.
_FILE_TYPES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
MAX_YAML_DEPTH = 64
MAX_YAML_VALUES = 100_000
MAX_JSON_DEPTH = 64
# Objects, lists and items a JSON file may hold (a 512-rack, 2,048-server plan has about 330,000):
# counted before parsing, since parsing millions of tiny values takes gigabytes.
MAX_JSON_ITEMS = 2_000_000


def shown(path: Path | str) -> str:
    """A path as a one-line message shows it: control characters (a newline in a name) escaped."""
    text = str(path)
    if text.isprintable():
        return text
    return repr(text)[1:-1]


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB" if size >= 1_000_000 else f"{size:,} bytes"


def read_bytes(path: Path, *, what: str, max_bytes: int) -> bytes:
    """A regular file's bytes; ``InputError`` naming the file when it is missing, special or too large."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"{shown(path)}: cannot read the {what} ({exc.strerror or exc})") from None
    for test, name in _FILE_TYPES:
        if test(info.st_mode):
            raise InputError(f"{shown(path)}: is {name}, not a {what} file")
    if info.st_size > max_bytes:
        size, cap = _megabytes(info.st_size), _megabytes(max_bytes)
        if size == cap:  # just over the cap: the exact figures say why
            size, cap = f"{info.st_size:,} bytes", f"{max_bytes:,} bytes"
        raise InputError(f"{shown(path)}: {size} is more than a {what} file may be ({cap}); is it the right file?")
    try:
        with path.open("rb") as handle:
            # Read one byte past the cap: a file that grows, or reports no size (/proc), is still bounded.
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"{shown(path)}: cannot read the {what} ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise InputError(f"{shown(path)}: more than {_megabytes(max_bytes)}, the most a {what} file may be")
    return data


def read_text(path: Path, *, what: str, max_bytes: int) -> str:
    """A regular file as UTF-8 text (a byte-order mark is dropped)."""
    data = read_bytes(path, what=what, max_bytes=max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{shown(path)}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"save the {what} as UTF-8"
        ) from None


def parse_json(text: str, *, origin: str, what: str) -> object:
    """JSON text as data, refusing nesting deeper than ``MAX_JSON_DEPTH``.

    NaN and Infinity are read as floats, so that the model that validates the data can name the
    field that holds one (every model refuses them).
    """
    items = text.count("{") + text.count("[") + text.count(",")
    if items > MAX_JSON_ITEMS:
        raise InputError(f"{origin}: refused: more than {MAX_JSON_ITEMS:,} JSON values; no {what} holds that many")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # json's messages end in " at" where it gives the position; the line and column say it here.
        problem = exc.msg.removesuffix(" starting at").removesuffix(" at")
        if exc.pos >= len(text.rstrip()):
            problem = "the file ends early (truncated?)"
        elif problem == "Unterminated string":
            problem = "a string runs to the end of the file (truncated?)"
        raise InputError(f"{origin}: not valid JSON at line {exc.lineno}, column {exc.colno}: {problem}") from None
    except RecursionError:
        raise InputError(f"{origin}: JSON nested too deeply") from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise InputError(f"{origin}: JSON nested more than {MAX_JSON_DEPTH} levels deep; no {what} is")
    return data


def _depth(data: object) -> int:
    deepest = 0
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def read_json(path: Path, *, what: str, max_bytes: int) -> object:
    """A JSON file's data, read through ``read_text`` and ``parse_json``."""
    return parse_json(read_text(path, what=what, max_bytes=max_bytes), origin=shown(path), what=what)


class _TooLarge(Exception):
    pass


class _BoundedLoader(yaml.SafeLoader):
    """The pure-Python safe loader with a nesting limit.

    libyaml recurses on the C stack and crashes the process on a deeply nested file, and the
    pure-Python loader runs out of Python stack; this one stops at ``MAX_YAML_DEPTH``.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _TooLarge(f"nested more than {MAX_YAML_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, *, origin: str, max_values: int = MAX_YAML_VALUES, trusted: bool = False) -> object:
    """YAML text as data through a safe loader; ``trusted`` (the built-in catalog) uses the fast C loader.

    Untrusted text with more lines and items than ``max_values`` is refused before parsing: the
    pure-Python loader takes seconds and hundreds of MB for a few hundred thousand lines.
    """
    if not trusted and text.count("\n") + text.count(",") > max_values:
        raise InputError(f"{origin}: refused: more than {max_values:,} lines and items; is it the right file?")
    try:
        if trusted:
            data = yaml.load(text, Loader=_SAFE_LOADER)
        else:
            loader = _BoundedLoader(text)
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
        _check_expanded_size(data, max_values)
    except yaml.YAMLError as exc:
        raise InputError(f"{origin}: not valid YAML ({_first_line(str(exc))})") from None
    except _TooLarge as exc:
        raise InputError(f"{origin}: refused: {exc}") from None
    except RecursionError:
        raise InputError(f"{origin}: refused: nested too deeply") from None
    except Exception as exc:
        # PyYAML's constructors raise assorted errors on malformed values (a date of
        # 2024-13-45, a "!!timestamp" that is no date); any of them means the file is bad.
        raise InputError(f"{origin}: not valid YAML ({type(exc).__name__}: {_first_line(str(exc))})") from None
    return data


def read_yaml(
    path: Path, *, what: str, max_bytes: int, max_values: int = MAX_YAML_VALUES, trusted: bool = False
) -> object:
    """A YAML file's data, read through ``read_text`` and ``parse_yaml``."""
    text = read_text(path, what=what, max_bytes=max_bytes)
    return parse_yaml(text, origin=shown(path), max_values=max_values, trusted=trusted)


def _check_expanded_size(data: object, max_values: int) -> None:
    # Aliases share objects, so a small file can stand for billions of values once walked
    # (validation, error messages); count values as a walk would see them, and stop early.
    count = 0
    stack = [data]
    while stack:
        item = stack.pop()
        count += 1
        if count > max_values:
            raise _TooLarge(f"more than {max_values:,} values once aliases are expanded")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unreadable"
    return shown(line)


# --- writing ---------------------------------------------------------------------------------


def _target(path: Path) -> Path:
    """Where a write to ``path`` lands: through a symlink, the file it points to (the link stays)."""
    try:
        return path.resolve(strict=False) if path.is_symlink() else path
    except (OSError, RuntimeError):  # a loop of links
        raise OutputError(f"{shown(path)}: cannot write: the link leads nowhere (a loop of links)") from None


def write_atomic(path: Path, payload: bytes, *, keep_backup: bool = False) -> None:
    """Replace ``path`` with ``payload`` so that readers never see a partial file."""
    write_atomic_with(path, lambda temp: temp.write_bytes(payload), keep_backup=keep_backup)


def write_atomic_with(path: Path, write: Callable[[Path], object], *, keep_backup: bool = False) -> None:
    """Have ``write`` fill a temporary file beside ``path``, then rename it over ``path``.

    For writers that want a path of their own (a PDF writer): the result still appears whole or
    not at all. With ``keep_backup``, the file replaced is kept as ``<name>.bak`` when it can be.
    ``OutputError`` names the path and the reason for any failure; no temporary file is left.
    """
    target = _target(path)
    if target.is_dir():
        raise OutputError(f"{shown(path)}: cannot write: it is a folder; give a file name")
    if target.exists() and not target.is_file():
        # Renaming over a device or a pipe would replace it, not write to it.
        raise OutputError(f"{shown(path)}: cannot write: it is not a regular file; give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{shown(path)}: cannot write: the folder {shown(folder)} does not exist")
    tmp_name = ""
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        # mkstemp makes the file private; the result gets the mode the file had, else the usual one.
        os.chmod(tmp_name, stat.S_IMODE(target.stat().st_mode) if target.is_file() else _default_mode())
        write(Path(tmp_name))
        _fsync_file(Path(tmp_name))
        if keep_backup and target.is_file():
            _keep_backup(target, folder)
        os.replace(tmp_name, target)
        tmp_name = ""
    except OSError as exc:
        raise OutputError(f"{shown(path)}: cannot write: {exc.strerror or exc}") from None
    finally:
        if tmp_name:
            Path(tmp_name).unlink(missing_ok=True)
    _fsync_folder(folder)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _keep_backup(target: Path, folder: Path) -> None:
    backup = target.with_name(target.name + ".bak")
    if backup.exists() and not backup.is_file():
        return  # something else (a folder) has the backup's name: no backup rather than no save
    fd, backup_tmp = tempfile.mkstemp(prefix=f".{backup.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(target.read_bytes())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(backup_tmp, backup)
    except BaseException:
        Path(backup_tmp).unlink(missing_ok=True)
        raise


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


def strict_json(data: object, *, indent: int | None = 2) -> str:
    """JSON text that any parser reads: NaN or Infinity is a bug upstream and raises ``ValueError``."""
    return json.dumps(data, indent=indent, allow_nan=False, ensure_ascii=False)


def ensure_folder(folder: Path, what: str) -> None:
    """Make ``folder`` (and its parents); OutputError naming ``what`` is written there when the
    path is a file, or cannot be made."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{shown(folder)}: {what} go into a folder, and this is a file; give a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{shown(folder)}: cannot make the folder: {exc.strerror or exc}") from None
