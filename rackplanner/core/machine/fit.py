"""Physical and electrical compatibility of a machine, as findings a person can act on.

Each rule yields findings with a severity, the slots or parts concerned and one sentence
with the numbers. A figure the catalog does not know is said to be unknown rather than
assumed, so a missing spec never hides a problem silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Gpu, Memory, Nic
from rackplanner.core.catalog.slot_rules import card_slot_problem
from rackplanner.core.findings import SEVERITY_ORDER, Severity
from rackplanner.core.machine.bridges import bridge_problems
from rackplanner.core.machine.cpu_fit import check_cpu
from rackplanner.core.machine.nccl_fit import check_nccl
from rackplanner.core.machine.power import machine_power
from rackplanner.core.machine.topology import Topology, derive_topology
from rackplanner.core.machine.topology.model import TopologyDevice
from rackplanner.core.plan.cache import ContentCache, configuration_key, identity_key
from rackplanner.core.plan.model import Machine, PlacedCard
from rackplanner.core.plan.resolve import board_of, chassis_of, psus_of, server_of

# A wall circuit carries 80% of its breaker rating continuously (NEC 210.19/210.20 practice,
# the same 80% as 002_daeb2f0cc80a7fe9.txt): 120 V x 15 A x 0.8 = 1440 W; 230 V x 16 A = 2944 W.
CONTINUOUS_FRACTION = 0.8
WALL_CIRCUITS_V_A: tuple[tuple[float, float], ...] = ((120, 15), (230, 16))


# Connectors each PCIe 8-pin and 12V-2x6 cable feeds.
_PCIE_8PIN = "pcie-8pin"
_HIGH_POWER = ("12vhpwr", "12v-2x6")


class Finding(BaseModel):
    severity: Severity
    code: str
    message: str
    machine: str
    slots: list[str] = []
    parts: list[str] = []


_CACHE: ContentCache[list[Finding]] = ContentCache()
_BY_CONFIGURATION: ContentCache[list[Finding]] = ContentCache()


def check_machine(machine: Machine, catalog: Catalog, topology: Topology | None = None) -> list[Finding]:
    """Every fit rule for one machine, most severe first (cached for these very objects: treat as read-only)."""
    return _CACHE.get(catalog, identity_key(machine, topology), lambda: _shared_check(machine, catalog, topology))


def _shared_check(machine: Machine, catalog: Catalog, topology: Topology | None) -> list[Finding]:
    """Identical servers (the same configuration and its own topology) share one check; only the id differs."""
    if board_of(machine, catalog) is None or topology is not derive_topology(machine, catalog):
        return _check_machine(machine, catalog, topology)  # its message names the machine, or a topology of its own
    findings = _BY_CONFIGURATION.get(
        catalog, configuration_key(machine), lambda: _check_machine(machine, catalog, topology)
    )
    if all(f.machine == machine.id for f in findings):
        return findings
    return [f.model_copy(update={"machine": machine.id}) for f in findings]


def _check_machine(machine: Machine, catalog: Catalog, topology: Topology | None) -> list[Finding]:
    findings: list[Finding] = []

    def add(
        severity: Severity, code: str, message: str, *, slots: list[str] | None = None, parts: list[str] | None = None
    ) -> None:
        findings.append(
            Finding(
                severity=severity, code=code, message=message, machine=machine.id, slots=slots or [], parts=parts or []
            )
        )

    board = board_of(machine, catalog)
    if board is None:
        add("error", "no-board", f"{machine.name} has no board or server yet.")
        return findings
    chassis = chassis_of(machine, catalog)
    gpus = [(c, g) for c in machine.cards if (g := catalog.get_as(c.part, Gpu)) is not None]
    if topology is not None:
        for problem in topology.problems:
            add("error", "layout", problem)
    check_cpu(machine, board, catalog, add)
    _slot_kinds(machine, board, catalog, add)
    _slot_cover(machine, board, catalog, add)
    _lane_sharing(machine, board, add)
    _case(machine, chassis, catalog, add)
    _risers(board, gpus, add)
    _bridges(machine, board, catalog, add)
    _memory(machine, board, catalog, gpus, add)
    if server_of(machine, catalog) is None:
        _power(machine, catalog, gpus, add)
        _passive_cooling(gpus, add)
    if topology is not None:
        check_nccl(machine, topology, add)
        _link_widths(topology, add)
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


# The ``add(severity, code, message, slots=..., parts=...)`` callback each rule reports through.
Add = Callable[..., None]


def _link_widths(topology: Topology, add: Add) -> None:
    """Cards that negotiate a slower link than they support: one finding per model and link, naming every slot."""
    slowed: dict[tuple[str, int, int], list[TopologyDevice]] = {}
    for dev in topology.devices:
        if dev.function == 0 and (dev.lanes < dev.card_lanes or dev.gen < dev.card_gen):
            slowed.setdefault((dev.part, dev.gen, dev.lanes), []).append(dev)
    for devs in slowed.values():
        first = devs[0]
        labels = [d.slot_label for d in devs]
        where = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        verb = "runs" if len(devs) == 1 else f"({len(devs)} cards) run"
        add(
            "info",
            "link-width",
            f"{first.model} in {where} {verb} at PCIe {first.gen}.0 x{first.lanes} ({first.gbs:.2f} GB/s per "
            f"direction) instead of {'its' if len(devs) == 1 else 'their'} {first.card_gen}.0 x{first.card_lanes}.",
            slots=[d.slot for d in devs],
            parts=[first.part],
        )


def _passive_cooling(gpus: list[tuple[PlacedCard, Gpu]], add: Add) -> None:
    """Passively cooled data-centre cards rely on a server's front-to-back airflow (their
    product briefs specify the airflow they need); a tower's case fans do not provide it."""
    passive = [(c, g) for c, g in gpus if g.cooling == "passive" and g.form_factor == "pcie"]
    if passive:
        model = passive[0][1].model
        add(
            "warning",
            "passive-cooling",
            f"{model} is passively cooled: it needs a server's forced airflow. In a tower or open frame, "
            "fit a blower shroud per card or it throttles and overheats.",
            slots=[c.slot for c, _g in passive],
            parts=sorted({g.id for _c, g in passive}),
        )


