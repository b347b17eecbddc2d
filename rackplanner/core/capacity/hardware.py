"""What a capacity estimate runs on: GPUs, a CPU server or a unified-memory SoC.

Built from a catalog GPU and a count, a catalog CPU and a socket count, or a machine of
a plan (its GPUs, the links the topology found between them, its CPUs and DIMMs).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.classes import (
    architecture,
    chip_architecture,
    chip_vendor,
    compute_capability,
    memory_tech,
)
from rackplanner.core.capacity.limits import check_positive
from rackplanner.core.capacity.tensor_rates import tensor_peaks
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu, Gpu, Memory, UnifiedSystem
from rackplanner.core.errors import InputError, unknown
from rackplanner.core.machine.topology import derive_topology, pcie_gbs
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of

# Catalog capacities in GB are binary (see constants.MEMORY_GB_BYTES); results are decimal GB.
_GIB = k.MEMORY_GB_BYTES / k.GB

DeviceClass = Literal["geforce", "workstation", "datacenter", "soc", "cpu"]


class Hardware(BaseModel):
    """Per-device figures of a group of identical compute devices and the link between them."""

    label: str
    kind: Literal["gpu", "cpu", "soc"]
    # The catalog id of the device (GPU, CPU or unified-memory system); "" when not from the catalog.
    device_id: str = ""
    device_class: DeviceClass
    devices: int
    mem_gb_per_device: float
    mem_bw_gbs_per_device: float
    tflops_per_device: float | None
    link_gbs: float | None = None
    link_kind: str = "none"
    host_ram_gb: float | None = None
    host_bw_gbs: float | None = None
    # Each GPU's PCIe link to the host, per direction (what CPU offload streams over).
    host_link_gbs: float | None = None
    # Calibration classes (classes.py): memory technology, architecture, maker.
    mem_tech: str = "unknown"
    arch: str = "unknown"
    vendor: str = "unknown"
    # Dies of one device that share its memory over a die-to-die link (Apple's Ultra chips: 2).
    dies: int = 1
    # Peaks a format with 8-bit weights and activations runs at (None: not in the catalog).
    fp8_tflops_per_device: float | None = None
    int8_tops_per_device: float | None = None
    # The FP16 tensor peak (FP32 accumulate) where known: what a prompt's attention runs at.
    fp16_tensor_tflops_per_device: float | None = None
    # An NVIDIA GPU's compute capability, from its die where the die differs from its architecture.
    compute_capability: float | None = None
    # Tensor peaks the catalog entry lacks, derived from its architecture's ("INT8", "FP16").
    derived_peaks: list[str] = []
    assumptions: list[str] = []

    @property
    def total_mem_gb(self) -> float:
        return self.mem_gb_per_device * self.devices


def gpu_class(gpu: Gpu) -> DeviceClass:
    """The calibration class of a GPU: GeForce-like consumer cards, workstation or datacenter."""
    if gpu.product_line in ("geforce", "radeon", "arc"):
        return "geforce"
    if gpu.product_line == "workstation":
        return "workstation"
    return "datacenter"


def _gpu_figures(gpu: Gpu, catalog: Catalog) -> tuple[float, dict[str, object], list[str]]:
    """Bandwidth, the Hardware fields of the GPU's peaks and classes, and the notes on
    peaks derived because the entry lacks them."""
    if gpu.mem_bw_gbs is None:
        raise InputError(
            f"{gpu.id}: the catalog gives no memory bandwidth, so no speed can be estimated; "
            "add its mem_bw_gbs in your catalog folder"
        )
    peaks = tensor_peaks(gpu, catalog)
    fields: dict[str, object] = {
        "tflops_per_device": peaks.fp16_tflops or gpu.fp16_packed_tflops or gpu.fp32_tflops,
        "mem_tech": memory_tech(gpu.mem_type),
        "arch": architecture(gpu.architecture),
        "vendor": gpu.vendor.lower(),
        "fp8_tflops_per_device": peaks.fp8_tflops,
        "int8_tops_per_device": peaks.int8_tops,
        "fp16_tensor_tflops_per_device": peaks.fp16_tflops,
        "derived_peaks": list(peaks.derived),
        "compute_capability": compute_capability(gpu.architecture) if gpu.vendor.lower() == "nvidia" else None,
    }
    return gpu.mem_bw_gbs, fields, list(peaks.notes)


def from_gpu(catalog: Catalog, gpu_id: str, count: int = 1) -> Hardware:
    """``count`` GPUs of one catalog model; the link between them is assumed and said so."""
    check_positive("--count", count)
    gpu = catalog.get_as(gpu_id, Gpu)
    if gpu is None:
        known = sorted(g.id for g in catalog.of_kind(Gpu))
        raise unknown("GPU", gpu_id, known, "`rackplanner catalog gpu`")
    bw, figures, assumptions = _gpu_figures(gpu, catalog)
    link_gbs: float | None = None
    link_kind = "none"
    if count > 1:
        pcie = pcie_gbs(gpu.pcie_gen, gpu.pcie_lanes)
        if gpu.nvlink_gbs and gpu.form_factor != "pcie":
            # SXM/OAM boards join every GPU through NVSwitch (or a full mesh) at the GPU's link rate.
            link_gbs, link_kind = gpu.nvlink_gbs, "NVLink"
            assumptions.append(
                f"the {gpu.form_factor.upper()} GPUs are joined by NVLink/NVSwitch "
                f"({gpu.nvlink_gbs:g} GB/s per direction)"
            )
        elif gpu.nvlink_gbs and count == 2:
            link_gbs, link_kind = gpu.nvlink_gbs, "NVLink"
            assumptions.append(
                f"assumed: the two GPUs are joined by an NVLink bridge ({gpu.nvlink_gbs:g} GB/s per direction)"
            )
        elif gpu.p2p_pcie:
            link_gbs, link_kind = pcie, "PCIe P2P"
            assumptions.append(
                f"assumed: GPUs talk PCIe P2P at PCIe {gpu.pcie_gen}.0 x{gpu.pcie_lanes} "
                f"({pcie:.1f} GB/s per direction); use --plan for the real topology"
            )
        else:
            link_gbs, link_kind = pcie / 2, "host memory"
            assumptions.append(
                f"assumed: {gpu.model} has no PCIe P2P, so GPUs exchange data through host memory "
                f"(PCIe {gpu.pcie_gen}.0 x{gpu.pcie_lanes}, half of {pcie:.1f} GB/s); use --plan for the real topology"
            )
    return Hardware(
        label=f"{count} x {gpu.label}" if count > 1 else gpu.label,
        kind="gpu",
        device_id=gpu.id,
        device_class=gpu_class(gpu),
        devices=count * gpu.gpus_per_card,
        mem_gb_per_device=gpu.vram_gb * _GIB,
        mem_bw_gbs_per_device=bw,
        link_gbs=link_gbs,
        link_kind=link_kind,
        host_link_gbs=pcie_gbs(gpu.pcie_gen, gpu.pcie_lanes),
        assumptions=assumptions,
        **figures,
    )


def cpu_tflops(cpu: Cpu) -> float | None:
    """Peak vector TFLOP/s of one socket: the catalog's figure, else cores × FLOP/cycle × clock.
    llama.cpp's CPU matrix kernels run on the vector units, so AMX tiles are not counted."""
    if cpu.peak_tflops is not None:
        return cpu.peak_tflops
    clock = cpu.boost_clock_ghz or cpu.base_clock_ghz
    if clock is None:
        return None
    if cpu.fp32_flops_per_cycle_per_core is not None:
        per_cycle = float(cpu.fp32_flops_per_cycle_per_core)
    else:
        wide = cpu.avx512 and cpu.family not in k.DOUBLE_PUMPED_AVX512_FAMILIES
        per_cycle = float(k.AVX512_FP32_FLOP_PER_CYCLE if wide else k.AVX2_FP32_FLOP_PER_CYCLE)
    return cpu.cores * per_cycle * clock / 1000


