"""Pydantic models of catalog parts.

Every part has a stable kebab-case ``id``, a ``vendor``, a ``model`` and a ``source``
(one or more spec sheets or reference documents) backing its figures. A figure that no
source gives is left as ``None`` and shown as "unknown"; it is never guessed.
Units are in field names (``tdp_w``, ``mem_bw_gbs``, ``length_mm``, ``height_u``).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

_KEBAB = re.compile(r"^[a-z0-9]+(?:[.\-][a-z0-9]+)*$")


def _check_kebab(value: str) -> str:
    if not _KEBAB.match(value):
        raise ValueError(f"{value!r} is not a lowercase kebab-case id (letters, digits, '-' and '.')")
    return value


KebabId = Annotated[str, AfterValidator(_check_kebab)]


class Frozen(BaseModel):
    """Base of every immutable model: unknown fields are errors, values are frozen."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


# Bandwidth per lane per direction after encoding overhead (8b/10b for Gen1/2,
# 128b/130b for Gen3+, FLIT for Gen6), GB/s. PCI-SIG figures; Gen3 x16 = 15.75 GB/s,
# the "128 Gbit/s" of 000_2736fecfd42346e5.txt.
PCIE_GBS_PER_LANE: dict[int, float] = {
    1: 0.25,
    2: 0.5,
    3: 0.985,
    4: 1.969,
    5: 3.938,
    6: 7.877,
}

PcieLanes = Literal[1, 2, 4, 8, 16, 32]
Generation = Annotated[int, Field(ge=1, le=6)]


class Part(Frozen):
    """Fields every catalog entry has."""

    kind: ClassVar[str] = "part"

    id: KebabId
    vendor: str = Field(min_length=1)
    model: str = Field(min_length=1)
    source: list[str] = Field(min_length=1)
    price_usd: float | None = Field(default=None, ge=0)
    price_date: date | None = None
    notes: str | None = None

    @field_validator("source", mode="before")
    @classmethod
    def _one_source_is_a_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _price_has_date(self) -> Part:
        if self.price_usd is not None and self.price_date is None:
            raise ValueError("price_usd needs a price_date (when the price was seen)")
        return self

    @property
    def label(self) -> str:
        return f"{self.vendor} {self.model}"


class Gpu(Part):
    kind: ClassVar[str] = "gpu"

    # Memory and compute figures are per GPU device (what nvidia-smi lists); power and
    # dimensions are per card. A Tesla K80 card holds two devices (gpus_per_card = 2).
    product_line: Literal["geforce", "workstation", "datacenter", "radeon", "instinct", "arc"]
    architecture: str | None = None
    form_factor: Literal["pcie", "sxm", "oam"] = "pcie"
    gpus_per_card: int = Field(default=1, ge=1)
    vram_gb: float = Field(gt=0)
    mem_bw_gbs: float | None = Field(default=None, gt=0)
    mem_type: str | None = None
    # Memory bus width and data rate per pin where a sheet gives them, so that a
    # bandwidth typo shows: mem_bw_gbs ~ mem_bus_bits / 8 * mem_data_rate_gbps.
    mem_bus_bits: int | None = Field(default=None, ge=1)
    mem_data_rate_gbps: float | None = Field(default=None, gt=0)
    # Dense (no structured sparsity) tensor throughput with FP32 accumulate where the
    # sheet distinguishes; cards without FP16 tensor cores carry their FP32 figure in
    # fp32_tflops and leave this empty.
    fp16_tensor_tflops: float | None = Field(default=None, gt=0)
    bf16_tensor_tflops: float | None = Field(default=None, gt=0)
    fp8_tensor_tflops: float | None = Field(default=None, gt=0)
    int8_tensor_tops: float | None = Field(default=None, gt=0)
    fp32_tflops: float | None = Field(default=None, gt=0)
    tdp_w: float = Field(gt=0)
    transient_peak_w: float | None = Field(default=None, gt=0)
    min_power_limit_w: float | None = Field(default=None, gt=0)
    slot_width: int | None = Field(default=None, ge=1, le=5)
    length_mm: float | None = Field(default=None, gt=0)
    height_mm: float | None = Field(default=None, gt=0)
    power_connectors: list[str] = Field(default_factory=list)
    pcie_gen: Generation
    pcie_lanes: PcieLanes = 16
    nvlink_links: int | None = Field(default=None, ge=0)
    nvlink_gbs: float | None = Field(default=None, ge=0)
    p2p_pcie: bool
    cooling: Literal["blower", "open-air", "passive", "liquid"] | None = None

    @property
    def tflops_for_inference(self) -> float | None:
        """Dense FP16 tensor TFLOP/s, or FP32 TFLOP/s on cards without FP16 tensors."""
        return self.fp16_tensor_tflops or self.fp32_tflops