def _slot_kinds(machine: Machine, board: Board, catalog: Catalog, add: Add) -> None:
    """A card in a slot of the wrong kind (a plan file can hold one; the app's edits refuse it)."""
    for card in machine.cards:
        slot, part = board.slot(card.slot), catalog.get(card.part)
        if slot is None or part is None:
            continue
        problem = card_slot_problem(part, slot)
        if problem is not None:
            add("error", "slot-kind", f"{problem}; move it to a slot that takes it.", slots=[slot.id], parts=[part.id])


def _card_width(part: object) -> int | None:
    if isinstance(part, Gpu):
        return part.slot_width
    if isinstance(part, Nic):
        return part.slot_width
    return 1


def _bay_widths(machine: Machine, board: Board, catalog: Catalog, bays: dict[str, int], add: Add) -> None:
    """A server's GPU bays are walled off from each other: a card fits its bay's width or not at all."""
    for card in machine.cards:
        bay_width = bays.get(card.slot)
        if bay_width is None:
            continue
        label = board.slot_label(card.slot)
        width = _card_width(catalog.get(card.part))
        if width is None:
            add(
                "info",
                "bay-width-unknown",
                f"The catalog does not give {card.part}'s width, so whether it fits {label} "
                f"(cards up to {bay_width} slots wide) is not checked.",
                slots=[card.slot],
                parts=[card.part],
            )
        elif width > bay_width:
            add(
                "error",
                "bay-too-narrow",
                f"{card.part} is {width} slots wide, but {label} takes cards up to {bay_width} slots wide; "
                f"choose a card of at most {bay_width} slots (a blower or passive server card).",
                slots=[card.slot],
                parts=[card.part],
            )


def _slot_cover(machine: Machine, board: Board, catalog: Catalog, add: Add) -> None:
    positioned = {s.id: s.position for s in board.slots if s.kind == "pcie" and s.position is not None}
    bays = {s.id: s.bay_width_slots for s in board.slots if s.bay_width_slots is not None}
    _bay_widths(machine, board, catalog, bays, add)
    wide = [c for c in machine.cards if c.slot not in bays and (_card_width(catalog.get(c.part)) or 1) > 1]
    if wide and not positioned:
        add(
            "info",
            "spacing-unknown",
            f"The catalog does not give {board.model}'s slot spacing, so whether wide cards block "
            "their neighbours is not checked.",
        )
        return
    for card in machine.cards:
        width = _card_width(catalog.get(card.part))
        start = positioned.get(card.slot)
        if width is None or start is None or width < 2:
            continue
        covered = [
            s for s in board.slots if s.id in positioned and start < (positioned[s.id] or 0) <= start + width - 1
        ]
        for slot in covered:
            other = machine.card_in(slot.id)
            label = board.slot_label(card.slot)
            if other is not None:
                add(
                    "error",
                    "slot-covered",
                    f"{card.part} in {label} is {width} slots wide and covers {slot.label}, "
                    f"where {other.part} is placed.",
                    slots=[card.slot, slot.id],
                    parts=[card.part, other.part],
                )
            else:
                add(
                    "info",
                    "slot-blocked",
                    f"{slot.label} is unusable: {card.part} in {label} is {width} slots wide and covers it.",
                    slots=[slot.id, card.slot],
                )


