"""Undo that always returns: random walks of hundreds of edits through the app's undo stack.

Each walk applies random edits of every kind in ``rackplanner.core.plan.edits`` through
``PlanDocument.apply`` (arguments drawn mostly from what the plan holds, so most edits are
made; refused ones are skipped), keeping the plan after each. Every plan along the way must
be a valid plan (it loads back from its own text). Then the walk is undone step by step back
to the original plan, exactly, and redone to the final plan, exactly; plans are compared by
their canonical text (``plan_to_json``).
"""

from __future__ import annotations

import inspect
import random
import time
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtWidgets import QApplication

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Drive, Gpu, Nic, Pdu
from rackplanner.core.catalog.prices import PriceQuote
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.core.plan.model import Machine, PartCount, PlacedCard, Plan
from rackplanner.core.plan.resolve import board_of
from rackplanner.gui.document import PlanDocument

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"

EDIT_KINDS = sorted(
    name
    for name, fn in inspect.getmembers(edits, inspect.isfunction)
    if not name.startswith("_")
    and fn.__module__.startswith(edits.__name__ + ".")
    and "EditResult" in str(fn.__annotations__.get("return"))
)

NAMES = ["GPU 1", "Rack A", "Row 1", "Home rig", "Feed A", "x", "Zürich — Reihe 2", "💡 lab", "GPU 1", "Rack A"]
SERVERS = ["sys-4028gr-trt2", "sys-4029gp-trt2"]
BOARDS = ["proart-x670e-creator", "x9drg-o-pcie"]
CHASSIS = ["fractal-define-7-xl", None]
CPUS = ["xeon-e5-2680-v4", None]
CARDS = [
    "rtx-3090",
    "a100-80gb-pcie",
    "l40s",
    "rtx-a6000",
    "connectx-6-mcx653105a-hdat",
    "samsung-990-pro-2tb",
    "ghost",
]
BRIDGES = ["nvlink-bridge-3090-4slot", "nvlink-bridge-3090-3slot", "nvlink-bridge-a100-2slot"]
MEMORY = ["ddr4-2400-32gb-rdimm-2rx4", "crucial-ddr5-5600-32gb-udimm"]
PSUS = ["seasonic-prime-tx-1600", "supermicro-pws-2k04a-1r"]
DRIVES = ["samsung-990-pro-2tb", "samsung-870-evo-1tb"]
RACK_PARTS = ["apc-ar3300", "apc-ar3100"]
RACK_DEVICES = ["apc-ap8886", "apc-ap8965", "mellanox-qm8700", "nvidia-sn2201", "supermicro-sys-1019p-wtr"]
# A part of the wrong kind for almost every edit that names one.
WRONG_KIND = ["apc-ar3300", "rtx-3090"]
KIND_WEIGHTS = {
    "add_machine": 3.0,
    "add_rack": 2.0,
    "place_card": 5.0,
    "mount_device": 4.0,
    "add_bridge": 2.0,
    "add_feed": 1.5,
    "add_row": 1.5,
    "remove_machine": 0.4,
    "remove_rack": 0.4,
    "remove_row": 0.5,
    "remove_feed": 0.5,
}
WATTS = [None, 100.0, 200.0, 250.0, 280.0, 300.0, 1000.0, 0.0]
PRICES = [None, 0.0, 99.5, 1234.0, -1.0]


