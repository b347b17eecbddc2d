"""Plan files of older schema versions brought up to date, one step per version.

Each format change bumps ``SCHEMA_VERSION`` (``model``) and adds a step here that turns a
version-n document (a dict, as read from JSON) into a version n+1 document. A stored file of
every version lives in ``tests/data/plans/`` and is opened by the migration tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rackplanner.core.errors import PlanFileError
from rackplanner.core.ids import slug_id
from rackplanner.core.plan.model import SCHEMA_VERSION

# MIGRATIONS[n] turns a version-n document (a dict) into a version n+1 document.
Migration = Callable[[dict[str, Any]], dict[str, Any]]

# Version 1 gave racks a free-text row and defaulted it to this.
V1_DEFAULT_ROW = "row-1"


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Rows become entries of ``rows``: one per distinct row text, in order; racks name them by id.

    Anything that is not shaped like a version 1 plan is left as it is for validation to report.
    """
    racks = data.get("racks")
    if not isinstance(racks, list) or "rows" in data:
        return data
    rows: list[dict[str, str]] = []
    ids: dict[str, str] = {}
    new_racks: list[Any] = []
    for rack in racks:
        if not isinstance(rack, dict):
            new_racks.append(rack)
            continue
        text = rack.get("row", V1_DEFAULT_ROW)
        if not isinstance(text, str):
            new_racks.append(rack)
            continue
        if text not in ids:
            row_id = slug_id(text, set(ids.values()), fallback="row")
            ids[text] = row_id
            rows.append({"id": row_id, "name": text if text.strip() else row_id})
        new_racks.append({**rack, "row": ids[text]})
    return {**data, "rows": rows, "racks": new_racks}


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Machines gain ``host`` settings; a version 2 plan said nothing, which is the BIOS defaults (NPS1, SMT on)."""
    machines = data.get("machines")
    if not isinstance(machines, list):
        return data
    upgraded = [{**m, "host": {}} if isinstance(m, dict) and "host" not in m else m for m in machines]
    return {**data, "machines": upgraded}


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """A bare price per part (``price_overrides_usd``) becomes a user price with room for its date and note."""
    old = data.get("price_overrides_usd")
    if not isinstance(old, dict):
        return data
    upgraded = {k: v for k, v in data.items() if k != "price_overrides_usd"}
    upgraded["user_prices"] = {part: {"price_usd": price} for part, price in old.items()}
    return upgraded


MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def migrate(data: dict[str, Any], version: int) -> dict[str, Any]:
    """Apply each migration from ``version`` up to the current schema version."""
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise PlanFileError(f"schema_version: no migration from version {version}")
        data = step(dict(data))
        version += 1
        data["schema_version"] = version
    return data
