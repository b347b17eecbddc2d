"""Findings on what NCCL will do on a machine and which environment variable or BIOS setting changes it.

One finding per distinct cause, listing the GPU pairs it concerns, so an 8-GPU server with
twelve host-bridge pairs reads as one line, not twelve.
"""

from __future__ import annotations

from collections.abc import Callable

from rackplanner.core.machine.topology import Topology
from rackplanner.core.plan.model import Machine

Add = Callable[..., None]


def check_nccl(machine: Machine, topo: Topology, add: Add) -> None:
    """Pairs NCCL will not run P2P on though it could, and host settings that switch P2P or RDMA off."""
    gpu_pairs = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus]
    slot_of = {d.name: d.slot for d in topo.devices}
    by_advice: dict[str, list[tuple[str, set[str]]]] = {}
    for pair in gpu_pairs:
        if pair.advice:
            by_advice.setdefault(pair.advice, []).append(
                (f"{pair.a}-{pair.b} ({pair.code})", {slot_of[pair.a], slot_of[pair.b]})
            )
    for advice, entries in by_advice.items():
        names = [name for name, _ in entries]
        add(
            "info",
            "nccl-p2p",
            f"{_listed(names)}: NCCL moves data through host memory. {advice[0].upper()}{advice[1:]}.",
            slots=sorted(set().union(*(slots for _, slots in entries))),
        )
    gdr = [p for p in topo.pairs if p.advice and (p.a in topo.nics or p.b in topo.nics)]
    if gdr:
        first = gdr[0]
        add(
            "info",
            "nccl-gdr",
            f"{len(gdr)} GPU-NIC pair{'s' if len(gdr) > 1 else ''} ({first.a}-{first.b} {first.code} and others) "
            f"are beyond NCCL's GPUDirect RDMA level (PXB): {first.advice}.",
        )
    host = machine.host
    if host.iommu and len(topo.gpus) > 1:
        add(
            "warning",
            "iommu",
            f"{machine.name} runs with the IOMMU translating DMA: PCIe P2P and GPUDirect RDMA are off "
            "(the driver reports P2P as not supported). Boot with iommu=pt (or amd_iommu=off/intel_iommu=off) "
            "to allow them.",
        )
    below_switch = [p for p in gpu_pairs if p.code in ("PIX", "PXB")]
    if host.acs and below_switch:
        add(
            "warning",
            "acs",
            f"ACS is on in {machine.name}: P2P between the {len(below_switch)} GPU pairs that share a PCIe switch "
            "goes up to the root complex and back (slower; some platforms hang). Disable ACS in the BIOS or with "
            "setpci, or set NCCL_P2P_DISABLE=1.",
        )
    nvlinked = [p for p in gpu_pairs if p.code.startswith("NV")]
    if nvlinked and topo.p2p_level == "LOC":
        add(
            "warning",
            "nccl-p2p-disabled",
            f"{topo.p2p_level_source} keeps NCCL off the {len(nvlinked)} NVLink pairs: unset it to use NVLink.",
        )


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:4])
    return shown if len(names) <= 4 else f"{shown} and {len(names) - 4} more pairs"