class Walker:
    """Draws the arguments of one random edit from what the plan holds (mostly valid)."""

    def __init__(self, rng: random.Random, catalog: Catalog) -> None:
        self.rng = rng
        self.catalog = catalog

    def kind(self) -> str:
        # Things are added more often than removed, so that the plan grows and edits find targets.
        return self.rng.choices(EDIT_KINDS, [KIND_WEIGHTS.get(k, 1.0) for k in EDIT_KINDS])[0]

    def pick(self, options: list[Any], ghost: Any = "ghost") -> Any:
        # One draw in twenty names something that is not there, to exercise refusals.
        if not options or self.rng.random() < 0.05:
            return ghost
        return self.rng.choice(options)

    def name(self) -> str:
        return "" if self.rng.random() < 0.03 else self.rng.choice(NAMES)

    def part(self, options: list[str]) -> str:
        """Mostly one of ``options``; now and then an id not in the catalog or a part of the wrong kind."""
        roll = self.rng.random()
        if roll < 0.03:
            return "ghost"
        if roll < 0.06:
            return self.rng.choice(WRONG_KIND)
        return self.rng.choice(options)

    def machine(self, plan: Plan) -> str:
        return str(self.pick([m.id for m in plan.machines]))

    def slots(self, plan: Plan, machine_id: str) -> list[str]:
        machine = plan.machine(machine_id)
        board = board_of(machine, self.catalog) if machine else None
        return [s.id for s in board.slots] if board else []

    def cards(self, plan: Plan, machine_id: str) -> list[str]:
        machine = plan.machine(machine_id)
        return [c.slot for c in machine.cards] if machine else []

    def rack(self, plan: Plan) -> str:
        return str(self.pick([r.id for r in plan.racks]))

    def device(self, plan: Plan, rack_id: str) -> str:
        rack = plan.rack(rack_id)
        return str(self.pick([d.id for d in rack.devices] if rack else []))

    def counts(self, parts: list[str]) -> list[PartCount]:
        return [
            PartCount(part=self.rng.choice(parts), count=self.rng.randint(1, 8)) for _ in range(self.rng.randint(0, 2))
        ]

    def arguments(self, kind: str, plan: Plan) -> dict[str, Any]:
        rng, catalog = self.rng, self.catalog
        if kind == "add_machine":
            if rng.random() < 0.5:
                return {"name": self.name(), "server": self.part(SERVERS), "cpu": rng.choice(CPUS), "catalog": catalog}
            return {
                "name": self.name(),
                "board": self.part(BOARDS),
                "chassis": rng.choice(CHASSIS),
                "cpu": rng.choice(CPUS),
                "cpu_count": rng.choice([1, 2, 2, 2, 9]),
                "catalog": catalog,
            }
        if kind == "add_built_machine":
            # An advised build: a server with GPUs in its bays (one draw in twenty names a part
            # the catalog lacks, to exercise the refusal).
            gpu = rng.choice(["a100-80gb-pcie", "rtx-3090", "ghost"] if rng.random() < 0.05 else ["a100-80gb-pcie"])
            machine = Machine(
                id="advised",
                name=self.name() or "Advised",
                server="sys-4028gr-trt2",
                cpu="xeon-e5-2680-v4",
                cpu_count=2,
                memory=[PartCount(part="ddr4-2400-32gb-rdimm-2rx4", count=8)],
                cards=[PlacedCard(slot=f"gpu{n}", part=gpu) for n in range(1, rng.randint(1, 8) + 1)],
            )
            return {"machine": machine, "catalog": catalog}
        if kind in ("rename_machine", "remove_machine"):
            args: dict[str, Any] = {"machine": self.machine(plan)}
            return {**args, "name": self.name()} if kind == "rename_machine" else args
        if kind == "set_host_settings":
            settings = rng.choice(
                [{"numa_per_socket": rng.choice([1, 2, 4, 3])}, {"acs": rng.random() < 0.5}, {"nccl_p2p_level": "SYS"}]
            )
            return {"machine": self.machine(plan), **settings}
        if kind == "configure_machine":
            options: dict[str, Callable[[], Any]] = {
                "server": lambda: rng.choice([*SERVERS, None]),
                "board": lambda: rng.choice([*BOARDS, None]),
                "chassis": lambda: rng.choice(CHASSIS),
                "cpu": lambda: rng.choice(CPUS),
                "cpu_count": lambda: rng.choice([1, 2]),
                "memory": lambda: self.counts(MEMORY),
                "psus": lambda: self.counts(PSUS),
                "drives": lambda: self.counts(DRIVES),
            }
            chosen = rng.sample(sorted(options), rng.randint(1, 3))
            return {"machine": self.machine(plan), "catalog": catalog, **{k: options[k]() for k in chosen}}
        if kind == "place_card":
            machine = self.machine(plan)
            empty = [s for s in self.slots(plan, machine) if s not in self.cards(plan, machine)]
            slot = self.pick(empty)
            found = plan.machine(machine)
            board = board_of(found, catalog) if found else None
            slot_kind = board.slot(slot).kind if board and board.slot(slot) else "pcie"
            fitting = {"m2": ["samsung-990-pro-2tb"], "sxm": ["a100-80gb-sxm"]}.get(slot_kind, CARDS)
            return {"machine": machine, "slot": slot, "part": self.part(fitting), "catalog": catalog}
        if kind == "move_card":
            machine = self.machine(plan)
            return {
                "machine": machine,
                "from_slot": self.pick(self.cards(plan, machine)),
                "to_slot": self.pick(self.slots(plan, machine)),
                "catalog": catalog,
            }
        if kind == "remove_card":
            machine = self.machine(plan)
            return {"machine": machine, "slot": self.pick(self.cards(plan, machine))}
        if kind == "remove_bridge":
            machines = [m for m in plan.machines if m.bridges] or plan.machines
            found = self.pick(machines, ghost=None)
            bridged = [slot for b in found.bridges for slot in b.slots] if found else []
            return {"machine": found.id if found else "ghost", "slot": self.pick(bridged)}
        if kind == "set_power_limit":
            machine = self.machine(plan)
            return {
                "machine": machine,
                "slot": self.pick(self.cards(plan, machine)),
                "watts": rng.choice(WATTS),
                "catalog": catalog,
            }
        if kind == "add_bridge":
            paired = [m.id for m in plan.machines if len(m.cards) >= 2]
            machine = self.pick(paired) if paired else self.machine(plan)
            found = plan.machine(machine)
            by_part: dict[str, list[str]] = {}
            for card in found.cards if found else []:
                by_part.setdefault(card.part, []).append(card.slot)
            pairs = [(part, slots) for part, slots in by_part.items() if len(slots) >= 2]
            if not pairs:
                return {
                    "machine": machine,
                    "slots": ("ghost", "ghost-2"),
                    "part": self.part(BRIDGES),
                    "catalog": catalog,
                }
            part, slots = rng.choice(pairs)
            fits = [b for b in BRIDGES if part in getattr(catalog.get(b), "fits_gpus", ())] or BRIDGES
            pair = tuple(rng.sample(slots, 2))
            return {"machine": machine, "slots": pair, "part": self.part(fits), "catalog": catalog}
        if kind == "add_rack":
            row = self.pick([r.id for r in plan.rows], ghost=None) if rng.random() < 0.7 else "ghost"
            return {"name": self.name(), "part": self.part(RACK_PARTS), "row": row, "catalog": catalog}
        if kind == "rename_rack":
            return {"rack": self.rack(plan), "name": self.name()}
        if kind == "remove_rack":
            return {"rack": self.rack(plan)}
        if kind == "move_rack_to_row":
            return {"rack": self.rack(plan), "row": self.pick([r.id for r in plan.rows])}
        if kind == "set_card_network":
            nics = [(m.id, c.slot) for m in plan.machines for c in m.cards if catalog.get_as(c.part, Nic)]
            machine, slot = self.pick(nics, ghost=None) or (self.machine(plan), "ghost")
            return {
                "machine": machine,
                "slot": slot,
                "network": rng.choice(["compute", "storage", "in-band", None]),
                "catalog": catalog,
            }
        if kind == "add_row":
            return {"name": self.name()}
        if kind in ("rename_row", "remove_row"):
            args = {"row": self.pick([r.id for r in plan.rows])}
            return {**args, "name": self.name()} if kind == "rename_row" else args
        if kind == "mount_device":
            rack = self.rack(plan)
            common = {"rack": rack, "name": self.name(), "catalog": catalog, "face": rng.choice(["front", "rear"])}
            if rng.random() < 0.5:
                common["machine"] = self.machine(plan)
            else:
                common["part"] = self.part(RACK_DEVICES)
                common["feed"] = self.pick([f.id for f in plan.feeds], ghost=None)
            if rng.random() < 0.75:
                return {**common, "position_u": rng.randint(1, 46)}
            return {**common, "side": rng.choice(["left", "right"])}
        if kind == "move_device":
            rack = self.rack(plan)
            args = {"rack": rack, "device": self.device(plan, rack)}
            choice = rng.random()
            if choice < 0.4:
                args["position_u"] = rng.randint(1, 44)
            elif choice < 0.6:
                args["side"] = rng.choice(["left", "right"])
            elif choice < 0.8:
                args["face"] = rng.choice(["front", "rear"])
            else:
                args["to_rack"] = self.rack(plan)
            return args
        if kind == "unmount_device":
            rack = self.rack(plan)
            return {"rack": rack, "device": self.device(plan, rack)}
        if kind == "add_feed":
            return {
                "name": self.name(),
                "side": rng.choice(["A", "B"]),
                "phases": rng.choice([1, 3]),
                "voltage_v": rng.choice([120.0, 230.0, 400.0]),
                "breaker_a": rng.choice([16.0, 32.0, 63.0]),
            }
        if kind == "set_device_feed":
            rack = self.rack(plan)
            return {
                "rack": rack,
                "device": self.device(plan, rack),
                "feed": self.pick([f.id for f in plan.feeds], None),
            }
        if kind == "remove_feed":
            return {"feed": self.pick([f.id for f in plan.feeds])}
        if kind == "set_price_override":
            return {"part": rng.choice([*CARDS, *PSUS]), "price_usd": rng.choice(PRICES), "catalog": catalog}
        if kind == "import_price_list":
            rows = [
                PriceQuote(
                    part=rng.choice([*CARDS, *PSUS, "ghost-part"]),
                    price_usd=rng.choice([0.0, 99.5, 1234.0]),
                    price_date=date(2026, 11, rng.randint(1, 25)),
                    kind="quote",
                    source=f"prices.csv row {n + 2}",
                )
                for n in range(rng.randint(0, 3))
            ]
            return {"quotes": rows, "name": "prices.csv", "catalog": catalog}
        if kind == "set_outlet_assignment":
            with_pdus = [r.id for r in plan.racks if any(d.part and catalog.get_as(d.part, Pdu) for d in r.devices)]
            rack_id = self.pick(with_pdus) if with_pdus else self.rack(plan)
            rack = plan.rack(rack_id)
            pdus = [d for d in rack.devices if d.part and catalog.get_as(d.part, Pdu)] if rack else []
            pdu = self.rng.choice(pdus) if pdus and rng.random() < 0.8 else None
            part = catalog.get_as(pdu.part, Pdu) if pdu and pdu.part else None
            groups = [g.id for g in part.outlet_groups] if part else []
            return {
                "rack": rack_id,
                "device": self.device(plan, rack_id),
                "psu_index": rng.randint(0, 2),
                "pdu": pdu.id if pdu else None,
                "outlet_group": self.pick(groups, None),
                "catalog": catalog,
            }
        if kind == "set_plan_notes":
            return {
                "name": self.name() if rng.random() < 0.5 else None,
                "notes": rng.choice(["", "notes", "ünïcode ✓"]),
            }
        raise AssertionError(f"no arguments for edit {kind}: add them to Walker.arguments")


