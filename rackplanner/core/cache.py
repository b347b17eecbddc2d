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

from rackplanner.core.catalog import Catalog
from rackplanner.core.plan import Machine, Rack

T = TypeVar("T")

# Fields that only label a machine: two servers alike in everything else compute alike.
MACHINE_LABELS = frozenset({"id", "name", "notes"})


def configuration_key(machine: Machine) -> str:
    """A machine's content without its labels, so a row of identical servers shares one result."""
    return machine.model_dump_json(exclude=set(MACHINE_LABELS))


class _Same:
    """Hashes and compares by identity; holding the object keeps its id from being reused."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def identity_key(*objects: object) -> tuple[_Same, ...]:
    """A cache key that matches only these very objects."""
    return tuple(_Same(o) for o in objects)


class ContentCache(Generic[T]):
    """A bounded least-recently-used cache per catalog (a new catalog never sees old results)."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._by_catalog: WeakKeyDictionary[Catalog, OrderedDict[Hashable, T]] = WeakKeyDictionary()

    def get(self, catalog: Catalog, key: Hashable, compute: Callable[[], T]) -> T:
        entries = self._by_catalog.setdefault(catalog, OrderedDict())
        if key in entries:
            entries.move_to_end(key)
            return entries[key]
        value = compute()
        entries[key] = value
        if len(entries) > self._size:
            entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._by_catalog.clear()


def devices_key(rack: Rack, *fields: str) -> tuple[object, ...]:
    """The rack's devices by ``fields`` only: a result that does not depend on positions survives a move."""
    return (rack.id, rack.name, tuple(tuple(getattr(d, f) for f in fields) for d in rack.devices))
