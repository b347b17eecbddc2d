"""Ids made from names: lowercase kebab slugs, numbered when taken."""

from __future__ import annotations

import re


def slug(text: str, fallback: str = "item", *, dots: bool = False) -> str:
    """A lowercase kebab id made from ``text`` (with ``dots``, kept as in "llama-3.1-8b")."""
    kept = "a-z0-9." if dots else "a-z0-9"
    return re.sub(rf"[^{kept}]+", "-", text.lower()).strip("-.") or fallback


def free_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever ``taken`` does not hold."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def slug_id(text: str, taken: set[str], fallback: str = "item") -> str:
    """A lowercase kebab id made from ``text``, with ``-2``, ``-3``... added if ``taken`` has it."""
    return free_id(slug(text, fallback), taken)
