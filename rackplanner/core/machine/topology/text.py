"""A topology in words: notes with the numbers, and the ``nvidia-smi topo -m`` matrix as text."""

from __future__ import annotations

from collections.abc import Sequence

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Board,
    Gpu,
)
from rackplanner.core.machine.topology.model import PATH_RANK, Topology
from rackplanner.core.plan.model import Machine

LEGEND = """Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks"""


# --- words ---------------------------------------------------------------------------


def _span(names: Sequence[str]) -> str:
    """GPU0, GPU1, GPU2, GPU5 -> 'GPUs 0-2 and 5'."""
    numbers = sorted(int(n.removeprefix("GPU")) for n in names)
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}-{prev}" if prev > start else str(start))
        if n is not None:
            start = prev = n
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"GPU {joined}" if len(numbers) == 1 else f"GPUs {joined}"


def explain(topo: Topology, machine: Machine, board: Board, catalog: Catalog) -> list[str]:
    """The notable facts of a topology, one plain sentence each, with the numbers."""
    notes: list[str] = []
    gpus = [topo.device(g) for g in topo.gpus]
    for dev in topo.devices:
        if dev.lanes < dev.card_lanes or dev.gen < dev.card_gen:
            notes.append(
                f"{dev.name} ({dev.model}, PCIe {dev.card_gen}.0 x{dev.card_lanes}) runs at PCIe "
                f"{dev.gen}.0 x{dev.lanes} in {dev.slot_label}: {dev.gbs:.2f} GB/s per direction."
            )
    for group in board.bifurcation_groups:
        used = [s for s in group.slots if machine.card_in(s)]
        if len(used) > 1:
            labels = " and ".join(board.slot_label(s) for s in used)
            notes.append(f"{labels} share {group.lanes} lanes: with both filled each gets x{group.split_lanes}.")
    nv_pairs = [p for p in topo.pairs if p.code.startswith("NV")]
    nv_joined = {frozenset((p.a, p.b)) for p in nv_pairs}
    by_socket: dict[int, list[str]] = {}
    for g in gpus:
        by_socket.setdefault(g.socket, []).append(g.name)
    if len(by_socket) > 1:
        spans = [_span(names) for _, names in sorted(by_socket.items())]
        link = topo.inter_socket_link or "inter-socket link"
        if topo.inter_socket_gbs is None:
            notes.append(
                f"The {link}'s bandwidth is not in the catalog for this CPU and board, so traffic between "
                "sockets is not limited by it in the estimates (unknown, so not checked)."
            )
        across = [frozenset((a.name, b.name)) for a in gpus for b in gpus if a.socket < b.socket]
        if not any(pair in nv_joined for pair in across):
            notes.append(f"{' and '.join(spans)} reach each other only across the {link} (SYS).")
        elif not all(pair in nv_joined for pair in across):
            notes.append(
                f"{' and '.join(spans)} sit on different sockets: pairs between them without NVLink "
                f"cross the {link} (SYS)."
            )
    elif len(gpus) > 1:
        roots = {g.root_complex for g in gpus}
        if len(roots) == 1:
            notes.append(f"All {len(gpus)} GPUs hang off one root complex: no pair crosses a socket.")
        else:
            where = "root complexes" if board.host_bridges_known else "x16 links"
            between = " (NODE between them)" if board.host_bridges_known else ""
            notes.append(f"The {len(gpus)} GPUs spread over {len(roots)} {where} of one socket{between}.")
    unsure = [f"{p.a}-{p.b}" for p in topo.pairs if p.host_bridge_unknown]
    if unsure:
        notes.append(
            f"Which slots of {board.model} share a PCIe host bridge is not known, so {', '.join(unsure[:6])}"
            f"{' and others' if len(unsure) > 6 else ''} may print PHB on the machine rather than NODE "
            "(unknown, so not checked)."
        )
    by_switch: dict[str, list[str]] = {}
    for g in gpus:
        if len(g.chain) > 1:
            by_switch.setdefault(g.chain[0], []).append(g.name)
    for switch, names in by_switch.items():
        if len(names) > 1 and not all(frozenset((a, b)) in nv_joined for a in names for b in names if a < b):
            notes.append(f"{_span(names)} share switch {switch} (PIX): P2P stays below the CPU.")
    for uplink in topo.uplinks:
        if uplink.device_lanes > uplink.upstream_lanes:
            notes.append(
                f"{uplink.switch} carries {uplink.device_lanes} device lanes on a x{uplink.upstream_lanes} "
                f"Gen{uplink.upstream_gen} uplink ({uplink.upstream_gbs:.2f} GB/s): "
                f"{uplink.ratio:g}:1 oversubscribed."
            )
    gpu_pairs = len(gpus) * (len(gpus) - 1) // 2
    if nv_pairs and len(nv_pairs) == gpu_pairs and len({(p.code, p.gbs) for p in nv_pairs}) == 1 and len(gpus) > 2:
        first = nv_pairs[0]
        via = " through NVSwitch" if board.nvswitch_gbs_per_gpu else ""
        notes.append(
            f"All {len(gpus)} GPUs reach each other over NVLink{via} ({first.code}, {first.gbs:g} GB/s per "
            "direction between any pair)."
        )
    elif len(nv_pairs) <= 3:
        for pair in nv_pairs:
            notes.append(f"{pair.a} and {pair.b} are joined by NVLink ({pair.code}, {pair.gbs:g} GB/s per direction).")
    else:
        by_code: dict[tuple[str, float | None], list[str]] = {}
        for pair in nv_pairs:
            by_code.setdefault((pair.code, pair.gbs), []).append(f"{pair.a}-{pair.b}")
        for (code, gbs), names in sorted(by_code.items(), key=lambda item: item[0][0], reverse=True):
            notes.append(f"NVLink {code} ({gbs:g} GB/s per direction) joins {', '.join(names)}.")
        fallback: dict[str, list[str]] = {}
        for i, a in enumerate(gpus):
            for b in gpus[i + 1 :]:
                if frozenset((a.name, b.name)) not in nv_joined:
                    fallback.setdefault(topo.matrix[a.name][b.name], []).append(f"{a.name}-{b.name}")
        for code, names in fallback.items():
            notes.append(f"{', '.join(names)} have no NVLink and fall back to PCIe ({code}).")
    geforce = [g for g in gpus if (p := catalog.get_as(g.part, Gpu)) and not p.p2p_pcie]
    if len(gpus) > 1 and geforce:
        without_nv = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus and not p.code.startswith("NV")]
        if without_nv:
            notes.append(
                f"{geforce[0].model} does not enable PCIe P2P: GPU pairs without an NVLink bridge "
                "exchange data through host memory."
            )
    for gpu_name, nearest in topo.nearest_nic.items():
        if nearest is not None and PATH_RANK.get(nearest[1], 9) > PATH_RANK["PXB"]:
            notes.append(f"{gpu_name}'s nearest NIC, {nearest[0]}, is {nearest[1]}: no GPUDirect RDMA under NCCL.")
            break
    if topo.ring is not None and topo.ring.bottleneck_gbs is not None:
        order = "" if topo.ring.gpus == topo.gpus else f" (in the order {', '.join(topo.ring.gpus)})"
        notes.append(
            f"A ring all-reduce over all {len(gpus)} GPUs{order} is limited to {topo.ring.bottleneck_gbs:.2f} GB/s "
            f"per direction at hop {topo.ring.bottleneck_hop}."
        )
    return notes