class Cpu(Part):
    kind: ClassVar[str] = "cpu"

    platform: Literal["consumer", "hedt", "workstation", "server", "soc"]
    socket: str
    cores: int = Field(ge=1)
    threads: int = Field(ge=1)
    base_clock_ghz: float | None = Field(default=None, gt=0)
    boost_clock_ghz: float | None = Field(default=None, gt=0)
    tdp_w: float = Field(gt=0)
    mem_type: str
    mem_channels: int = Field(ge=1)
    mem_speed_mts: int = Field(gt=0)
    max_memory_gb: float | None = Field(default=None, gt=0)
    pcie_gen: Generation
    pcie_lanes: int = Field(ge=0)
    max_sockets: int = Field(default=1, ge=1, le=8)
    inter_socket_link: str | None = None
    inter_socket_links: int | None = Field(default=None, ge=0)
    inter_socket_gts: float | None = Field(default=None, gt=0)
    avx512: bool = False
    amx: bool = False
    # Peak vector/matrix TFLOP/s where a source gives one (001_1caa315e8577a206.txt's table).
    peak_tflops: float | None = Field(default=None, gt=0)
    # Unified-memory SoCs (Apple M-series): bandwidth of the package, GB/s.
    mem_bw_gbs: float | None = Field(default=None, gt=0)
    # Per-socket memory bandwidth as the vendor states it (AMD's "Per Socket Mem BW"), GB/s;
    # the catalog tests hold it against channels x MT/s x 8 B to catch typos.
    stated_mem_bw_gbs: float | None = Field(default=None, gt=0)
    l3_cache_mb: float | None = Field(default=None, gt=0)
    # PCIe lanes a two-socket system exposes in total, where a source gives it (EPYC spends
    # part of each socket's lanes on the socket-to-socket links).
    pcie_lanes_2p: int | None = Field(default=None, ge=0)
    # Peak double/single-precision FLOP per cycle per core (FMA counted as 2), for capacity
    # estimates: cores x clock x this = peak FLOP/s.
    fp64_flops_per_cycle_per_core: int | None = Field(default=None, ge=1)
    fp32_flops_per_cycle_per_core: int | None = Field(default=None, ge=1)

    @property
    def theoretical_mem_bw_gbs(self) -> float:
        """Channels × MT/s × 8 bytes, or the package figure of a unified-memory SoC."""
        if self.mem_bw_gbs is not None:
            return self.mem_bw_gbs
        return self.mem_channels * self.mem_speed_mts * 8 / 1000


class Memory(Part):
    kind: ClassVar[str] = "memory"

    mem_type: Literal["DDR3", "DDR4", "DDR5"]
    module_type: Literal["udimm", "rdimm", "lrdimm", "sodimm"]
    capacity_gb: float = Field(gt=0)
    speed_mts: int = Field(gt=0)
    ecc: bool = False
    power_w: float | None = Field(default=None, gt=0)


class Drive(Part):
    kind: ClassVar[str] = "drive"

    interface: Literal["nvme", "sata", "sas"]
    form_factor: Literal["m.2-2280", "m.2-22110", "u.2", "u.3", "e1.s", "2.5in", "3.5in", "aic"]
    capacity_gb: float = Field(gt=0)
    pcie_gen: Generation | None = None
    pcie_lanes: PcieLanes | None = None
    read_mbs: float | None = Field(default=None, gt=0)
    power_w: float | None = Field(default=None, gt=0)


class Nic(Part):
    kind: ClassVar[str] = "nic"

    protocol: Literal["ethernet", "infiniband", "vpi"]
    ports: int = Field(ge=1)
    port_speed_gbps: float = Field(gt=0)
    connector: str | None = None
    pcie_gen: Generation
    pcie_lanes: PcieLanes
    rdma: bool = False
    tdp_w: float | None = Field(default=None, gt=0)
    slot_width: int = Field(default=1, ge=1)
    length_mm: float | None = Field(default=None, gt=0)