def _lane_sharing(machine: Machine, board: Board, add: Add) -> None:
    """Slots another slot takes lanes from (board manuals: "M.2_1 shares bandwidth with PCIEX16_2")."""
    for share in board.lane_sharing:
        if machine.card_in(share.when_used) is None:
            continue
        taker = board.slot_label(share.when_used)
        label = board.slot_label(share.slot)
        victim = machine.card_in(share.slot)
        if share.lanes_left is None:
            if victim is not None:
                add(
                    "error",
                    "lanes-shared",
                    f"{taker} in use disables {label}, where {victim.part} is placed.",
                    slots=[share.when_used, share.slot],
                    parts=[victim.part],
                )
            else:
                add("info", "lanes-shared", f"{taker} in use disables {label}.", slots=[share.when_used, share.slot])
        elif victim is not None:
            add(
                "warning",
                "lanes-shared",
                f"{taker} in use leaves {label} x{share.lanes_left}, so {victim.part} gets at most "
                f"{share.lanes_left} lanes.",
                slots=[share.when_used, share.slot],
                parts=[victim.part],
            )


def _case(machine: Machine, chassis: Chassis | None, catalog: Catalog, add: Add) -> None:
    if chassis is None:
        return
    for card in machine.cards:
        part = catalog.get(card.part)
        length = getattr(part, "length_mm", None)
        if chassis.max_gpu_length_mm is None or length is None:
            continue
        if length > chassis.max_gpu_length_mm:
            add(
                "error",
                "too-long",
                f"{card.part} is {length:g} mm long; {chassis.model} takes cards up to "
                f"{chassis.max_gpu_length_mm:g} mm.",
                slots=[card.slot],
                parts=[card.part, chassis.id],
            )
    widths = [_card_width(catalog.get(c.part)) for c in machine.cards if not _is_m2(c.part, catalog)]
    if chassis.expansion_slots is not None and None not in widths:
        used = sum(w or 1 for w in widths)
        if used > chassis.expansion_slots:
            add(
                "error",
                "too-many-slots",
                f"The cards need {used} expansion-slot openings; {chassis.model} has {chassis.expansion_slots}.",
                parts=[chassis.id],
            )


def _is_m2(part_id: str, catalog: Catalog) -> bool:
    part = catalog.get(part_id)
    return isinstance(part, Drive) and part.form_factor.startswith("m.2")


def _risers(board: Board, gpus: Sequence[tuple[PlacedCard, Gpu]], add: Add) -> None:
    # 001_1caa315e8577a206.txt: at most two GPUs on consumer hardware; more need risers.
    if board.platform == "consumer" and len(gpus) > 2:
        add(
            "warning",
            "risers",
            f"{len(gpus)} GPUs on a consumer board ({board.model}): beyond two, expect riser cables "
            "and much less bandwidth per card.",
        )


def _bridges(machine: Machine, board: Board, catalog: Catalog, add: Add) -> None:
    for link in machine.bridges:
        for problem in bridge_problems(link, machine, board, catalog):
            add(problem.severity, problem.code, problem.message, slots=problem.slots, parts=problem.parts)


