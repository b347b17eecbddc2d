"""A machine's topology from its board and cards: the devices, their pairs' paths, uplinks, ring and notes (cached)."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Cpu,
)
from rackplanner.core.machine.bridges import bridge_rejected
from rackplanner.core.machine.cpu_fit import dead_slots
from rackplanner.core.machine.topology.bandwidth import inter_socket_gbs, switch_uplinks
from rackplanner.core.machine.topology.board_info import board_info_of
from rackplanner.core.machine.topology.devices import card_devices, nvlink_pairs
from rackplanner.core.machine.topology.model import (
    PATH_RANK,
    PairPath,
    PathCode,
    Topology,
)
from rackplanner.core.machine.topology.nccl import p2p_level
from rackplanner.core.machine.topology.paths import pair_path
from rackplanner.core.machine.topology.ring import ring_allreduce, ring_order
from rackplanner.core.machine.topology.text import explain
from rackplanner.core.plan.cache import ContentCache, LayeredCache, configuration_key, content_key, identity_key
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of

# --- building ------------------------------------------------------------------------


# Results by machine (object, then content), so an edit to one machine never recomputes another,
# and by configuration alone (no id, name or notes), so a row of identical servers derives once.
_CACHE: LayeredCache[Topology] = LayeredCache()
_BY_CONFIGURATION: ContentCache[Topology] = ContentCache()


def derive_topology(machine: Machine, catalog: Catalog) -> Topology:
    """Everything the block diagram and ``topo`` show, for one machine (cached by content)."""
    return _CACHE.get(
        catalog, identity_key(machine), lambda: content_key(machine), lambda: _shared_derive(machine, catalog)
    )


def _shared_derive(machine: Machine, catalog: Catalog) -> Topology:
    if board_of(machine, catalog) is None:
        return _derive(machine, catalog)  # its message names the machine
    topo = _BY_CONFIGURATION.get(catalog, configuration_key(machine), lambda: _derive(machine, catalog))
    return topo if topo.machine == machine.id else topo.model_copy(update={"machine": machine.id})


def _derive(machine: Machine, catalog: Catalog) -> Topology:
    board = board_of(machine, catalog)
    if board is None:
        return Topology(
            machine=machine.id,
            board=None,
            sockets=0,
            inter_socket_link=None,
            inter_socket_gbs=None,
            devices=[],
            gpus=[],
            nics=[],
            matrix={},
            pairs=[],
            uplinks=[],
            nearest_nic={},
            ring=None,
            notes=[],
            problems=[f"{machine.name} has no board: choose a board or server"],
        )
    info = board_info_of(board, catalog)
    problems = list(info.problems)
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    dead = dead_slots(machine, board)
    devices = card_devices(machine, info, catalog, cpu, problems, dead)
    gpus = [d for d in devices if d.kind == "gpu"]
    nics = [d for d in devices if d.kind == "nic"]
    rejected = {link: why for link in machine.bridges if (why := bridge_rejected(link, machine, board, catalog))}
    nv_links = nvlink_pairs(machine, info, catalog, gpus, rejected)
    amd_host = cpu is not None and cpu.vendor.upper() == "AMD"
    level, level_source = p2p_level(machine.host, amd_host=amd_host, gpu_count=len(gpus))
    parts = {d.name: catalog.get(d.part) for d in devices}
    pairs: list[PairPath] = []
    ordered = [*gpus, *nics]
    matrix: dict[str, dict[str, PathCode]] = {d.name: {} for d in ordered}
    for i, a in enumerate(ordered):
        matrix[a.name][a.name] = "X"
        for b in ordered[i + 1 :]:
            pair = pair_path(
                a, b, nv_links, parts, host=machine.host, amd_host=amd_host, gpu_count=len(gpus), info=info
            )
            pairs.append(pair)
            matrix[a.name][b.name] = matrix[b.name][a.name] = pair.code
    uplinks = switch_uplinks(board, devices)
    nearest: dict[str, tuple[str, PathCode] | None] = {}
    for gpu in gpus:
        row = matrix[gpu.name]
        options = [(PATH_RANK[row[nic.name]], nic.name) for nic in nics]
        best = min(options)[1] if options else None
        nearest[gpu.name] = (best, row[best]) if best is not None else None
    topo = Topology(
        machine=machine.id,
        board=board.id,
        sockets=board.sockets,
        inter_socket_link=board.inter_socket_link or (cpu.inter_socket_link if cpu else None),
        inter_socket_gbs=inter_socket_gbs(board, cpu),
        devices=devices,
        gpus=[g.name for g in gpus],
        nics=[n.name for n in nics],
        matrix=matrix,
        pairs=pairs,
        uplinks=uplinks,
        nearest_nic=nearest,
        ring=None,
        notes=[],
        problems=problems,
        p2p_level=level,
        p2p_level_source=level_source,
        dead_slots=sorted(dead),
        rejected_bridges=[f"{link.part} between {' and '.join(link.slots)}: {why}" for link, why in rejected.items()],
    )
    if len(gpus) >= 2:
        topo.ring = ring_allreduce(topo, ring_order(topo))
    topo.notes = explain(topo, machine, board, catalog)
    return topo
