"""Load and validate the parts catalog: the built-in ``catalog/`` plus users' own folders.

Each folder holds one YAML file per part kind (``gpu.yaml``, ``board.yaml``, ...), each a
list of entries. Later folders override earlier ones entry by entry, by ``id``.

The built-in catalog is strict: any problem in it is an error. In users' folders a broken
entry (or a file that cannot be read at all) is skipped and described in ``Catalog.problems``
so that the rest of the catalog, and the user's plan, still open. YAML is read with a safe
loader only (no tags that build objects), with bounds on size, nesting and alias expansion.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from rackplanner.core import files
from rackplanner.core.appdirs import app_dirs
from rackplanner.core.catalog import parsecache
from rackplanner.core.catalog.parts import PART_KINDS, Part
from rackplanner.core.catalog.prices import PriceQuote, choose_price, read_price_book
from rackplanner.core.errors import InputError, describe_validation_error

P = TypeVar("P", bound=Part)

BUILTIN_CATALOG_DIR = Path(__file__).resolve().parents[3] / "catalog"

# Bounds far above the built-in files (the largest, board.yaml, is 66 kB with about 2,300
# values) that refuse junk and "billion laughs" alias bombs before anything walks them.
MAX_CATALOG_FILE_BYTES = 4_000_000
MAX_YAML_VALUES = 100_000


def user_catalog_dir() -> Path:
    """The per-user catalog folder: ``$RACKPLANNER_USER_CATALOG``, else ``catalog`` in the platform's
    folder for an application's settings (``~/.config/rackplanner`` on Linux, honouring XDG;
    ``~/Library/Application Support/rackplanner`` on macOS; ``%LOCALAPPDATA%\\rackplanner`` on Windows)."""
    override = os.environ.get("RACKPLANNER_USER_CATALOG")
    if override:
        return Path(override)
    return app_dirs().user_config_path / "catalog"


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
    # What was skipped in users' folders, one sentence each (file, entry, field, problem).
    problems: list[str] = field(default_factory=list)
    # Every dated price of a part, from the folders' price books (prices/*.yaml).
    prices: dict[str, list[PriceQuote]] = field(default_factory=dict)
    # The folders it was loaded from, in order (built-in first), so it can be loaded again.
    folders: list[Path] = field(default_factory=list)

    def price_of(self, part_id: str) -> PriceQuote | None:
        """The price book's price for a part (see ``choose_price``); None when it has none."""
        return choose_price(self.prices.get(part_id, []))

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


def read_yaml(path: Path) -> object:
    """A catalog file's data through a safe loader, bounded; CatalogError naming the file otherwise."""
    try:
        return files.read_yaml(
            path,
            what="catalog",
            max_bytes=MAX_CATALOG_FILE_BYTES,
            max_values=MAX_YAML_VALUES,
            trusted=path.parent == BUILTIN_CATALOG_DIR,
        )
    except InputError as exc:
        raise CatalogError(str(exc)) from None


_UNREAD = object()


def load_catalog_file(
    path: Path, kind: str, *, problems: list[str] | None = None, data: object = _UNREAD
) -> list[tuple[int, Part]]:
    """Parse and validate one kind's YAML file; raise CatalogError naming file and field.

    With a ``problems`` list, a broken entry is described there and skipped instead. ``data`` is
    the file's content already parsed (the built-in catalog's, from the parse cache).
    """
    model = PART_KINDS[kind]
    if data is _UNREAD:
        data = read_yaml(path)
    if data is None:
        return []
    if not isinstance(data, list):
        raise CatalogError(f"{path}: expected a list of {kind} entries, found {type(data).__name__}")
    entries: list[tuple[int, Part]] = []
    for index, raw in enumerate(data):
        where = f"{path}: entry {index}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            where += f" ({raw['id'][:80]})"
        try:
            if not isinstance(raw, dict):
                raise CatalogError(f"{where}: expected a mapping of fields, found {type(raw).__name__}")
            try:
                entries.append((index, model.model_validate(raw)))
            except ValidationError as exc:
                raise CatalogError(f"{where}: {describe_validation_error(exc)}") from None
        except CatalogError as exc:
            if problems is None:
                raise
            problems.append(f"{exc} (entry skipped)")
    return entries