def from_cpu(
    catalog: Catalog,
    cpu_id: str,
    sockets: int = 1,
    *,
    ram_gb: float | None = None,
    mem_speed_mts: int | None = None,
    mem_channels: int | None = None,
) -> Hardware:
    """A CPU server (or Apple SoC): bandwidth = channels × MT/s × 8 bytes × sockets."""
    check_positive("--sockets", sockets)
    cpu = catalog.get_as(cpu_id, Cpu)
    if cpu is None:
        known = sorted(c.id for c in catalog.of_kind(Cpu))
        raise unknown("CPU", cpu_id, known, "`rackplanner catalog cpu`")
    if sockets > cpu.max_sockets:
        raise InputError(
            f"{cpu.model} runs in at most {cpu.max_sockets} socket(s), not {sockets}; use --sockets {cpu.max_sockets}"
        )
    assumptions: list[str] = []
    speed = cpu.mem_speed_mts if mem_speed_mts is None else min(mem_speed_mts, cpu.mem_speed_mts)
    channels = cpu.mem_channels if mem_channels is None else min(mem_channels, cpu.mem_channels)
    if channels < cpu.mem_channels:
        assumptions.append(f"the board wires {channels} of the CPU's {cpu.mem_channels} memory channels")
    bw = cpu.mem_bw_gbs if cpu.mem_bw_gbs is not None else channels * speed * 8 / 1000
    if ram_gb is None:
        if cpu.max_memory_gb is None:
            raise InputError(f"{cpu.id}: the catalog gives no maximum memory; give the machine's RAM with --ram-gb GB")
        ram_gb = cpu.max_memory_gb * sockets
        assumptions.append(f"assumed: {ram_gb:g} GB of RAM (the most the CPU takes); use --plan for the real DIMMs")
    elif cpu.max_memory_gb is not None and ram_gb > cpu.max_memory_gb * sockets:
        assumptions.append(
            f"{ram_gb:g} GB of RAM is more than {sockets} x {cpu.model} take ({cpu.max_memory_gb * sockets:g} GB, "
            "the catalog's maximum): the fit is worked out for it anyway"
        )
    ram_gb *= _GIB
    if sockets > 1:
        assumptions.append(
            "assumed: the runtime splits each layer across the sockets (tensor parallel, one share "
            "per NUMA node), so their bandwidth adds up; without NUMA-aware placement it does not"
        )
    soc = cpu.platform == "soc"
    if soc:
        usable = ram_gb * k.SOC_GPU_MEMORY_FRACTION
        assumptions.append(
            f"the GPU can use about {k.SOC_GPU_MEMORY_FRACTION:.0%} of unified memory "
            f"({usable:.0f} of {ram_gb:.0f} GB, that is {ram_gb / _GIB:.0f} GiB)"
        )
        mem_per_device = usable
    else:
        mem_per_device = max(ram_gb / sockets - k.CPU_RAM_RESERVED_GB / sockets, 0.0)
    return Hardware(
        label=f"{sockets} x {cpu.label}" if sockets > 1 else cpu.label,
        kind="soc" if soc else "cpu",
        device_id=cpu.id,
        device_class="soc" if soc else "cpu",
        devices=sockets,
        mem_gb_per_device=mem_per_device,
        mem_bw_gbs_per_device=bw,
        tflops_per_device=cpu_tflops(cpu),
        link_gbs=_socket_link_gbs(cpu) if sockets > 1 else None,
        link_kind="inter-socket link" if sockets > 1 else "none",
        host_ram_gb=ram_gb,
        host_bw_gbs=bw * sockets,
        assumptions=assumptions,
        mem_tech=memory_tech(cpu.mem_type),
        arch=chip_architecture(cpu.model, cpu.vendor) if soc else cpu.family or "unknown",
        vendor=cpu.vendor.lower(),
    )


