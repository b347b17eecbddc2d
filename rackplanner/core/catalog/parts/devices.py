"""Parts that go into a machine: GPUs, CPUs, memory, drives, NICs, PCIe switches, NVLink bridges."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from rackplanner.core.catalog.parts.base import Generation, Part, PcieLanes


class Gpu(Part):
    kind: ClassVar[str] = "gpu"

    # Memory and compute figures are per GPU device (what nvidia-smi lists); power and
    # dimensions are per card. A Tesla K80 card holds two devices (gpus_per_card = 2).
    product_line: Literal["geforce", "workstation", "datacenter", "radeon", "instinct", "arc"]
    architecture: str | None = None
    form_factor: Literal["pcie", "sxm", "oam"] = "pcie"
    gpus_per_card: int = Field(default=1, ge=1, le=16)
    vram_gb: float = Field(gt=0, le=1e7)
    mem_bw_gbs: float | None = Field(default=None, gt=0, le=1e6)
    mem_type: str | None = None
    # Memory bus width and data rate per pin where a sheet gives them, so that a
    # bandwidth typo shows: mem_bw_gbs ~ mem_bus_bits / 8 * mem_data_rate_gbps.
    mem_bus_bits: int | None = Field(default=None, ge=1, le=16384)
    mem_data_rate_gbps: float | None = Field(default=None, gt=0, le=1e5)
    # Dense (no structured sparsity) tensor throughput with FP32 accumulate where the
    # sheet distinguishes; cards without FP16 tensor cores carry their FP32 figure in
    # fp32_tflops and leave this empty.
    fp16_tensor_tflops: float | None = Field(default=None, gt=0, le=1e6)
    bf16_tensor_tflops: float | None = Field(default=None, gt=0, le=1e6)
    fp8_tensor_tflops: float | None = Field(default=None, gt=0, le=1e6)
    int8_tensor_tops: float | None = Field(default=None, gt=0, le=1e6)
    fp32_tflops: float | None = Field(default=None, gt=0, le=1e6)
    # FP16 on the shader cores at twice the FP32 rate (packed math: Pascal GP100, Vega 20)
    # on cards without FP16 tensor cores: the rate their FP16 GEMMs (cuBLAS, rocBLAS) run at.
    fp16_packed_tflops: float | None = Field(default=None, gt=0, le=1e6)
    tdp_w: float = Field(gt=0, le=1e6)
    transient_peak_w: float | None = Field(default=None, gt=0, le=1e6)
    min_power_limit_w: float | None = Field(default=None, gt=0, le=1e6)
    slot_width: int | None = Field(default=None, ge=1, le=5)
    length_mm: float | None = Field(default=None, gt=0, le=1e4)
    height_mm: float | None = Field(default=None, gt=0, le=1e4)
    power_connectors: list[str] = Field(default_factory=list)
    pcie_gen: Generation
    pcie_lanes: PcieLanes = 16
    nvlink_links: int | None = Field(default=None, ge=0, le=64)
    nvlink_gbs: float | None = Field(default=None, ge=0, le=1e6)
    p2p_pcie: bool
    cooling: Literal["blower", "open-air", "passive", "liquid"] | None = None

    @property
    def tflops_for_inference(self) -> float | None:
        """Dense FP16 tensor TFLOP/s; on cards without FP16 tensors their packed FP16 rate,
        else FP32 TFLOP/s."""
        return self.fp16_tensor_tflops or self.fp16_packed_tflops or self.fp32_tflops


class Cpu(Part):
    kind: ClassVar[str] = "cpu"

    platform: Literal["consumer", "hedt", "workstation", "server", "soc"]
    socket: str
    # Product family as boards list what they support ("EPYC 7003", "Xeon Scalable 2nd gen").
    family: str | None = None
    cores: int = Field(ge=1, le=4096)
    threads: int = Field(ge=1, le=8192)
    base_clock_ghz: float | None = Field(default=None, gt=0, le=100)
    boost_clock_ghz: float | None = Field(default=None, gt=0, le=100)
    tdp_w: float = Field(gt=0, le=1e6)
    mem_type: str
    mem_channels: int = Field(ge=1, le=64)
    mem_speed_mts: int = Field(gt=0, le=100_000)
    max_memory_gb: float | None = Field(default=None, gt=0, le=1e7)
    pcie_gen: Generation
    pcie_lanes: int = Field(ge=0, le=1024)
    max_sockets: int = Field(default=1, ge=1, le=8)
    inter_socket_link: str | None = None
    inter_socket_links: int | None = Field(default=None, ge=0, le=64)
    inter_socket_gts: float | None = Field(default=None, gt=0, le=1000)
    avx512: bool = False
    amx: bool = False
    # Peak vector/matrix TFLOP/s where a source gives one (001_1caa315e8577a206.txt's table).
    peak_tflops: float | None = Field(default=None, gt=0, le=1e6)
    # Unified-memory SoCs (Apple M-series): bandwidth of the package, GB/s.
    mem_bw_gbs: float | None = Field(default=None, gt=0, le=1e6)
    # Per-socket memory bandwidth as the vendor states it (AMD's "Per Socket Mem BW"), GB/s;
    # the catalog tests hold it against channels x MT/s x 8 B to catch typos.
    stated_mem_bw_gbs: float | None = Field(default=None, gt=0, le=1e6)
    l3_cache_mb: float | None = Field(default=None, gt=0, le=1e6)
    # PCIe lanes a two-socket system exposes in total, where a source gives it (EPYC spends
    # part of each socket's lanes on the socket-to-socket links).
    pcie_lanes_2p: int | None = Field(default=None, ge=0, le=2048)
    # Peak double/single-precision FLOP per cycle per core (FMA counted as 2), for capacity
    # estimates: cores x clock x this = peak FLOP/s.
    fp64_flops_per_cycle_per_core: int | None = Field(default=None, ge=1, le=4096)
    fp32_flops_per_cycle_per_core: int | None = Field(default=None, ge=1, le=4096)

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
    capacity_gb: float = Field(gt=0, le=1e7)
    speed_mts: int = Field(gt=0, le=100_000)
    ecc: bool = False
    power_w: float | None = Field(default=None, gt=0, le=1e6)


class Drive(Part):
    kind: ClassVar[str] = "drive"

    interface: Literal["nvme", "sata", "sas"]
    form_factor: Literal["m.2-2280", "m.2-22110", "u.2", "u.3", "e1.s", "2.5in", "3.5in", "aic"]
    capacity_gb: float = Field(gt=0, le=1e7)
    pcie_gen: Generation | None = None
    pcie_lanes: PcieLanes | None = None
    read_mbs: float | None = Field(default=None, gt=0, le=1e7)
    power_w: float | None = Field(default=None, gt=0, le=1e6)


class Nic(Part):
    kind: ClassVar[str] = "nic"

    protocol: Literal["ethernet", "infiniband", "vpi"]
    ports: int = Field(ge=1, le=4096)
    port_speed_gbps: float = Field(gt=0, le=1e5)
    connector: str | None = None
    pcie_gen: Generation
    pcie_lanes: PcieLanes
    rdma: bool = False
    tdp_w: float | None = Field(default=None, gt=0, le=1e6)
    slot_width: int = Field(default=1, ge=1, le=5)
    length_mm: float | None = Field(default=None, gt=0, le=1e4)


class PcieSwitch(Part):
    kind: ClassVar[str] = "pcie-switch"

    lanes: int = Field(ge=1, le=1024)
    pcie_gen: Generation
    power_w: float | None = Field(default=None, gt=0, le=1e6)


class NvlinkBridge(Part):
    kind: ClassVar[str] = "nvlink-bridge"

    # Distance between the two cards' slot positions the bridge spans (3-slot bridge = 3).
    slot_spacing: int = Field(ge=1, le=16)
    links: int = Field(ge=1, le=1024)
    gbs_per_direction: float = Field(gt=0, le=1e6)
    fits_gpus: list[str] = Field(min_length=1)