def walk(document: PlanDocument, walker: Walker, steps: int, applied: Counter[str]) -> list[str]:
    """Apply ``steps`` random edits; the plan texts from the original to the last, one per made edit."""
    texts = [plan_to_json(document.plan)]
    for _ in range(steps):
        kind = walker.kind()
        arguments = walker.arguments(kind, document.plan)
        result = document.apply(getattr(edits, kind), **arguments)
        if result is None:
            applied["refused"] += 1
            continue
        applied[kind] += 1
        text = plan_to_json(document.plan)
        # Every plan along the way is one that saves and loads back as the same plan.
        assert Plan.model_validate_json(text, strict=True) == document.plan, f"{kind}({arguments}) made an invalid plan"
        texts.append(text)
    return texts


def walk_back_and_forth(document: PlanDocument, texts: list[str]) -> None:
    stack = document.undo_stack
    assert stack.count() == len(texts) - 1
    for i in range(len(texts) - 2, -1, -1):
        stack.undo()
        assert plan_to_json(document.plan) == texts[i], f"undo to step {i} differs"
    assert not stack.canUndo()
    for i in range(1, len(texts)):
        stack.redo()
        assert plan_to_json(document.plan) == texts[i], f"redo to step {i} differs"
    assert not stack.canRedo()


def test_every_edit_kind_is_walked() -> None:
    assert len(EDIT_KINDS) >= 24
    walker = Walker(random.Random(0), Catalog())
    for kind in EDIT_KINDS:
        assert isinstance(walker.arguments(kind, Plan(name="p")), dict)


