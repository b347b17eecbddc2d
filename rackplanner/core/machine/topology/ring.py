"""Ring all-reduce over a machine's GPUs: the ring order and its slowest hop."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rackplanner.core.machine.topology.bandwidth import Edge, lowest_shared, path_edges
from rackplanner.core.machine.topology.model import RingResult, Topology


def ring_order(topo: Topology) -> list[str]:
    """All GPUs in the order a ring over them would take.

    Where NVLink joins some pairs but not all (DGX-1's hybrid cube mesh), NCCL builds its
    rings on NVLink; this finds the NVLink-only ring whose narrowest hop is widest. Otherwise,
    and when no such ring exists, the GPUs' enumeration order.
    """
    names = list(topo.gpus)
    count = len(names)
    nv = {frozenset((p.a, p.b)): p.gbs or 0.0 for p in topo.pairs if p.code.startswith("NV")}
    if count < 3 or not nv or len(nv) == count * (count - 1) // 2:
        return names
    neighbours = {g: [h for h in names if frozenset((g, h)) in nv] for g in names}
    if any(len(peers) < 2 for peers in neighbours.values()):
        return names
    best: tuple[float, list[str]] | None = None
    steps = 0

    def walk(path: list[str], floor: float) -> None:
        nonlocal best, steps
        steps += 1
        if steps > _RING_SEARCH_STEPS or (best is not None and floor <= best[0]):
            return
        last = path[-1]
        if len(path) == count:
            closing = nv.get(frozenset((last, path[0])))
            if closing is not None and (best is None or min(floor, closing) > best[0]):
                best = (min(floor, closing), list(path))
            return
        for nxt in neighbours[last]:
            if nxt not in path:
                path.append(nxt)
                walk(path, min(floor, nv[frozenset((last, nxt))]))
                path.pop()

    walk([names[0]], float("inf"))
    return best[1] if best is not None else names


# Bound on the ring search, far above what an 8- or 16-GPU NVLink mesh needs.
_RING_SEARCH_STEPS = 50_000


def ring_allreduce(topo: Topology, gpus: Sequence[str]) -> RingResult:
    """Per-hop and bottleneck bandwidth of a ring over ``gpus`` in that order.

    Every hop sends at once, so hops that cross the same link in the same direction share
    it; a hop without P2P is staged through host memory and climbs to the root complex.
    """
    devices = {d.name: d for d in topo.devices}
    uplink_gbs = {u.switch: u.upstream_gbs for u in topo.uplinks}
    pair_of = {frozenset((p.a, p.b)): p for p in topo.pairs}
    hops: list[tuple[str, str, list[Edge] | None, float | None]] = []
    usage: Counter[Edge] = Counter()
    for i, name in enumerate(gpus):
        nxt = gpus[(i + 1) % len(gpus)]
        pair = pair_of[frozenset((name, nxt))]
        if pair.code.startswith("NV"):
            hops.append((name, nxt, None, pair.gbs))
            continue
        a, b = devices[name], devices[nxt]
        lowest = lowest_shared(a, b) if pair.p2p and pair.code in ("PIX", "PXB") else None
        edges = path_edges(a, lowest, "up") + path_edges(b, lowest, "down")
        if a.socket != b.socket and topo.inter_socket_gbs:
            edges.append((f"socket:{a.socket}->{b.socket}", "up"))
        usage.update(edges)
        hops.append((name, nxt, edges, None))
    hop_gbs: list[float | None] = []
    for _name, _nxt, hop_edges, fixed in hops:
        if hop_edges is None:
            hop_gbs.append(fixed)
            continue
        shares = []
        for edge in hop_edges:
            node = edge[0]
            if node.startswith("dev:"):
                full = devices[node[4:]].gbs
            elif node.startswith("socket:"):
                full = topo.inter_socket_gbs or 0.0
            else:
                full = uplink_gbs.get(node, 0.0)
            if full > 0:
                shares.append(full / usage[edge])
        hop_gbs.append(round(min(shares), 2) if shares else None)
    known = [(g, f"{h[0]}->{h[1]}") for g, h in zip(hop_gbs, hops, strict=True) if g is not None]
    worst = min(known) if known else None
    return RingResult(
        gpus=list(gpus),
        hop_gbs=hop_gbs,
        bottleneck_gbs=worst[0] if worst else None,
        bottleneck_hop=worst[1] if worst else None,
    )