def from_unified_system(catalog: Catalog, system_id: str) -> Hardware:
    """A unified-memory machine (Mac Studio, Strix Halo mini PC, DGX Spark) as one device."""
    system = catalog.get_as(system_id, UnifiedSystem)
    if system is None:
        known = sorted(s.id for s in catalog.of_kind(UnifiedSystem))
        raise unknown("unified-memory machine", system_id, known, "`rackplanner catalog unified-system`")
    assumptions: list[str] = []
    pool_gb = system.memory_gb * _GIB
    if system.gpu_memory_gb is not None:
        usable = system.gpu_memory_gb * _GIB
        assumptions.append(
            f"the GPU may use {system.gpu_memory_gb:g} of {system.memory_gb:g} GB "
            "(the catalog's figure; its notes say where it comes from)"
        )
    else:
        usable = pool_gb * k.SOC_GPU_MEMORY_FRACTION
        assumptions.append(
            f"assumed: the GPU can use about {k.SOC_GPU_MEMORY_FRACTION:.0%} of unified memory "
            f"({usable:.0f} of {pool_gb:.0f} GB); the catalog gives no limit for this machine"
        )
    tflops = system.gpu_fp16_tflops or system.gpu_fp32_tflops
    if system.gpu_fp16_tflops is None and system.gpu_fp32_tflops is not None:
        assumptions.append("the GPU's FP16 peak is not in the catalog: its FP32 peak is used for prefill")
    return Hardware(
        label=system.label,
        kind="soc",
        device_id=system.id,
        device_class="soc",
        devices=1,
        mem_gb_per_device=usable,
        mem_bw_gbs_per_device=system.mem_bw_gbs,
        tflops_per_device=tflops,
        host_ram_gb=pool_gb,
        host_bw_gbs=system.mem_bw_gbs,
        assumptions=assumptions,
        mem_tech=memory_tech(system.mem_type),
        arch=chip_architecture(system.chip, system.vendor),
        vendor=chip_vendor(system.chip, system.vendor),
        dies=system.gpu_dies,
    )


