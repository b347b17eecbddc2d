"""Results cached by what they were derived from, one cache per catalog.

Plans are immutable, so an edit makes new objects only for what it touched. Keys are either
the content (a JSON dump: survives reloading a file) or the identity of the plan objects
(``identity_key``: costs nothing to build, and an untouched machine or rack keeps its object
through any edit).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Machine, Rack

T = TypeVar("T")

# Fields that only label a machine: two servers alike in everything else compute alike.
MACHINE_LABELS = frozenset({"id", "name", "notes"})


# Serialisations of the last machines asked about, by object: each machine is keyed by several
# caches (topology, findings, power), and serialising it is the costly part of a lookup. The entry
# holds the machine, so its id is not reused while the entry lives.
_DUMPS: dict[tuple[int, bool], tuple[Machine, str]] = {}
_DUMPS_KEPT = 16_384


def _dump(machine: Machine, labels: bool) -> str:
    found = _DUMPS.get((id(machine), labels))
    if found is not None and found[0] is machine:
        return found[1]
    text = machine.model_dump_json() if labels else machine.model_dump_json(exclude=set(MACHINE_LABELS))
    if len(_DUMPS) >= _DUMPS_KEPT:
        del _DUMPS[next(iter(_DUMPS))]
    _DUMPS[(id(machine), labels)] = (machine, text)
    return text


def content_key(machine: Machine) -> str:
    """A machine's whole content as JSON: the same machine read again from a file gives the same key."""
    return _dump(machine, labels=True)


def configuration_key(machine: Machine) -> str:
    """A machine's content without its labels, so a row of identical servers shares one result."""
    return _dump(machine, labels=False)


class IdentityKey:
    """Matches only the very objects it was made from; holding them keeps their ids from being reused.

    It hashes a tuple of ids once, so a lookup costs one Python call however many objects the key names.
    """

    __slots__ = ("_hash", "ids", "objects")

    def __init__(self, objects: tuple[object, ...]) -> None:
        self.objects = objects
        self.ids = tuple(map(id, objects))
        self._hash = hash(self.ids)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IdentityKey) and other.ids == self.ids


def identity_key(*objects: object) -> IdentityKey:
    """A cache key that matches only these very objects."""
    return IdentityKey(objects)


_MISSING = object()


class ContentCache(Generic[T]):
    """A bounded least-recently-used cache per catalog (a new catalog never sees old results)."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._by_catalog: WeakKeyDictionary[Catalog, OrderedDict[Hashable, T]] = WeakKeyDictionary()

    def get(self, catalog: Catalog, key: Hashable, compute: Callable[[], T]) -> T:
        entries = self._by_catalog.get(catalog)
        if entries is None:
            entries = self._by_catalog.setdefault(catalog, OrderedDict())
        found = entries.get(key, _MISSING)
        if found is not _MISSING:
            entries.move_to_end(key)
            return found  # type: ignore[return-value]
        value = compute()
        entries[key] = value
        if len(entries) > self._size:
            entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._by_catalog.clear()


class LayeredCache(Generic[T]):
    """Found by the very objects first (a key that costs nothing to build), then by content.

    An untouched machine or rack keeps its objects through an edit and is answered at once; an
    edit that rebuilds equal objects (undo, redo, a drop worked out while it hovered) is answered
    by content, whose key (a serialisation) is only built when the objects are new.
    """

    def __init__(self) -> None:
        self._by_object: ContentCache[T] = ContentCache()
        self._by_content: ContentCache[T] = ContentCache()

    def get(self, catalog: Catalog, objects: Hashable, content: Callable[[], Hashable], compute: Callable[[], T]) -> T:
        return self._by_object.get(catalog, objects, lambda: self._by_content.get(catalog, content(), compute))


def devices_key(rack: Rack, *fields: str) -> tuple[object, ...]:
    """The rack's devices by ``fields`` only: a result that does not depend on positions survives a move."""
    return (rack.id, rack.name, tuple(tuple(getattr(d, f) for f in fields) for d in rack.devices))
