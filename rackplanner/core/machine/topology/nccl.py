"""What NCCL makes of a GPU pair or a GPU and a NIC: P2P or not, and over what.

The rules follow NCCL 2.23 and later, ``src/graph/paths.cc``:

- ``ncclTopoCheckP2p``: P2P is used when the pair's path type is no further than the P2P
  level. The level is PXB by default (no P2P through a CPU host bridge), SYS on AMD x86
  hosts with at most two GPUs, and whatever ``NCCL_P2P_LEVEL`` says (``NCCL_P2P_DISABLE=1``
  is level LOC). A pair that passes is then checked with NVML's P2P status, which is
  "not supported" on product lines whose driver does not enable PCIe P2P (GeForce) and
  with the IOMMU translating DMA.
- ``ncclTopoComputePaths``: two GPUs without their own NVLink that both reach a third GPU
  over NVLink use path type NVB, P2P through that GPU, unless ``NCCL_NVB_DISABLE=1``.
- NCCL's path types differ from ``nvidia-smi``'s in one place: ``nvidia-smi`` NODE (two
  host bridges of one NUMA node) is NCCL's PHB.
- ``ncclTopoCheckGdr``: GPUDirect RDMA is used up to ``NCCL_NET_GDR_LEVEL``, PXB by default.

Where P2P is not used, NCCL moves the data through host memory (the SHM transport).
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog.parts import Gpu, Nic
from rackplanner.core.plan.model import HostSettings

# NCCL's path types, nearest first (paths.cc, topoPathTypeStr).
NCCL_RANK: dict[str, int] = {"LOC": 0, "NVL": 1, "NVB": 2, "PIX": 3, "PXB": 4, "PHB": 5, "SYS": 6}
# nvidia-smi's class of a PCIe path -> NCCL's path type.
_NCCL_TYPE = {"PIX": "PIX", "PXB": "PXB", "PHB": "PHB", "NODE": "PHB", "SYS": "SYS"}


@dataclass(frozen=True)
class PairVerdict:
    # Whether the GPUs exchange data directly (NCCL's P2P transport), not through host memory.
    p2p: bool
    note: str
    nccl: str
    # The NCCL environment variable (and value) that would change this verdict, and why.
    advice: str | None = None
    # The GPU NCCL relays through over NVLink (its NVB path), when it does.
    via: str | None = None


def p2p_level(host: HostSettings, *, amd_host: bool, gpu_count: int) -> tuple[str, str]:
    """NCCL's P2P level for this machine and where it comes from."""
    if host.nccl_p2p_disable:
        return "LOC", "NCCL_P2P_DISABLE=1"
    if host.nccl_p2p_level is not None:
        return host.nccl_p2p_level, f"NCCL_P2P_LEVEL={host.nccl_p2p_level}"
    if amd_host and gpu_count <= 2:
        return "SYS", "NCCL's default on AMD hosts with two GPUs or fewer"
    return "PXB", "NCCL's default"


def gpu_pair_verdict(
    part_a: object,
    part_b: object,
    pcie: str,
    *,
    nvlink: bool,
    via: str | None,
    host: HostSettings,
    amd_host: bool,
    gpu_count: int,
    same_socket: bool = True,
) -> PairVerdict:
    """P2P and NCCL's transport between two GPUs: ``pcie`` is nvidia-smi's PCIe class, ``via`` an NVB peer."""
    level, why = p2p_level(host, amd_host=amd_host, gpu_count=gpu_count)
    path = "NVL" if nvlink else ("NVB" if via is not None and not host.nccl_nvb_disable else _NCCL_TYPE[pcie])
    if path in ("NVL", "NVB"):
        if NCCL_RANK[path] > NCCL_RANK[level]:
            return PairVerdict(
                True,
                f"NVLink, but NCCL stops P2P at {level} ({why})",
                "SHM through host memory",
                "unset NCCL_P2P_LEVEL and NCCL_P2P_DISABLE to use NVLink",
            )
        if path == "NVL":
            return PairVerdict(True, "NVLink", "NVLink")
        return PairVerdict(True, f"NVLink through {via}", f"P2P over NVLink through {via} (NVB)", via=via)
    blocked = sorted({p.model for p in (part_a, part_b) if isinstance(p, Gpu) and not p.p2p_pcie})
    hardware, note = _pcie_p2p(pcie, blocked, host, same_socket=same_socket)
    if NCCL_RANK[path] > NCCL_RANK[level]:
        advice = None
        if hardware and level == "PXB" and path == "PHB":
            advice = (
                "NCCL_P2P_LEVEL=SYS lets NCCL use P2P through the host bridge; measure with "
                "p2pBandwidthLatencyTest first, as not every root complex forwards peer traffic at full speed"
            )
        return PairVerdict(False, f"{note}; NCCL stops P2P at {level} ({why})", _shm(pcie), advice)
    if not hardware:
        return PairVerdict(False, note, _shm(pcie))
    if host.acs and path in ("PIX", "PXB"):
        return PairVerdict(
            True,
            "ACS redirects peer traffic up to the root complex",
            "P2P over PCIe, through the root (ACS)",
            "disable ACS in the BIOS (or with setpci) for P2P below the switch; if jobs hang, NCCL_P2P_DISABLE=1",
        )
    return PairVerdict(True, note, "P2P over PCIe")


def _pcie_p2p(pcie: str, blocked: list[str], host: HostSettings, *, same_socket: bool) -> tuple[bool, str]:
    """Whether the driver allows PCIe P2P between the pair, and what the path is."""
    if blocked and not host.p2p_driver:
        return False, f"{' and '.join(blocked)}: this product line does not enable PCIe P2P"
    if host.iommu:
        return False, "the IOMMU translates DMA: the driver reports P2P as not supported (boot with iommu=pt)"
    if pcie == "SYS":
        return (
            True,
            "the path crosses between NUMA nodes of one socket"
            if same_socket
            else "the path crosses the inter-socket link",
        )
    if pcie == "NODE":
        return True, "the path crosses between root complexes"
    if pcie == "PHB":
        return True, "through the CPU's host bridge: works where the platform routes peer traffic"
    return True, f"PCIe P2P through {'one switch' if pcie == 'PIX' else 'switches'}"


def _shm(pcie: str) -> str:
    return "SHM across sockets" if pcie == "SYS" else "SHM through host memory"


def gpu_nic_verdict(gpu: object, nic: object, pcie: str, host: HostSettings) -> PairVerdict:
    """GPUDirect RDMA between a GPU and a NIC as NCCL decides it (level PXB by default)."""
    if not isinstance(nic, Nic) or not nic.rdma:
        return PairVerdict(False, "the NIC does not do RDMA", "sockets through host memory")
    if isinstance(gpu, Gpu) and not gpu.p2p_pcie and not host.p2p_driver:
        return PairVerdict(
            False, f"{gpu.model}: GPUDirect RDMA is not enabled on this product line", "RDMA via host memory"
        )
    if host.iommu:
        return PairVerdict(False, "the IOMMU translates DMA (boot with iommu=pt)", "RDMA via host memory")
    path = _NCCL_TYPE[pcie]
    if NCCL_RANK[path] <= NCCL_RANK["PXB"]:
        return PairVerdict(True, "GPUDirect RDMA", "GPUDirect RDMA")
    return PairVerdict(
        False,
        f"the NIC is {pcie} from the GPU (NCCL uses GPUDirect RDMA only at PXB or closer)",
        "RDMA via host memory",
        "NCCL_NET_GDR_LEVEL=PHB allows GPUDirect RDMA through the host bridge, where the platform supports it",
    )