def load_catalog(folders: Sequence[Path] | None = None, *, include_user: bool = True) -> Catalog:
    """Load the built-in catalog, then each folder in ``folders`` (later ids override).

    With ``include_user`` the per-user folder is read too, before ``folders``.
    """
    chain: list[Path] = [BUILTIN_CATALOG_DIR]
    if include_user and user_catalog_dir().is_dir():
        chain.append(user_catalog_dir())
    chain.extend(folders or [])
    catalog = Catalog(folders=list(chain))
    for folder in chain:
        if not folder.is_dir():
            raise CatalogError(f"{folder}: catalog folder does not exist")
        # Users' folders are lenient: what cannot be used is skipped and listed in problems.
        _merge_folder(catalog, folder, None if folder == BUILTIN_CATALOG_DIR else catalog.problems)
        _read_prices(catalog, folder, None if folder == BUILTIN_CATALOG_DIR else catalog.problems)
    _price_parts(catalog)
    return catalog


def reload_catalog(catalog: Catalog) -> Catalog:
    """The same folders loaded again (after the user's catalog changed); the user's folder is re-checked."""
    extra = [f for f in catalog.folders if f not in (BUILTIN_CATALOG_DIR, user_catalog_dir())]
    return load_catalog(extra, include_user=True)


def _read_prices(catalog: Catalog, folder: Path, problems: list[str] | None) -> None:
    for path in sorted((folder / "prices").glob("*.y*ml")):
        try:
            quotes = read_price_book(path, problems)
        except InputError as exc:
            if problems is None:
                raise CatalogError(str(exc)) from None
            problems.append(f"{exc} (file skipped)")
            continue
        for quote in quotes:
            catalog.prices.setdefault(quote.part, []).append(quote)


def _price_parts(catalog: Catalog) -> None:
    """A part without a price of its own takes the price book's (so every view sees one price)."""
    unknown = sorted(set(catalog.prices) - set(catalog.parts))
    if unknown:
        catalog.problems.append(f"prices for parts not in the catalog are not used: {', '.join(unknown[:10])}")
    for part_id, part in catalog.parts.items():
        quote = catalog.price_of(part_id) if part.price_usd is None else None
        if quote is not None:
            catalog.parts[part_id] = part.model_copy(
                update={"price_usd": quote.price_usd, "price_date": quote.price_date}
            )


def _merge_folder(catalog: Catalog, folder: Path, problems: list[str] | None) -> None:
    """Add a folder's entries: an id from an earlier folder is replaced; one used twice here is an error."""
    ids_here: dict[str, CatalogEntrySource] = {}
    files = list(_kind_files(folder, problems))
    # The built-in files are parsed once per content and read back from a cache after that.
    ready = parsecache.parsed([p for _, p in files], read_yaml) if folder == BUILTIN_CATALOG_DIR else {}
    for kind, path in files:
        try:
            entries = load_catalog_file(path, kind, problems=problems, data=ready.get(path.name, _UNREAD))
        except CatalogError as exc:
            if problems is None:
                raise
            problems.append(f"{exc} (file skipped)")
            continue
        for index, part in entries:
            origin = CatalogEntrySource(path, index)
            if part.id in ids_here:
                first = ids_here[part.id]
                message = (
                    f"{path}: entry {index} ({part.id}): id: {part.id!r} is already used by "
                    f"{first.path.name} entry {first.index}"
                )
                if problems is None:
                    raise CatalogError(message)
                problems.append(f"{message} (entry skipped)")
                continue
            ids_here[part.id] = origin
            catalog.parts[part.id] = part
            catalog.origins[part.id] = origin


def _kind_files(folder: Path, problems: list[str] | None) -> Iterable[tuple[str, Path]]:
    for path in sorted(folder.glob("*.y*ml")):
        kind = path.stem
        if kind not in PART_KINDS:
            known = ", ".join(sorted(PART_KINDS))
            message = f"{path}: unknown part kind {kind!r} (file names: {known})"
            if problems is None:
                raise CatalogError(message)
            problems.append(f"{message} (file skipped)")
            continue
        yield kind, path
