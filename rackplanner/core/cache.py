"""Results cached by the content of what they were derived from, one cache per catalog.

Plans are immutable, so an edit makes new objects only for what it touched; keying on
content means an untouched machine or rack is answered from the cache after any edit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

from rackplanner.core.catalog import Catalog

T = TypeVar("T")


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
