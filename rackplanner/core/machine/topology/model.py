"""What a machine's topology is made of: devices with their negotiated links, pair paths, uplinks, the ring."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from rackplanner.core.catalog.parts import (
    PCIE_GBS_PER_LANE,
)

PathCode = str  # "X", "NV4", "PIX", "PXB", "PHB", "NODE", "SYS"

# Closeness order of the PCIe path classes, nearest first.
PATH_RANK: dict[str, int] = {"X": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}


def pcie_gbs(gen: int, lanes: int) -> float:
    """Bandwidth of a PCIe link per direction, GB/s (PCIe 3.0 x16 = 15.76)."""
    return PCIE_GBS_PER_LANE[gen] * lanes


class TopologyDevice(BaseModel):
    """A card in a slot, with the link it negotiates and where it hangs."""

    name: str  # GPU0, NIC0, NVMe0 in enumeration order
    kind: Literal["gpu", "nic", "nvme"]
    slot: str
    slot_label: str
    part: str
    model: str
    gen: int
    lanes: int
    gbs: float
    slot_gen: int
    slot_lanes: int
    card_gen: int
    card_lanes: int
    # Bridges from the slot up to (and including) the root complex, nearest first.
    chain: list[str]
    root_complex: str
    socket: int
    numa_node: int
    cpu_affinity: str
    power_limit_w: float | None = None
    # Which of the card's devices this is: a dual-GPU card's second GPU, a NIC's second port.
    function: int = 0
    # The name the driver gives it, where the NIC legend shows one (mlx5_0, mlx4_0).
    os_name: str | None = None


class PairPath(BaseModel):
    a: str
    b: str
    code: PathCode
    p2p: bool
    p2p_note: str
    nccl: str
    gbs: float | None
    # The NCCL environment variable that would change what NCCL does here, and why.
    advice: str | None = None
    # The GPU NCCL relays P2P through over NVLink (NVB), when it does.
    via: str | None = None
    # NODE between two x16 links of a board whose host bridges are not known: PHB if the two
    # share one, which the catalog cannot say.
    host_bridge_unknown: bool = False


class SwitchUplink(BaseModel):
    switch: str
    part: str
    upstream: str
    upstream_lanes: int
    upstream_gen: int
    upstream_gbs: float
    device_lanes: int
    device_gbs: float
    devices: list[str]

    @property
    def ratio(self) -> float:
        """Downstream device lanes per upstream lane (8 GPUs x16 on x16 = 8.0)."""
        return self.device_lanes / self.upstream_lanes


class RingResult(BaseModel):
    gpus: list[str]
    hop_gbs: list[float | None]
    bottleneck_gbs: float | None
    bottleneck_hop: str | None


class Topology(BaseModel):
    machine: str
    board: str | None
    sockets: int
    inter_socket_link: str | None
    inter_socket_gbs: float | None
    devices: list[TopologyDevice]
    gpus: list[str]
    nics: list[str]
    matrix: dict[str, dict[str, PathCode]]
    pairs: list[PairPath]
    uplinks: list[SwitchUplink]
    nearest_nic: dict[str, tuple[str, PathCode] | None]
    ring: RingResult | None
    # NCCL's P2P level for this machine and where it comes from (default, vendor rule, env).
    p2p_level: str = "PXB"
    p2p_level_source: str = "NCCL's default"
    # Slots switched off because their CPU socket is empty; bridges left out and why.
    dead_slots: list[str] = []
    rejected_bridges: list[str] = []
    notes: list[str]
    problems: list[str]

    def device(self, name: str) -> TopologyDevice:
        return next(d for d in self.devices if d.name == name)

    def pair(self, a: str, b: str) -> PairPath:
        return next(p for p in self.pairs if {p.a, p.b} == {a, b})
