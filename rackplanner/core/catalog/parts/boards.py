"""Boards: sockets, root complexes, on-board switches, chipset, slots and how their lanes are shared."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from rackplanner.core.catalog.parts.base import Frozen, Generation, KebabId, Part, PcieLanes

# --- boards -------------------------------------------------------------------------


class RootComplex(Frozen):
    """A PCIe host bridge of one CPU socket (EPYC has several per socket)."""

    id: KebabId
    socket: int = Field(ge=0, le=16)
    lanes: int | None = Field(default=None, ge=1, le=1024)
    # NUMA node of this host bridge where a socket is split into several (EPYC NPS2/NPS4,
    # DGX A100); None means the socket's own node.
    numa_node: int | None = Field(default=None, ge=0, le=64)
    # The quarter of the CPU's I/O die this host bridge belongs to (EPYC quadrant, Xeon SNC
    # cluster), 0-3: which NUMA node it joins when the BIOS splits the socket (NPS2/NPS4,
    # SNC2/SNC4). None: its rank among the socket's host bridges decides.
    quadrant: int | None = Field(default=None, ge=0, le=3)
    # First PCI bus number behind this host bridge (lspci's [0000:40] is 0x40): devices are
    # numbered in bus order, as CUDA and nvidia-smi number them. None: catalog order.
    pci_bus: int | None = Field(default=None, ge=0, le=0xFFFF)


class SwitchOnBoard(Frozen):
    """A PCIe switch (PLX/PEX) soldered on the board or on a riser card."""

    id: KebabId
    # The switch chip; None where no source names it (its lane budget is then not checked).
    part: KebabId | None = None
    upstream: KebabId
    upstream_lanes: PcieLanes
    upstream_gen: Generation


class Chipset(Frozen):
    id: KebabId
    name: str
    socket: int = Field(default=0, ge=0, le=16)
    uplink_lanes: PcieLanes
    uplink_gen: Generation
    power_w: float | None = Field(default=None, gt=0, le=1e6)


class Slot(Frozen):
    """A place a card goes: a PCIe slot (full-height position), an M.2 socket or an SXM bay.

    ``position`` counts expansion-slot openings from the CPU side (0 = nearest), so a
    card ``slot_width`` wide in position p covers positions p .. p+width-1.
    """

    id: KebabId
    label: str
    kind: Literal["pcie", "m2", "sxm"] = "pcie"
    position: int | None = Field(default=None, ge=0, le=64)
    # A server's GPU bay: the widest card it takes, in expansion-slot widths. Bays are walled
    # off from each other, so a card in one never covers the next; a wider card does not fit.
    bay_width_slots: int | None = Field(default=None, ge=1, le=5)
    physical_lanes: PcieLanes
    electrical_lanes: PcieLanes
    gen: Generation
    parent: KebabId
    bifurcation_group: KebabId | None = None

    @model_validator(mode="after")
    def _electrical_fits_physical(self) -> Slot:
        if self.electrical_lanes > self.physical_lanes:
            raise ValueError(
                f"slot {self.id}: electrical_lanes x{self.electrical_lanes} is wider "
                f"than its physical x{self.physical_lanes} connector"
            )
        return self


class BifurcationGroup(Frozen):
    """Slots that share one set of lanes: alone a slot gets ``lanes``, shared ``split_lanes``."""

    id: KebabId
    lanes: PcieLanes
    split_lanes: PcieLanes
    slots: list[KebabId] = Field(min_length=2)


class LaneShare(Frozen):
    """A slot that loses lanes when another slot is in use (an M.2 socket wired to a PCIe slot's lanes).

    ``lanes_left`` is the width the slot keeps; None means the slot is switched off.
    """

    when_used: KebabId
    slot: KebabId
    lanes_left: PcieLanes | None = None


class NvlinkWiring(Frozen):
    """Fixed NVLink connections between SXM bays (DGX/HGX baseboards)."""

    a: KebabId
    b: KebabId
    links: int = Field(ge=1, le=1024)


# PCIe host bridges per CPU on AMD's server and workstation I/O dies, each serving two x16
# links (root ports x.01.x and x.03.x): lspci -tv shows four per socket on SP3 (G292-Z20:
# 00/40/80/c0), sWRX8 (WRX80D8-2T, club-3090 #1106: 00/20/40/60), SP5 (ESC8000A-E12,
# stelline) and sTR5 (WRX90, stelline: 00/20/c0/e0). A board listing more root complexes on
# one of these sockets lists x16 links, not host bridges, and must say so.
HOST_BRIDGES_PER_SOCKET: dict[str, int] = {"SP3": 4, "sWRX8": 4, "SP5": 4, "sTR5": 4}


class Board(Part):
    kind: ClassVar[str] = "board"

    platform: Literal["consumer", "hedt", "workstation", "server"]
    form_factor: str
    width_mm: float | None = Field(default=None, gt=0, le=1e4)
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    cpu_socket: str
    # CPU families the board's BIOS supports (``Cpu.family``); empty where no source says.
    cpu_families: list[str] = Field(default_factory=list)
    sockets: int = Field(ge=1, le=8)
    inter_socket_link: str | None = None
    inter_socket_gbs: float | None = Field(default=None, gt=0, le=1e6)
    mem_type: str | None = None
    dimm_slots: int | None = Field(default=None, ge=1, le=256)
    best_dimm_counts: list[Annotated[int, Field(ge=1, le=256)]] = Field(default_factory=list)
    max_memory_gb: float | None = Field(default=None, gt=0, le=1e7)
    # Memory channels wired per socket (a board may wire fewer than its CPU has) and the
    # fastest DIMM speed the maker lists without overclocking, MT/s.
    memory_channels_per_socket: int | None = Field(default=None, ge=1, le=64)
    max_memory_speed_mts: int | None = Field(default=None, gt=0, le=100_000)
    # Power inputs the PSU must feed: "atx-24pin", "eps-8pin", "pcie-6pin", "pcie-8pin", ...
    power_connectors: list[str] = Field(default_factory=list)
    root_complexes: list[RootComplex] = Field(min_length=1)
    switches: list[SwitchOnBoard] = Field(default_factory=list)
    chipset: Chipset | None = None
    slots: list[Slot] = Field(default_factory=list)
    bifurcation_groups: list[BifurcationGroup] = Field(default_factory=list)
    nvlink_wiring: list[NvlinkWiring] = Field(default_factory=list)
    nvswitch_gbs_per_gpu: float | None = Field(default=None, gt=0, le=1e6)
    overhead_w: float | None = Field(default=None, ge=0, le=1e6)
    # Lane sharing a bifurcation group cannot say: a slot switched off or narrowed by another.
    lane_sharing: list[LaneShare] = Field(default_factory=list)
    # False where root_complexes are the CPU's x16 links and which of them share a PCIe host
    # bridge is not known (no block diagram or lspci with slot numbers): two of them then
    # print PHB or NODE on the machine, and the plan cannot say which.
    host_bridges_known: bool = True

    @model_validator(mode="after")
    def _references_resolve(self) -> Board:
        """Every parent, upstream and group member names a node of this board; no cycles."""
        roots = {rc.id for rc in self.root_complexes}
        switches = {sw.id: sw for sw in self.switches}
        chipset = {self.chipset.id} if self.chipset else set()
        nodes = roots | set(switches) | chipset
        ids = [rc.id for rc in self.root_complexes] + list(switches) + list(chipset)
        ids += [s.id for s in self.slots]
        seen: set[str] = set()
        for node_id in ids:
            if node_id in seen:
                raise ValueError(f"id {node_id!r} is used twice on this board")
            seen.add(node_id)
        for rc in self.root_complexes:
            if rc.socket >= self.sockets:
                raise ValueError(f"root complex {rc.id} is on socket {rc.socket}, but the board has {self.sockets}")
        self._host_bridges_possible()
        for sw in self.switches:
            if sw.upstream not in nodes:
                raise ValueError(f"switch {sw.id}: upstream {sw.upstream!r} is not on this board")
        for sw in self.switches:
            chain, node = [sw.id], sw.upstream
            while node in switches:
                if node in chain:
                    raise ValueError(f"switches form a cycle: {' -> '.join([*chain, node])}")
                chain.append(node)
                node = switches[node].upstream
        slot_ids = {s.id for s in self.slots}
        for slot in self.slots:
            if slot.parent not in nodes:
                raise ValueError(f"slot {slot.id}: parent {slot.parent!r} is not on this board")
        for group in self.bifurcation_groups:
            for member in group.slots:
                if member not in slot_ids:
                    raise ValueError(f"bifurcation group {group.id}: slot {member!r} is not on this board")
        for wire in self.nvlink_wiring:
            for end in (wire.a, wire.b):
                if end not in slot_ids:
                    raise ValueError(f"nvlink wiring: slot {end!r} is not on this board")
        for share in self.lane_sharing:
            for end in (share.when_used, share.slot):
                if end not in slot_ids:
                    raise ValueError(f"lane sharing: slot {end!r} is not on this board")
        return self

    def _host_bridges_possible(self) -> None:
        limit = HOST_BRIDGES_PER_SOCKET.get(self.cpu_socket)
        if limit is None or not self.host_bridges_known:
            return
        for socket in range(self.sockets):
            count = sum(1 for rc in self.root_complexes if rc.socket == socket)
            if count > limit:
                raise ValueError(
                    f"socket {socket} has {count} root complexes, but a {self.cpu_socket} CPU has {limit} PCIe "
                    "host bridges: put slots that share one under the same root complex, or set "
                    "host_bridges_known: false"
                )

    def slot(self, slot_id: str) -> Slot | None:
        return next((s for s in self.slots if s.id == slot_id), None)

    def slot_label(self, slot_id: str) -> str:
        """The label printed on the board, or the id itself for a slot the board lacks."""
        slot = self.slot(slot_id)
        return slot.label if slot is not None else slot_id