class PcieSwitch(Part):
    kind: ClassVar[str] = "pcie-switch"

    lanes: int = Field(ge=1)
    pcie_gen: Generation
    power_w: float | None = Field(default=None, gt=0)


class NvlinkBridge(Part):
    kind: ClassVar[str] = "nvlink-bridge"

    # Distance between the two cards' slot positions the bridge spans (3-slot bridge = 3).
    slot_spacing: int = Field(ge=1)
    links: int = Field(ge=1)
    gbs_per_direction: float = Field(gt=0)
    fits_gpus: list[str] = Field(min_length=1)


# --- boards -------------------------------------------------------------------------


class RootComplex(Frozen):
    """A PCIe host bridge of one CPU socket (EPYC has several per socket)."""

    id: KebabId
    socket: int = Field(ge=0)
    lanes: int | None = Field(default=None, ge=1)
    # NUMA node of this host bridge where a socket is split into several (EPYC NPS2/NPS4,
    # DGX A100); None means the socket's own node.
    numa_node: int | None = Field(default=None, ge=0)


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
    socket: int = Field(default=0, ge=0)
    uplink_lanes: PcieLanes
    uplink_gen: Generation
    power_w: float | None = Field(default=None, gt=0)


class Slot(Frozen):
    """A place a card goes: a PCIe slot (full-height position), an M.2 socket or an SXM bay.

    ``position`` counts expansion-slot openings from the CPU side (0 = nearest), so a
    card ``slot_width`` wide in position p covers positions p .. p+width-1.
    """

    id: KebabId
    label: str
    kind: Literal["pcie", "m2", "sxm"] = "pcie"
    position: int | None = Field(default=None, ge=0)
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
    links: int = Field(ge=1)


class Board(Part):
    kind: ClassVar[str] = "board"

    platform: Literal["consumer", "hedt", "workstation", "server"]
    form_factor: str
    width_mm: float | None = Field(default=None, gt=0)
    depth_mm: float | None = Field(default=None, gt=0)
    cpu_socket: str
    sockets: int = Field(ge=1, le=8)
    inter_socket_link: str | None = None
    inter_socket_gbs: float | None = Field(default=None, gt=0)
    mem_type: str | None = None
    dimm_slots: int | None = Field(default=None, ge=1)
    best_dimm_counts: list[int] = Field(default_factory=list)
    max_memory_gb: float | None = Field(default=None, gt=0)
    root_complexes: list[RootComplex] = Field(min_length=1)
    switches: list[SwitchOnBoard] = Field(default_factory=list)
    chipset: Chipset | None = None
    slots: list[Slot] = Field(default_factory=list)
    bifurcation_groups: list[BifurcationGroup] = Field(default_factory=list)
    nvlink_wiring: list[NvlinkWiring] = Field(default_factory=list)
    nvswitch_gbs_per_gpu: float | None = Field(default=None, gt=0)
    overhead_w: float | None = Field(default=None, ge=0)
    # Lane sharing a bifurcation group cannot say: a slot switched off or narrowed by another.
    lane_sharing: list[LaneShare] = Field(default_factory=list)

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

    def slot(self, slot_id: str) -> Slot | None:
        return next((s for s in self.slots if s.id == slot_id), None)

    def slot_label(self, slot_id: str) -> str:
        """The label printed on the board, or the id itself for a slot the board lacks."""
        slot = self.slot(slot_id)
        return slot.label if slot is not None else slot_id


# --- enclosures, power ---------------------------------------------------------------


class Chassis(Part):
    kind: ClassVar[str] = "chassis"

    form: Literal["tower", "open-frame", "rack"]
    board_form_factors: list[str] = Field(min_length=1)
    expansion_slots: int | None = Field(default=None, ge=0)
    max_gpu_length_mm: float | None = Field(default=None, gt=0)
    max_gpu_height_mm: float | None = Field(default=None, gt=0)
    height_u: int = Field(default=0, ge=0)
    width_mm: float | None = Field(default=None, gt=0)
    depth_mm: float | None = Field(default=None, gt=0)
    height_mm: float | None = Field(default=None, gt=0)
    psu_bays: int = Field(default=1, ge=0)
    weight_kg: float | None = Field(default=None, gt=0)
    fans_w: float | None = Field(default=None, ge=0)


