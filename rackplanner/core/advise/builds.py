"""Complete machines built from catalog parts: a GPU type and count on a server or a board.

Each candidate is a plan ``Machine`` as a user would build it by hand: GPUs in the slots
the board offers (wide cards leave the next opening free where the board's slot positions
are known), the cheapest CPU of the board's socket, enough DIMMs for at least as much RAM
as VRAM, a case that takes the board, and for a workstation the cheapest PSU the machine's
power calls for. Whether the result is sound is not decided here: the same fit, topology
and power rules as for any plan judge it (``search.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Gpu, Memory, Psu, Server
from rackplanner.core.catalog.parts.boards import Slot
from rackplanner.core.catalog.slot_rules import sxm_generation_of_bay, sxm_generation_of_gpu
from rackplanner.core.plan.model import Machine, PartCount, PlacedCard

# GPU counts tried on each platform (up to what it holds).
GPU_COUNTS = (1, 2, 3, 4, 6, 8, 10)
# Board form factors a user can put in a tower or an open frame.
_DESKTOP_FORMS = ("ATX", "E-ATX", "EEB", "Micro-ATX", "Mini-ITX")


@dataclass(frozen=True)
class Candidate:
    """One complete machine to judge."""

    machine: Machine
    gpu: Gpu
    gpu_count: int
    platform: str  # "server <id>" or "board <id>"


def short_name(model: str) -> str:
    """A part's model without its parenthetical description: "G292-Z20 (2U, ...)" -> "G292-Z20"."""
    return re.sub(r"\s*\(.*\)", "", model).strip() or model


def _price(catalog: Catalog, part_id: str, allow_used: bool) -> float | None:
    quote = catalog.price_of(part_id)
    if quote is None or (quote.kind == "used" and not allow_used):
        return None
    return quote.price_usd


P = TypeVar("P", Cpu, Memory, Psu, Chassis)


def cheapest(catalog: Catalog, parts: list[P], allow_used: bool) -> P | None:
    """The part with the lowest price; parts without one come last, in catalog order."""
    priced = [(p, _price(catalog, p.id, allow_used)) for p in parts]
    ordered = sorted(priced, key=lambda pair: (pair[1] is None, pair[1] or 0.0))
    return ordered[0][0] if ordered else None


def _cpu_for(catalog: Catalog, board: Board, allow_used: bool) -> Cpu | None:
    fits = [
        c
        for c in catalog.of_kind(Cpu)
        if c.socket == board.cpu_socket
        and (not board.cpu_families or c.family in board.cpu_families)
        and c.max_sockets >= board.sockets
    ]
    return cheapest(catalog, fits, allow_used)


def _memory_for(catalog: Catalog, board: Board, cpu: Cpu | None, vram_gb: float, allow_used: bool) -> PartCount | None:
    """DIMMs of the board's type giving at least as much RAM as VRAM (where the slots allow)."""
    module = "udimm" if board.platform == "consumer" else "rdimm"
    kinds = [m for m in catalog.of_kind(Memory) if m.mem_type == board.mem_type and m.module_type == module]
    if not kinds:
        return None
    # A board whose DIMM slots the catalog lacks is given one DIMM per CPU memory channel.
    slots = board.dimm_slots or (cpu.mem_channels * board.sockets if cpu else 2 * board.sockets)
    # At least one DIMM per memory channel the board wires (its bandwidth, and a balanced population).
    channels = board.memory_channels_per_socket or (cpu.mem_channels if cpu else 2)
    least = min(channels * board.sockets, slots)
    counts = sorted(set(board.best_dimm_counts or [])) or [
        n for n in (1, 2, 4, 6, 8, 12, 16, 24, 32) if n <= slots and n % board.sockets == 0
    ]
    counts = [n for n in counts if n >= least] or counts[-1:]
    best: tuple[bool, float, int, str] | None = None
    for part in kinds:
        price = _price(catalog, part.id, allow_used)
        enough = [n for n in counts if n * part.capacity_gb >= vram_gb]
        count = enough[0] if enough else counts[-1]
        # Enough RAM first, then the lowest price.
        key = (not enough, float("inf") if price is None else price * count, count, part.id)
        if best is None or key < best:
            best = key
    assert best is not None
    return PartCount(part=best[3], count=best[2])


def _chassis_for(catalog: Catalog, board: Board, gpu: Gpu, allow_used: bool) -> Chassis | None:
    fits = [
        c
        for c in catalog.of_kind(Chassis)
        if board.form_factor in c.board_form_factors
        and (c.max_gpu_length_mm is None or gpu.length_mm is None or gpu.length_mm <= c.max_gpu_length_mm)
    ]
    return cheapest(catalog, fits, allow_used)