def board_memory_limits(machine: Machine, catalog: Catalog) -> tuple[int | None, int | None]:
    """Memory channels per socket and top DIMM speed the machine's board allows (None: not known)."""
    board = board_of(machine, catalog)
    if board is None:
        return None, None
    return board.memory_channels_per_socket, board.max_memory_speed_mts


def _socket_link_gbs(cpu: Cpu) -> float | None:
    # A UPI/xGMI lane moves about 2 bytes per transfer per direction (16 data lanes / 8).
    if cpu.inter_socket_gts and cpu.inter_socket_links:
        return cpu.inter_socket_gts * 2 * cpu.inter_socket_links
    return None


def _machine_ram(machine: Machine, catalog: Catalog) -> tuple[float | None, int | None]:
    total = 0.0
    speeds: list[int] = []
    for item in machine.memory:
        part = catalog.get_as(item.part, Memory)
        if part is not None:
            total += part.capacity_gb * item.count
            speeds.append(part.speed_mts)
    return (total or None), (min(speeds) if speeds else None)


def from_machine(machine: Machine, catalog: Catalog) -> Hardware:
    """A machine of a plan: its GPUs with the topology's links, else its CPUs and DIMMs."""
    ram_gb, dimm_mts = _machine_ram(machine, catalog)
    board_channels, board_mts = board_memory_limits(machine, catalog)
    if board_mts is not None:
        dimm_mts = min(dimm_mts, board_mts) if dimm_mts else board_mts
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    topo = derive_topology(machine, catalog)
    # A card on an empty CPU socket's lanes is not seen by the OS: it runs nothing.
    dead = set(topo.dead_slots)
    gpus = [g for g in (catalog.get_as(c.part, Gpu) for c in machine.cards if c.slot not in dead) if g is not None]
    unseen = sum(1 for c in machine.cards if c.slot in dead and catalog.get_as(c.part, Gpu) is not None)
    if not gpus:
        if cpu is None:
            raise InputError(f"machine {machine.name!r} has neither GPUs nor a CPU to estimate on; add one of them")
        return from_cpu(
            catalog, cpu.id, machine.cpu_count, ram_gb=ram_gb, mem_speed_mts=dimm_mts, mem_channels=board_channels
        )
    slowest = min(gpus, key=lambda g: (g.vram_gb, g.mem_bw_gbs or 0.0))
    bw, figures, assumptions = _gpu_figures(slowest, catalog)
    if len({g.id for g in gpus}) > 1:
        assumptions.append(f"mixed GPUs: every GPU counted as the smallest, {slowest.label}")
    if unseen:
        assumptions.append(f"{unseen} GPU card(s) on an empty CPU socket's slots not counted")
    link_gbs: float | None = None
    link_kind = "none"
    if len(gpus) > 1:
        pairs = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus]
        if pairs and all(p.code.startswith("NV") or p.via is not None for p in pairs):
            link_kind = "NVLink"
        elif pairs and all(p.p2p for p in pairs):
            link_kind = "PCIe P2P"
        else:
            link_kind = "host memory"
        if topo.ring is not None:
            link_gbs = topo.ring.bottleneck_gbs
            if topo.ring.bottleneck_hop:
                assumptions.append(
                    f"ring all-reduce bottleneck {link_gbs or 0:.1f} GB/s at {topo.ring.bottleneck_hop} ({link_kind})"
                )
    host_bw = None
    if cpu is not None:
        speed = min(dimm_mts, cpu.mem_speed_mts) if dimm_mts else cpu.mem_speed_mts
        channels = min(cpu.mem_channels, board_channels or cpu.mem_channels)
        host_bw = channels * speed * 8 / 1000 * machine.cpu_count
    return Hardware(
        label=f"{machine.name}: {len(gpus)} x {slowest.label}",
        kind="gpu",
        # Mixed GPUs are no one device model's runs.
        device_id=slowest.id if len({g.id for g in gpus}) == 1 else "",
        device_class=gpu_class(slowest),
        devices=sum(g.gpus_per_card for g in gpus),
        mem_gb_per_device=slowest.vram_gb * _GIB,
        mem_bw_gbs_per_device=bw,
        link_gbs=link_gbs,
        link_kind=link_kind,
        host_ram_gb=ram_gb * _GIB if ram_gb else None,
        host_bw_gbs=host_bw,
        host_link_gbs=min((d.gbs for d in topo.devices if d.kind == "gpu"), default=None),
        assumptions=assumptions,
        **figures,
    )