class Psu(Part):
    kind: ClassVar[str] = "psu"

    form: Literal["atx", "sfx", "server"]
    watts: float = Field(gt=0)
    # Some server PSUs give less at 100-127 V; None when the sheet gives one rating.
    watts_low_line: float | None = Field(default=None, gt=0)
    efficiency: (
        Literal[
            "80plus",
            "80plus-bronze",
            "80plus-silver",
            "80plus-gold",
            "80plus-platinum",
            "80plus-titanium",
        ]
        | None
    ) = None
    inlet: Literal["iec-60320-c14", "iec-60320-c20", "iec-60320-c16"] | None = None
    # Cable counts; None when no source gives them (0 means the PSU has none).
    pcie_8pin: int | None = Field(default=None, ge=0)
    pcie_12v_2x6: int | None = Field(default=None, ge=0)


class Server(Part):
    """A chassis and board sold as one system, with its stock power supplies."""

    kind: ClassVar[str] = "server"

    chassis: KebabId
    board: KebabId
    psu: KebabId
    psu_count: int = Field(ge=1)
    psu_redundancy: str | None = None
    height_u: int = Field(ge=1)
    depth_mm: float | None = Field(default=None, gt=0)
    weight_kg: float | None = Field(default=None, gt=0)
    is_full_depth: bool = True
    max_gpus: int | None = Field(default=None, ge=0)
    fans_w: float | None = Field(default=None, ge=0)
    bmc: bool = True


class Rack(Part):
    kind: ClassVar[str] = "rack"

    height_u: int = Field(ge=1)
    width_mm: float | None = Field(default=None, gt=0)
    depth_mm: float = Field(gt=0)
    max_mounting_depth_mm: float | None = Field(default=None, gt=0)
    max_load_kg: float | None = Field(default=None, gt=0)
    weight_kg: float | None = Field(default=None, gt=0)
    zero_u_channels: int = Field(default=2, ge=0)


OutletType = Literal["iec-60320-c13", "iec-60320-c19", "nema-5-15r", "nema-5-20r"]
LineName = Literal["L1", "L2", "L3", "L1-L2", "L2-L3", "L3-L1"]


class OutletGroup(Frozen):
    """Outlets behind one breaker, wired line-to-neutral (wye) or line-to-line (delta)."""

    id: KebabId
    line: LineName
    breaker_a: float | None = Field(default=None, gt=0)
    outlets: dict[OutletType, int]


class Pdu(Part):
    kind: ClassVar[str] = "pdu"

    phases: Literal[1, 3]
    wiring: Literal["single", "wye", "delta"]
    voltage_v: float = Field(gt=0)
    input_current_a: float = Field(gt=0)
    derating: float = Field(default=0.8, gt=0, le=1)
    inlet: str
    height_u: int = Field(default=0, ge=0)
    length_mm: float | None = Field(default=None, gt=0)
    weight_kg: float | None = Field(default=None, gt=0)
    metering: Literal["basic", "metered", "switched", "metered-by-outlet", "switched-by-outlet"]
    # Empty when no source gives the layout: its outlets are then "unknown", never guessed.
    outlet_groups: list[OutletGroup] = Field(default_factory=list)
    load_capacity_va: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _wiring_matches_phases(self) -> Pdu:
        if (self.phases == 1) != (self.wiring == "single"):
            raise ValueError(f"wiring {self.wiring!r} does not fit a {self.phases}-phase PDU")
        for group in self.outlet_groups:
            if self.wiring == "delta" and "-" not in group.line:
                raise ValueError(f"outlet group {group.id}: a delta PDU feeds line pairs like L1-L2")
            if self.wiring != "delta" and "-" in group.line:
                raise ValueError(f"outlet group {group.id}: a {self.wiring} PDU feeds L1/L2/L3")
        return self


class PortGroup(Frozen):
    count: int = Field(ge=1)
    speed_gbps: float = Field(gt=0)
    connector: str


class NetworkSwitch(Part):
    kind: ClassVar[str] = "switch"

    fabric: Literal["ethernet", "infiniband"]
    ports: list[PortGroup] = Field(min_length=1)
    height_u: int = Field(ge=1)
    depth_mm: float | None = Field(default=None, gt=0)
    is_full_depth: bool = False
    weight_kg: float | None = Field(default=None, gt=0)
    power_typical_w: float | None = Field(default=None, gt=0)
    power_max_w: float | None = Field(default=None, gt=0)
    psu_count: int = Field(default=1, ge=1)
    inlet: Literal["iec-60320-c14", "iec-60320-c20", "iec-60320-c16"] = "iec-60320-c14"
    managed: bool = True


