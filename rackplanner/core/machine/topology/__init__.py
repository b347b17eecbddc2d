"""PCIe and NVLink topology of a machine, and what follows from it.

From a machine of the plan (its board or server and the cards in its slots) this builds
the tree of sockets, root complexes, switches, chipset and slots, negotiates each card's
link, and derives what ``nvidia-smi topo -m`` would print: the path class between every
pair of GPUs and NICs, P2P and GPUDirect RDMA availability, what NCCL will use, link and
uplink bandwidths, a ring all-reduce bottleneck, NIC locality and plain-words notes.

- ``model``: the result types; ``derive``: ``derive_topology`` (cached)
- ``board_info``: a board's layout worked out once; ``devices``: cards and their links
- ``paths``: path classes and the P2P / GPUDirect / NCCL rules; ``bandwidth``: uplinks
- ``ring``: ring all-reduce; ``text``: notes and the ``topo -m`` matrix
"""

from rackplanner.core.machine.topology.board_info import check_board
from rackplanner.core.machine.topology.derive import derive_topology
from rackplanner.core.machine.topology.model import PATH_RANK, PairPath, PathCode, Topology, TopologyDevice, pcie_gbs
from rackplanner.core.machine.topology.ring import ring_allreduce, ring_order
from rackplanner.core.machine.topology.text import LEGEND, explain, format_topo_matrix, format_topology

__all__ = [
    "LEGEND",
    "PATH_RANK",
    "PairPath",
    "PathCode",
    "Topology",
    "TopologyDevice",
    "check_board",
    "derive_topology",
    "explain",
    "format_topo_matrix",
    "format_topology",
    "pcie_gbs",
    "ring_allreduce",
    "ring_order",
]
