"""Parts written into a catalog folder of the user's: ``<folder>/<kind>.yaml``, same id replaced, atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rackplanner.core import files
from rackplanner.core.catalog.loading import MAX_CATALOG_FILE_BYTES
from rackplanner.core.catalog.parts import Part
from rackplanner.core.errors import InputError


def merge_entries(folder: Path, kind: str, entries: list[dict[str, Any]]) -> Path:
    """Add ``entries`` (catalog entries as mappings) to ``folder/<kind>.yaml``; an entry with the same id is replaced.

    InputError (the file left unchanged) when the existing file cannot be read as a list of entries.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kind}.yaml"
    existing: list[Any] = []
    if path.exists():
        loaded = files.read_yaml(path, what="catalog", max_bytes=MAX_CATALOG_FILE_BYTES)
        if loaded is not None and not isinstance(loaded, list):
            raise InputError(f"{files.shown(path)}: expected a list of {kind} entries; not changed")
        existing = loaded or []
    new = {str(e["id"]): e for e in entries}
    merged = [e for e in existing if not (isinstance(e, dict) and e.get("id") in new)] + list(new.values())
    files.write_atomic(path, yaml.safe_dump(merged, sort_keys=False, allow_unicode=True).encode("utf-8"))
    return path


def save_part(part: Part, folder: Path) -> Path:
    """Write one validated part to the user's catalog folder, as the built-in files write it (defaults left out)."""
    entry = part.model_dump(mode="json", exclude_defaults=True)
    # Key fields first, as the built-in files read.
    ordered = {key: entry.pop(key) for key in ("id", "vendor", "model") if key in entry}
    return merge_entries(folder, part.kind, [ordered | entry])