class PowerPort(Frozen):
    """One power inlet of a rack device, as NetBox device types describe it."""

    type: str
    maximum_draw_w: float | None = Field(default=None, gt=0)
    allocated_draw_w: float | None = Field(default=None, gt=0)


class RackDevice(Part):
    """Other rack equipment (storage, a management server, a KVM, a patch panel): NetBox's shape."""

    kind: ClassVar[str] = "rack-device"

    height_u: int = Field(ge=1)
    is_full_depth: bool = True
    depth_mm: float | None = Field(default=None, gt=0)
    weight_kg: float | None = Field(default=None, gt=0)
    power_ports: list[PowerPort] = Field(default_factory=list)
    interfaces: list[PortGroup] = Field(default_factory=list)
    # Out-of-band management ports (BMC/iDRAC/iLO) among the interfaces.
    mgmt_ports: int = Field(default=0, ge=0)

    @property
    def draw_w(self) -> float | None:
        """The device's draw over all its power ports (as NetBox sums it); None if any port's is unknown."""
        draws = [p.maximum_draw_w or p.allocated_draw_w for p in self.power_ports]
        if not draws or any(d is None for d in draws):
            return None
        return sum(d or 0.0 for d in draws)


class LlmModel(Part):
    kind: ClassVar[str] = "llm"

    family: str
    params_b: float = Field(gt=0)
    active_params_b: float | None = Field(default=None, gt=0)
    layers: int = Field(ge=1)
    hidden_size: int = Field(ge=1)
    intermediate_size: int | None = Field(default=None, ge=1)
    attention_heads: int = Field(ge=1)
    kv_heads: int = Field(ge=1)
    head_dim: int = Field(ge=1)
    vocab_size: int = Field(ge=1)
    max_context: int = Field(ge=1)
    moe_experts: int | None = Field(default=None, ge=1)
    moe_active_experts: int | None = Field(default=None, ge=1)
    license: str | None = None
    # Architecture details for recomputing the parameter count (core/catalog/llm_shape.py).
    # Defaults describe a Llama-style model: gated (SwiGLU) MLP, separate LM head.
    tie_word_embeddings: bool = False
    mlp_gated: bool = True
    # MoE: width of one routed expert's MLP when it differs from intermediate_size,
    # always-on shared experts of that width, and leading dense layers (DeepSeek's
    # first_k_dense_replace) whose MLP is intermediate_size wide.
    moe_intermediate_size: int | None = Field(default=None, ge=1)
    moe_shared_experts: int | None = Field(default=None, ge=1)
    moe_dense_layers: int | None = Field(default=None, ge=1)
    # Multi-head latent attention (DeepSeek-V2/V3): head_dim is then the query/key head
    # width (no-RoPE part + RoPE part); the KV cache holds kv_lora_rank + qk_rope_head_dim
    # values per token and layer instead of 2 x kv_heads x head_dim.
    q_lora_rank: int | None = Field(default=None, ge=1)
    kv_lora_rank: int | None = Field(default=None, ge=1)
    qk_rope_head_dim: int | None = Field(default=None, ge=1)
    v_head_dim: int | None = Field(default=None, ge=1)
    # Yuan 2.0's localized filtering before q/k: two kernel-2 convolutions
    # hidden -> hidden/2 -> hidden, 2 x hidden^2 weights per layer.
    localized_filtering: bool = False

    @model_validator(mode="after")
    def _architecture_is_consistent(self) -> LlmModel:
        if self.attention_heads % self.kv_heads:
            raise ValueError(f"kv_heads {self.kv_heads} does not divide attention_heads {self.attention_heads}")
        if (self.moe_experts is None) != (self.moe_active_experts is None):
            raise ValueError("moe_experts and moe_active_experts go together")
        mla = (self.kv_lora_rank, self.qk_rope_head_dim, self.v_head_dim)
        if any(v is not None for v in mla) and any(v is None for v in mla):
            raise ValueError("latent attention needs kv_lora_rank, qk_rope_head_dim and v_head_dim")
        return self


PART_KINDS: dict[str, type[Part]] = {
    cls.kind: cls
    for cls in (
        Gpu,
        Cpu,
        Memory,
        Drive,
        Nic,
        PcieSwitch,
        NvlinkBridge,
        Board,
        Chassis,
        Psu,
        Server,
        Rack,
        Pdu,
        NetworkSwitch,
        RackDevice,
        LlmModel,
    )
}
