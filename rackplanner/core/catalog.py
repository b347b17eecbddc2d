"""Load and validate the parts catalog: the built-in ``catalog/`` plus users' own folders.

Each folder holds one YAML file per part kind (``gpu.yaml``, ``board.yaml``, ...), each a
list of entries. Later folders override earlier ones entry by entry, by ``id``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import ValidationError

from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.parts import PART_KINDS, Part

P = TypeVar("P", bound=Part)

# libyaml's safe loader parses the catalog about six times faster than the pure-Python one
# (start-up time); both refuse tags that would construct Python objects.
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

BUILTIN_CATALOG_DIR = Path(__file__).resolve().parent.parent.parent / "catalog"


def user_catalog_dir() -> Path:
    """The per-user catalog folder (``$RACKPLANNER_USER_CATALOG`` or the XDG config folder)."""
    override = os.environ.get("RACKPLANNER_USER_CATALOG")
    if override:
        return Path(override)
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home) / "rackplanner" / "catalog"


class CatalogError(InputError):
    """A catalog file or entry that cannot be used."""


@dataclass(frozen=True)
class CatalogEntrySource:
    """Where an entry came from, for messages and for the user to open."""

    path: Path
    index: int


@dataclass(eq=False)
class Catalog:
    """All parts by id, with where each came from. Compared by identity: once loaded it is not changed."""

    parts: dict[str, Part] = field(default_factory=dict)
    origins: dict[str, CatalogEntrySource] = field(default_factory=dict)

    def get(self, part_id: str) -> Part | None:
        return self.parts.get(part_id)

    def get_as(self, part_id: str, kind: type[P]) -> P | None:
        """The part with this id if it is of ``kind``, else None."""
        part = self.parts.get(part_id)
        return part if isinstance(part, kind) else None

    def of_kind(self, kind: type[P]) -> list[P]:
        return [p for p in self.parts.values() if isinstance(p, kind)]

    def search(self, text: str, kind: type[Part] | None = None) -> list[Part]:
        """Parts whose id, vendor or model contain every word of ``text`` (case-insensitive)."""
        words = text.lower().split()
        found = []
        for part in self.parts.values():
            if kind is not None and not isinstance(part, kind):
                continue
            haystack = f"{part.id} {part.vendor} {part.model}".lower()
            if all(w in haystack for w in words):
                found.append(part)
        return found

    def __iter__(self) -> Iterator[Part]:
        return iter(self.parts.values())

    def __len__(self) -> int:
        return len(self.parts)


def load_catalog_file(path: Path, kind: str) -> list[tuple[int, Part]]:
    """Parse and validate one kind's YAML file; raise CatalogError naming file and field."""
    model = PART_KINDS[kind]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read the file ({exc})") from None
    try:
        data = yaml.load(text, Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: not valid YAML ({_first_line(str(exc))})") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise CatalogError(f"{path}: expected a list of {kind} entries, found {type(data).__name__}")
    entries: list[tuple[int, Part]] = []
    for index, raw in enumerate(data):
        where = f"{path}: entry {index}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            where += f" ({raw['id']})"
        if not isinstance(raw, dict):
            raise CatalogError(f"{where}: expected a mapping of fields, found {type(raw).__name__}")
        try:
            entries.append((index, model.model_validate(raw)))
        except ValidationError as exc:
            raise CatalogError(f"{where}: {describe_validation_error(exc)}") from None
    return entries


def load_catalog(folders: Sequence[Path] | None = None, *, include_user: bool = True) -> Catalog:
    """Load the built-in catalog, then each folder in ``folders`` (later ids override).

    With ``include_user`` the per-user folder is read too, before ``folders``.
    """
    chain: list[Path] = [BUILTIN_CATALOG_DIR]
    if include_user and user_catalog_dir().is_dir():
        chain.append(user_catalog_dir())
    chain.extend(folders or [])
    catalog = Catalog()
    for folder in chain:
        if not folder.is_dir():
            raise CatalogError(f"{folder}: catalog folder does not exist")
        _merge_folder(catalog, folder)
    return catalog


def _merge_folder(catalog: Catalog, folder: Path) -> None:
    """Add a folder's entries: an id from an earlier folder is replaced; one used twice here is an error."""
    ids_here: dict[str, CatalogEntrySource] = {}
    for kind, path in _kind_files(folder):
        for index, part in load_catalog_file(path, kind):
            origin = CatalogEntrySource(path, index)
            if part.id in ids_here:
                first = ids_here[part.id]
                raise CatalogError(
                    f"{path}: entry {index}: id {part.id!r} is already used by {first.path.name} entry {first.index}"
                )
            ids_here[part.id] = origin
            catalog.parts[part.id] = part
            catalog.origins[part.id] = origin


def _kind_files(folder: Path) -> Iterable[tuple[str, Path]]:
    for path in sorted(folder.glob("*.y*ml")):
        kind = path.stem
        if kind not in PART_KINDS:
            known = ", ".join(sorted(PART_KINDS))
            raise CatalogError(f"{path}: unknown part kind {kind!r} (file names: {known})")
        yield kind, path


def _first_line(text: str) -> str:
    return " ".join(text.split())