def format_topo_matrix(topo: Topology) -> str:
    """The matrix in ``nvidia-smi topo -m`` layout (tab-separated), with both legends."""
    names = [*topo.gpus, *topo.nics]
    header = "\t" + "\t".join(names) + ("\tCPU Affinity\tNUMA Affinity" if topo.gpus else "")
    lines = [header]
    for name in names:
        row = [name, *(topo.matrix[name][other] for other in names)]
        dev = topo.device(name)
        if dev.kind == "gpu":
            row += [dev.cpu_affinity, str(dev.numa_node)]
        lines.append("\t".join(f" {cell}" if i else cell for i, cell in enumerate(row)))
    lines += ["", LEGEND]
    if topo.nics:
        lines += ["", "NIC Legend:", ""]
        for nic in topo.nics:
            dev = topo.device(nic)
            lines.append(f"  {nic}: {dev.os_name or dev.model}")
    return "\n".join(lines) + "\n"


def format_topology(topo: Topology) -> str:
    """Matrix, links, uplinks and notes as a person reads them in a terminal."""
    out = [f"Machine {topo.machine} on {topo.board}", ""]
    if topo.problems:
        out += [f"problem: {p}" for p in topo.problems] + [""]
    if topo.gpus or topo.nics:
        out.append(format_topo_matrix(topo))
    out.append("Links (per direction), in PCI bus order as CUDA and nvidia-smi number the devices, with each slot:")
    for dev in topo.devices:
        via = " -> ".join(dev.chain)
        out.append(
            f"  {dev.name:<6} {dev.model:<34} {dev.slot_label:<22} PCIe {dev.gen}.0 x{dev.lanes:<2} "
            f"{dev.gbs:6.2f} GB/s  via {via}  (socket {dev.socket})"
        )
    shown = [u for u in topo.uplinks if u.devices]
    if shown:
        out += ["", "Uplinks:"]
        for u in shown:
            out.append(
                f"  {u.switch:<8} x{u.upstream_lanes} Gen{u.upstream_gen} to {u.upstream} "
                f"{u.upstream_gbs:6.2f} GB/s, devices {u.device_lanes} lanes ({u.ratio:g}:1)"
            )
    out += ["", f"NCCL P2P level: {topo.p2p_level} ({topo.p2p_level_source})"]
    if topo.dead_slots:
        out.append(f"Switched off (CPU socket empty): {', '.join(topo.dead_slots)}")
    for bridge in topo.rejected_bridges:
        out.append(f"NVLink bridge left out: {bridge}")
    if topo.pairs:
        out += ["", "GPU pairs (P2P, what NCCL uses):"]
        for p in topo.pairs:
            if p.a in topo.gpus and p.b in topo.gpus:
                gbs = f"{p.gbs:.2f} GB/s" if p.gbs is not None else "unknown"
                code = f"{p.code}?" if p.host_bridge_unknown else p.code
                out.append(
                    f"  {p.a}-{p.b}  {code:<5} {'P2P' if p.p2p else 'no P2P':<6} {p.nccl:<24} {gbs}  {p.p2p_note}"
                )
                if p.advice:
                    out.append(f"      NCCL: {p.advice}")
    if topo.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in topo.notes]
    return "\n".join(out) + "\n"