def _memory(machine: Machine, board: Board, catalog: Catalog, gpus: Sequence[tuple[PlacedCard, Gpu]], add: Add) -> None:
    ram_gb = 0.0
    dimms = 0
    for item in machine.memory:
        module = catalog.get_as(item.part, Memory)
        if module is not None:
            ram_gb += module.capacity_gb * item.count
            dimms += item.count
    vram_gb = sum(g.vram_gb * g.gpus_per_card for _, g in gpus)
    # 001_1caa315e8577a206.txt: buy at the very least more CPU RAM than VRAM.
    if gpus and not dimms:
        # No memory drawn is not "0 GB": a plan still being drawn, or a system sold with its own.
        add(
            "info",
            "ram-below-vram",
            f"No system RAM in the plan, so RAM against VRAM is not checked; the machine needs at least "
            f"{vram_gb:g} GB (as much as its VRAM).",
        )
    elif gpus and ram_gb < vram_gb:
        add(
            "warning",
            "ram-below-vram",
            f"System RAM is {ram_gb:g} GB, below the {vram_gb:g} GB of VRAM; buy at least as much RAM as VRAM.",
        )
    if board.dimm_slots is not None and dimms > board.dimm_slots:
        add("error", "too-many-dimms", f"{dimms} DIMMs in a board with {board.dimm_slots} DIMM slots.")
    # 001_1caa315e8577a206.txt: more or fewer than two sticks cut a consumer CPU's bandwidth.
    if dimms and board.best_dimm_counts and dimms not in board.best_dimm_counts:
        best = " or ".join(str(n) for n in board.best_dimm_counts)
        add(
            "warning",
            "dimm-count",
            f"{dimms} DIMM{'s' if dimms != 1 else ''} on {board.model}; it runs memory fastest with {best}.",
        )


def _power(machine: Machine, catalog: Catalog, gpus: Sequence[tuple[PlacedCard, Gpu]], add: Add) -> None:
    power = machine_power(machine, catalog)
    budget = power.transient_peak_w
    gpu_w = sum(line.peak_w for line in power.lines if isinstance(catalog.get(line.part or ""), Gpu))
    cpu_w = sum(line.total_w for line in power.lines if isinstance(catalog.get(line.part or ""), Cpu))
    basis = (
        f"GPUs {gpu_w:,.0f} W at transient peak, CPU {cpu_w:,.0f} W, "
        f"{budget - gpu_w - cpu_w:,.0f} W for memory, drives, cards, board and fans"
    )
    unmeasured = sorted({gpu.id for _, gpu in gpus if gpu.transient_peak_w is None})
    if unmeasured:
        basis += f"; no measured peak for {', '.join(unmeasured)}, board power used"
    psus = psus_of(machine, catalog)
    if not psus:
        if gpus:
            add("warning", "no-psu", f"No PSU chosen; this build needs about {budget:,.0f} W ({basis}).")
        return
    capacity = sum(p.watts * n for p, n in psus)
    if budget > capacity:
        add(
            "error",
            "psu-too-small",
            f"The PSU gives {capacity:,.0f} W but the build can draw {budget:,.0f} W ({basis}).",
            parts=[p.id for p, _ in psus],
        )
    needed: Counter[str] = Counter()
    for _, gpu in gpus:
        for connector in gpu.power_connectors:
            needed[connector] += 1
    have_8pin = sum((p.pcie_8pin or 0) * n for p, n in psus)
    have_hp = sum((p.pcie_12v_2x6 or 0) * n for p, n in psus)
    unknown = [p for p, _ in psus if p.pcie_8pin is None or p.pcie_12v_2x6 is None]
    need_8pin = needed[_PCIE_8PIN]
    need_hp = sum(needed[c] for c in _HIGH_POWER)
    if unknown and (need_8pin or need_hp):
        add(
            "info",
            "psu-cables-unknown",
            f"The cards need {need_8pin} PCIe 8-pin and {need_hp} 12V-2x6 cables; the catalog does not list all "
            f"of {unknown[0].model}'s cables, so check them.",
            parts=[unknown[0].id],
        )
    elif need_8pin > have_8pin or need_hp > have_hp:
        add(
            "error",
            "psu-cables",
            f"The cards need {need_8pin} PCIe 8-pin and {need_hp} 12V-2x6 cables; "
            f"the PSU has {have_8pin} and {have_hp}.",
            parts=[p.id for p, _ in psus],
        )
    # Breakers and circuits care about sustained load, not millisecond spikes.
    wall_w = power.wall_max_w
    for volts, amps in WALL_CIRCUITS_V_A:
        limit = volts * amps * CONTINUOUS_FRACTION
        if wall_w > limit:
            add(
                "warning" if volts < 200 else "error",
                "wall-circuit",
                f"At full load the build draws about {wall_w:,.0f} W from the wall, more than a {volts:g} V "
                f"{amps:g} A circuit carries continuously ({limit:,.0f} W at 80%).",
            )