def test_random_edits_undo_to_the_original_and_redo_to_the_end(
    qapp: QApplication, catalog: Catalog, record_property: Callable[[str, object], None]
) -> None:
    applied: Counter[str] = Counter()
    walks = []
    started = time.monotonic()
    seeds = [load_plan(path, catalog) for path in sorted(EXAMPLES.glob("*.json"))] + [Plan(name="Empty")]

    @settings(
        max_examples=8, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(seed=st.integers(0, 2**32 - 1), start=st.sampled_from(seeds), steps=st.integers(200, 400))
    def case(seed: int, start: Plan, steps: int) -> None:
        document = PlanDocument(start, catalog)
        texts = walk(document, Walker(random.Random(seed), catalog), steps, applied)
        walk_back_and_forth(document, texts)
        assert plan_to_json(start) == texts[0]
        walks.append(len(texts) - 1)

    case()
    made = sum(v for k, v in applied.items() if k != "refused")
    line = (
        f"{len(walks)} walks, {made} edits made and {applied['refused']} refused, each made edit undone and "
        f"redone, in {time.monotonic() - started:.1f} s"
    )
    print("\n" + line)
    record_property("undo_walks", line)
    record_property("edits_by_kind", dict(applied))
    # Every kind of edit was made at least once, and most drawn edits were made.
    assert {k for k in applied if k != "refused"} == set(EDIT_KINDS), set(EDIT_KINDS) - set(applied)
    assert made > applied["refused"]


def test_gpu_cards_nics_and_drives_are_in_the_walk(catalog: Catalog) -> None:
    # The part lists above name real catalog parts of the kinds the edits expect.
    assert isinstance(catalog.get("rtx-3090"), Gpu)
    assert isinstance(catalog.get("connectx-6-mcx653105a-hdat"), Nic)
    assert isinstance(catalog.get("samsung-990-pro-2tb"), Drive)
    for part in [*SERVERS[:2], BOARDS[0], BOARDS[1], *MEMORY, *PSUS, *DRIVES, *RACK_PARTS, *RACK_DEVICES[:-1]]:
        assert catalog.get(part) is not None, part
    for bridge in BRIDGES[:3]:
        assert catalog.get(bridge) is not None, bridge
