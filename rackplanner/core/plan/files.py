"""Open and save plan files: JSON with a schema version, migrations, atomic saves.

A plan file is a JSON object with ``schema_version``. Older versions are migrated step
by step on load; a newer version than this program knows is refused. Saving writes a
temporary file beside the target, flushes and fsyncs it, keeps the previous file as
``<name>.bak`` and then replaces the target in one rename, so a crash at any moment
leaves either the complete old plan or the complete new one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import ValidationError

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    MOUNTABLE_PARTS,
    Board,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    Memory,
    Nic,
    NvlinkBridge,
    Part,
    Psu,
    Server,
)
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.collector import collector_paused
from rackplanner.core.errors import InputError, PlanFileError, describe_validation_error, field_path
from rackplanner.core.files import read_json, shown, write_atomic
from rackplanner.core.plan.migrations import migrate
from rackplanner.core.plan.model import SCHEMA_VERSION, Plan
from rackplanner.core.plan.resolve import board_of

# Longest plan file we read: far above any real plan, low enough to refuse junk quickly.
MAX_PLAN_BYTES = 32_000_000


def plan_to_json(plan: Plan) -> str:
    """The canonical text of a plan: stable key order, two-space indent, final newline."""
    data = plan.model_dump(mode="json")
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plan_from_data(data: object, *, origin: str = "plan") -> Plan:
    """Migrate and validate a decoded JSON document."""
    if not isinstance(data, dict):
        raise PlanFileError(f"{origin}: expected a JSON object, found {type(data).__name__}")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise PlanFileError(f"{origin}: schema_version: expected a whole number >= 1, found {_short(version)}")
    problem = _unusable_value(data)
    if problem:
        raise PlanFileError(f"{origin}: {problem}")
    if version > SCHEMA_VERSION:
        raise PlanFileError(
            f"{origin}: schema_version: the file is version {version}, this rackplanner reads "
            f"up to version {SCHEMA_VERSION}; open it with a newer rackplanner"
        )
    try:
        data = migrate(data, version)
    except PlanFileError as exc:
        raise PlanFileError(f"{origin}: {exc}") from None
    try:
        # Strict: a count of true or "3", a phase of 3.0, is refused rather than quietly converted.
        return Plan.model_validate_json(json.dumps(data, ensure_ascii=False), strict=True)
    except ValidationError as exc:
        raise PlanFileError(f"{origin}: {describe_validation_error(exc)}") from None


# Deepest nesting a plan file may have (a real plan is about six levels deep).
MAX_PLAN_DEPTH = 32
# Longest list a plan may hold: 50,000 machines is a 400,000-GPU cluster. Checked before the
# model validates, which would otherwise collect an error for each of millions of bad items.
MAX_PLAN_LIST = 50_000


def _unusable_value(data: object) -> str | None:
    """The first value no plan can hold: NaN or infinity, text that is not Unicode, nesting too deep."""
    stack: list[tuple[object, tuple[int | str, ...]]] = [(data, ())]
    while stack:
        item, loc = stack.pop()
        if len(loc) > MAX_PLAN_DEPTH:
            return f"{field_path(loc[:MAX_PLAN_DEPTH])}: nested more than {MAX_PLAN_DEPTH} levels deep"
        if isinstance(item, float) and not math.isfinite(item):
            return f"{field_path(loc)}: {item} is not a number a plan can hold"
        if isinstance(item, str) and not _is_unicode(item):
            return f"{field_path(loc)}: text with an unpaired surrogate escape (not Unicode)"
        if isinstance(item, dict):
            for key, value in item.items():
                if not _is_unicode(key):
                    return f"{field_path(loc)}: a key with an unpaired surrogate escape (not Unicode)"
                stack.append((value, (*loc, key)))
        elif isinstance(item, list):
            if len(item) > MAX_PLAN_LIST:
                return f"{field_path(loc)}: {len(item):,} items, more than the {MAX_PLAN_LIST:,} a plan's list may hold"
            stack.extend((value, (*loc, i)) for i, value in enumerate(item))
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def load_plan(path: Path, catalog: Catalog | None = None) -> Plan:
    """Read, migrate and validate a plan file; with a catalog, check every part reference."""
    with collector_paused():  # a large plan is many objects and no garbage
        try:
            data = read_json(path, what="plan", max_bytes=MAX_PLAN_BYTES)
        except InputError as exc:
            raise PlanFileError(str(exc)) from None
        plan = plan_from_data(data, origin=shown(path))
    if catalog is not None:
        problems = check_references(plan, catalog)
        if problems:
            listed = "; ".join(problems[:3])
            more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
            raise PlanFileError(f"{shown(path)}: {listed}{more}")
    return plan


def save_plan(plan: Plan, path: Path) -> None:
    """Write the plan atomically, keeping the previous file as ``<name>.bak``."""
    write_atomic(path, plan_to_json(plan).encode("utf-8"), keep_backup=True)


def check_references(plan: Plan, catalog: Catalog) -> list[str]:
    """Every part id the plan names must exist in the catalog and be of the right kind."""
    problems: list[str] = []

    def need(field: str, part_id: str | None, *kinds: type[Part]) -> Part | None:
        if part_id is None:
            return None
        part = catalog.get(part_id)
        if part is None:
            problems.append(f"{field}: part {_short(part_id)} is not in the catalog")
            return None
        if not isinstance(part, kinds):
            wanted = " or ".join(k.kind for k in kinds)
            problems.append(f"{field}: {_short(part_id)} is a {part.kind}, expected a {wanted}")
            return None
        return part

    for mi, machine in enumerate(plan.machines):
        at = f"machines[{mi}]"
        need(f"{at}.server", machine.server, Server)
        need(f"{at}.board", machine.board, Board)
        need(f"{at}.chassis", machine.chassis, Chassis)
        need(f"{at}.cpu", machine.cpu, Cpu)
        board = board_of(machine, catalog)
        for key, kinds in (("memory", (Memory,)), ("psus", (Psu,)), ("drives", (Drive,))):
            for i, item in enumerate(getattr(machine, key)):
                need(f"{at}.{key}[{i}].part", item.part, *kinds)
        for ci, card in enumerate(machine.cards):
            need(f"{at}.cards[{ci}].part", card.part, Gpu, Nic, Drive)
            if board is not None and board.slot(card.slot) is None:
                problems.append(f"{at}.cards[{ci}].slot: board {board.id} has no slot {_short(card.slot)}")
        for bi, bridge in enumerate(machine.bridges):
            need(f"{at}.bridges[{bi}].part", bridge.part, NvlinkBridge)
    for ri, rack in enumerate(plan.racks):
        need(f"racks[{ri}].part", rack.part, RackPart)
        for di, device in enumerate(rack.devices):
            need(f"racks[{ri}].devices[{di}].part", device.part, *MOUNTABLE_PARTS)
    for part_id in plan.user_prices:
        need(f"user_prices.{part_id[:60]}", part_id, Part)
    return problems