def _server_gpu_bays(board: Board) -> list[Slot]:
    """A server's PCIe GPU bays (its other x16 slots are for NICs and storage)."""
    return [s for s in board.slots if s.kind == "pcie" and (s.bay_width_slots or "gpu" in f"{s.id} {s.label}".lower())]


def _gpu_slots(board: Board, gpu: Gpu, count: int, *, server: bool = False) -> list[Slot] | None:
    """``count`` slots for the GPU: SXM/OAM bays for module GPUs, else full-length PCIe
    slots, widest first, skipping openings a card already covers where positions are known."""
    if gpu.form_factor in ("sxm", "oam"):
        # Only where the module's generation is known to be the bay's (an advised build
        # never rests on a fit the catalog cannot confirm).
        module = sxm_generation_of_gpu(gpu) if gpu.form_factor == "sxm" else None
        bays = [s for s in board.slots if s.kind == "sxm" and module and sxm_generation_of_bay(s) == module]
        return bays[:count] if len(bays) >= count else None
    pool = _server_gpu_bays(board) if server else board.slots
    x16 = [s for s in pool if s.kind == "pcie" and s.physical_lanes >= 16]
    x16.sort(key=lambda s: (s.position is None, s.position or 0, -(s.electrical_lanes or 0)))
    chosen: list[Slot] = []
    covered_until = -1
    for slot in x16:
        if slot.position is not None:
            if slot.position <= covered_until:
                continue
            covered_until = slot.position + (gpu.slot_width or 2) - 1
        chosen.append(slot)
        if len(chosen) == count:
            return chosen
    return None


def _machine(
    catalog: Catalog,
    name: str,
    on: Board,
    cpu: Cpu,
    gpu: Gpu,
    slots: list[Slot],
    allow_used: bool,
    **platform: str | None,
) -> Machine:
    """``gpu`` in ``slots`` of board ``on`` with its CPUs and memory; ``platform`` names the
    server, or the board and case."""
    memory = _memory_for(catalog, on, cpu, gpu.vram_gb * len(slots), allow_used)
    return Machine(
        id="advised",
        name=name,
        cpu=cpu.id,
        cpu_count=on.sockets,
        memory=[memory] if memory else [],
        cards=[PlacedCard(slot=s.id, part=gpu.id) for s in slots],
        **platform,
    )


def server_builds(catalog: Catalog, gpu: Gpu, allow_used: bool) -> Iterator[Candidate]:
    """``gpu`` at each count in every catalog server that takes it."""
    for server in catalog.of_kind(Server):
        board = catalog.get_as(server.board, Board)
        if board is None:
            continue
        cpu = _cpu_for(catalog, board, allow_used)
        for count in GPU_COUNTS:
            if server.max_gpus is not None and count > server.max_gpus:
                break
            slots = _gpu_slots(board, gpu, count, server=True)
            if slots is None or cpu is None:
                break
            name = f"{count}x {gpu.model} in {short_name(server.model)}"
            machine = _machine(catalog, name, board, cpu, gpu, slots, allow_used, server=server.id)
            yield Candidate(machine, gpu, count, f"server {server.id}")


def workstation_builds(catalog: Catalog, gpu: Gpu, allow_used: bool) -> Iterator[Candidate]:
    """``gpu`` at each count on every stand-alone board (a case and PSU chosen for it)."""
    if gpu.form_factor != "pcie":
        return
    for board in catalog.of_kind(Board):
        if board.form_factor not in _DESKTOP_FORMS:
            continue
        cpu = _cpu_for(catalog, board, allow_used)
        chassis = _chassis_for(catalog, board, gpu, allow_used)
        if cpu is None:
            continue
        for count in GPU_COUNTS:
            slots = _gpu_slots(board, gpu, count)
            if slots is None:
                break
            name = f"{count}x {gpu.model} on {short_name(board.model)}"
            machine = _machine(
                catalog,
                name,
                board,
                cpu,
                gpu,
                slots,
                allow_used,
                board=board.id,
                chassis=chassis.id if chassis else None,
            )
            yield Candidate(machine, gpu, count, f"board {board.id}")


def with_psu(catalog: Catalog, machine: Machine, recommended_w: float | None, allow_used: bool) -> Machine | None:
    """A workstation with the cheapest ATX supply of at least ``recommended_w`` (two if one is too small)."""
    if recommended_w is None:
        return machine
    atx = [p for p in catalog.of_kind(Psu) if p.form == "atx"]
    for count in (1, 2):
        big_enough = [p for p in atx if p.watts * count >= recommended_w]
        psu = cheapest(catalog, big_enough, allow_used)
        if psu is not None:
            return machine.model_copy(update={"psus": [PartCount(part=psu.id, count=count)]})
    return None
