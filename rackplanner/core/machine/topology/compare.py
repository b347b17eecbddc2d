"""Plan against the real machine: read an ``nvidia-smi topo -m`` printout and say which cells differ and why.

The reader takes the matrix as users paste it: with or without the NIC legend (older
drivers name NIC columns ``mlx5_0`` directly), with ANSI underlines, with a P2P status
matrix (``topo -p2p``) before it, and with or without the affinity columns.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from rackplanner.core.errors import InputError
from rackplanner.core.machine.topology.lspci import PciDevice, gpus_in_bus_order, parse_lspci_tree, shared_bridge_path
from rackplanner.core.machine.topology.model import Topology

UNKNOWN_HOST_BRIDGE = "which slots share a PCIe host bridge on this board is not known (PHB or NODE)"

# A topo -m printout of a 72-GPU NVL rack is a few tens of kB; anything far larger is not one.
MAX_MATRIX_BYTES = 4_000_000

_CODE = re.compile(r"^(X|SYS|NODE|PHB|PXB|PIX|NV\d+)$")
_NAME = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\d+)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LEGEND = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_AFFINITY = re.compile(r"^[\d,\-]+$")


@dataclass
class RealTopology:
    """A matrix as ``nvidia-smi topo -m`` printed it: names in column order, cells, affinities, NIC names."""

    names: list[str]
    matrix: dict[str, dict[str, str]]
    cpu_affinity: dict[str, str] = field(default_factory=dict)
    numa_affinity: dict[str, str] = field(default_factory=dict)
    nic_names: dict[str, str] = field(default_factory=dict)  # NIC0 -> mlx5_0

    @property
    def gpus(self) -> list[str]:
        return [n for n in self.names if n.startswith("GPU")]

    @property
    def nics(self) -> list[str]:
        return [n for n in self.names if not n.startswith("GPU")]


def parse_topo_matrix(text: str, origin: str = "the matrix") -> RealTopology:
    """Read the first path-class matrix in ``text``; InputError naming ``origin`` when there is none."""
    lines = [_ANSI.sub("", line).rstrip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        header = [t for t in line.split() if _NAME.match(t)]
        if not header or header != line.split()[: len(header)]:
            continue
        found = _rows(lines[i + 1 :], header)
        if found is not None:
            real = RealTopology(names=header, matrix=found[0], cpu_affinity=found[1], numa_affinity=found[2])
            for rest in lines[i + 1 :]:
                legend = _LEGEND.match(rest)
                if legend:
                    real.nic_names[legend.group(1)] = legend.group(2)
            for name in header:
                if name.startswith("mlx"):
                    real.nic_names[name] = name
            return real
    raise InputError(f"{origin}: no nvidia-smi topo -m matrix found (a header line of GPU0 GPU1 ... and its rows)")


def _rows(
    lines: list[str], header: list[str]
) -> tuple[dict[str, dict[str, str]], dict[str, str], dict[str, str]] | None:
    matrix: dict[str, dict[str, str]] = {}
    cpu: dict[str, str] = {}
    numa: dict[str, str] = {}
    for line in lines:
        tokens = line.split()
        if not tokens or tokens[0] not in header or tokens[0] in matrix:
            break
        cells = tokens[1 : 1 + len(header)]
        if len(cells) < len(header) or not all(_CODE.match(c) for c in cells):
            return None
        matrix[tokens[0]] = dict(zip(header, cells, strict=True))
        rest = tokens[1 + len(header) :]
        if rest and _AFFINITY.match(rest[0]):
            cpu[tokens[0]] = rest[0]
            if len(rest) > 1 and (rest[1].isdigit() or rest[1] == "N/A"):
                numa[tokens[0]] = rest[1]
    return (matrix, cpu, numa) if set(matrix) == set(header) else None


@dataclass(frozen=True)
class CellDifference:
    a: str
    b: str
    plan: str
    real: str
    cause: str


@dataclass
class Comparison:
    cells: int
    agree: int
    differences: list[CellDifference]
    problems: list[str]  # devices or affinities that differ, in words
    # PHB in the machine where the plan says NODE between x16 links of a board whose host
    # bridges the catalog does not know: not a difference the plan can be held to.
    unchecked: list[CellDifference] = field(default_factory=list)
    # Such cells that an lspci -tv tree settles: the cause names the shared host bridge and slots.
    settled: list[CellDifference] = field(default_factory=list)
    # GPUk -> its PCI address and host bridge, where an lspci -tv tree was given.
    addresses: dict[str, str] = field(default_factory=dict)

    @property
    def matches(self) -> bool:
        return not self.differences and not self.problems


def read_real_machine(text: str, origin: str, tree_text: str | None = None) -> tuple[RealTopology, list[PciDevice]]:
    """The ``topo -m`` matrix in ``text`` and the ``lspci -tv`` tree in ``tree_text``, or in ``text`` when it
    holds both (an empty tree when there is none there)."""
    real = parse_topo_matrix(text, origin)
    if tree_text is not None:
        return real, parse_lspci_tree(tree_text, origin)
    try:
        return real, parse_lspci_tree(text, origin)
    except InputError:
        return real, []


def compare_topology(
    plan: Topology, real: RealTopology, numa_per_socket: int = 1, tree: list[PciDevice] | None = None
) -> Comparison:
    """Cell by cell: the plan's GPUs by number, NICs by driver name (mlx5_0) where both have one, else by number.

    With an ``lspci -tv`` tree, GPUk is the k-th NVIDIA GPU by PCI address (nvidia-smi's order), and
    the cells the catalog cannot check (which slots share a host bridge) are settled by it.
    """
    problems: list[str] = []
    placed = _gpus_in_tree(tree or [], real, problems)
    if len(plan.gpus) != len(real.gpus):
        problems.append(
            f"the plan has {len(plan.gpus)} GPUs, the machine shows {len(real.gpus)}: a card missing, a dual-GPU "
            "card, or a GPU the driver does not see"
        )
    nic_map = _nic_map(plan, real)
    if len(plan.nics) != len(real.nics):
        problems.append(
            f"the plan has {len(plan.nics)} NIC devices, the machine shows {len(real.nics)} (mlx5 shows one per "
            "port, mlx4 one per card; NICs without RDMA are not listed)"
        )
    mapping = {g: g for g in plan.gpus if g in real.matrix} | nic_map
    names = [n for n in [*plan.gpus, *plan.nics] if n in mapping]
    differences: list[CellDifference] = []
    unchecked: list[CellDifference] = []
    settled: list[CellDifference] = []
    unsure = {frozenset((p.a, p.b)) for p in plan.pairs if p.host_bridge_unknown}
    cells = agree = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            cells += 1
            mine, theirs = plan.matrix[a][b], real.matrix[mapping[a]][mapping[b]]
            if mine == theirs:
                agree += 1
                continue
            if theirs == "PHB" and frozenset((a, b)) in unsure:
                seen = _tree_settles(plan, placed, a, b, theirs)
                if seen is not None:
                    settled.append(CellDifference(a, b, mine, theirs, seen))
                else:
                    unchecked.append(CellDifference(a, b, mine, theirs, UNKNOWN_HOST_BRIDGE))
                continue
            differences.append(
                CellDifference(a, b, mine, theirs, likely_cause(plan, a, b, mine, theirs, numa_per_socket))
            )
    grouped: dict[str, list[str]] = {}
    for gpu in plan.gpus:
        dev = plan.device(gpu)
        numa = real.numa_affinity.get(gpu)
        if numa is not None and numa != "N/A" and numa != str(dev.numa_node):
            text = (
                f"NUMA node {numa} in the machine, {dev.numa_node} in the plan: "
                "the NUMA-per-socket setting (NPS/SNC) or the slot differs"
            )
            grouped.setdefault(text, []).append(gpu)
        cpus = real.cpu_affinity.get(gpu)
        if cpus is not None and dev.cpu_affinity not in ("N/A", cpus):
            smt = "," not in cpus and "," in dev.cpu_affinity
            text = f"CPU affinity {cpus} in the machine, {dev.cpu_affinity} in the plan" + (
                ": SMT is off in the machine" if smt else ": a different CPU, core count or NUMA setting"
            )
            grouped.setdefault(text, []).append(gpu)
    problems += [f"{', '.join(gpus)}: {text}" for text, gpus in grouped.items()]
    addresses = {gpu: f"{dev.address} (host bridge {dev.host_bridge})" for gpu, dev in placed.items()}
    return Comparison(
        cells=cells,
        agree=agree,
        differences=differences,
        problems=problems,
        unchecked=unchecked,
        settled=settled,
        addresses=addresses,
    )


def _gpus_in_tree(tree: list[PciDevice], real: RealTopology, problems: list[str]) -> dict[str, PciDevice]:
    """GPUk -> its device in the tree, when the tree shows as many GPUs as the matrix (else said, and none)."""
    if not tree:
        return {}
    gpus = gpus_in_bus_order(tree)
    if len(gpus) != len(real.gpus):
        problems.append(
            f"the lspci -tv tree shows {len(gpus)} NVIDIA GPUs, the matrix {len(real.gpus)}: the tree is not used"
        )
        return {}
    return {f"GPU{index}": device for index, device in enumerate(gpus)}


def _tree_settles(plan: Topology, placed: dict[str, PciDevice], a: str, b: str, theirs: str) -> str | None:
    """Why the machine prints ``theirs`` for a and b, from the tree; None when it does not show that."""
    if a not in placed or b not in placed or shared_bridge_path(placed[a], placed[b]) != theirs:
        return None
    da, db = plan.device(a), plan.device(b)
    return (
        f"lspci -tv: {a} ({placed[a].address}) and {b} ({placed[b].address}) sit under one host bridge "
        f"{placed[a].host_bridge}, so on this board {da.slot_label} and {db.slot_label} share one "
        "(the catalog does not say which slots do)"
    )


def _nic_map(plan: Topology, real: RealTopology) -> dict[str, str]:
    """Plan NIC -> real column: by driver name (mlx5_0) where both sides give it, the rest in order.

    Newer rdma-core renames devices by their PCI address (``ibp177s0f0``), so names that are
    not the driver's are matched by position.
    """
    by_os = {name: column for column, name in real.nic_names.items()}
    mapping: dict[str, str] = {}
    for nic in plan.nics:
        os_name = plan.device(nic).os_name
        if os_name is not None and os_name in by_os:
            mapping[nic] = by_os[os_name]
    left = [column for column in real.nics if column not in mapping.values()]
    for nic in plan.nics:
        if nic not in mapping and left:
            mapping[nic] = left.pop(0)
    return mapping


def likely_cause(plan: Topology, a: str, b: str, mine: str, theirs: str, numa_per_socket: int = 1) -> str:
    """The plainest reason a planned cell can differ from the real one."""
    da, db = plan.device(a), plan.device(b)
    if theirs.startswith("NV") and mine.startswith("NV"):
        return "a different number of NVLinks: check the bridge model or the GPU's NVLink count"
    if theirs.startswith("NV"):
        return "NVLink in the machine that the plan lacks: add the bridge, or choose the SXM/NVLink board"
    if mine.startswith("NV"):
        return "NVLink in the plan that the machine does not show: a bridge not seated, or a different board"
    if theirs == "SYS" and da.socket == db.socket:
        if numa_per_socket == 1:
            return "the machine splits the socket into NUMA nodes: set NUMA nodes per socket (NPS/SNC) in BIOS and OS"
        return "the NUMA split differs: check NUMA nodes per socket and the host bridges' quadrants"
    if mine == "SYS" and da.socket != db.socket:
        return "one socket in the machine, two in the plan: a card sits in another slot, or the slot-to-CPU map differs"
    if mine == "SYS":
        return "the machine has fewer NUMA nodes per socket than the plan (NPS1/SNC off)"
    if theirs == "PHB" and mine == "NODE":
        return "the machine puts both under one host bridge; the catalog gives them separate root complexes"
    if theirs == "NODE" and mine == "PHB":
        return "separate host bridges in the machine; the catalog puts them under one"
    if theirs in ("PIX", "PXB") and mine in ("PHB", "NODE"):
        return "a PCIe switch joins them in the machine (a riser or switch board the plan lacks, or other slots)"
    if mine in ("PIX", "PXB") and theirs in ("PHB", "NODE"):
        return "the plan puts them behind a switch that the machine does not have between them (other slots?)"
    if {mine, theirs} == {"PIX", "PXB"}:
        return "one switch in one, several in the other: the switch tree differs"
    return "the slots or the board layout differ"


def format_comparison(result: Comparison, origin: str) -> str:
    """The comparison as a person reads it: a count, then each differing cell grouped by its likely cause."""
    unchecked = f", {len(result.unchecked)} not checked" if result.unchecked else ""
    settled = f", {len(result.settled)} settled by lspci -tv" if result.settled else ""
    out = [f"Compared with {origin}: {result.agree} of {result.cells} cells agree{settled}{unchecked}."]
    if result.addresses:
        out.append("  GPUs by PCI bus order (lspci -tv): " + ", ".join(f"{g} {a}" for g, a in result.addresses.items()))
    for diff in result.settled:
        # The evidence is long: it goes under the cell, wrapped to the width of the other lines.
        out.append(f"  {diff.a}-{diff.b} plan {diff.plan} / real {diff.real}, settled by the tree:")
        out.append(textwrap.fill(f"{diff.cause}.", width=110, initial_indent=" " * 6, subsequent_indent=" " * 6))
    if result.unchecked:
        cells = ", ".join(f"{d.a}-{d.b} plan {d.plan} / real {d.real}" for d in result.unchecked)
        out.append(f"  Not checked ({len(result.unchecked)}): {UNKNOWN_HOST_BRIDGE}:\n      {cells}")
    out += [f"  - {p}" for p in result.problems]
    by_cause: dict[str, list[CellDifference]] = {}
    for diff in result.differences:
        by_cause.setdefault(diff.cause, []).append(diff)
    for cause, diffs in by_cause.items():
        cells = ", ".join(f"{d.a}-{d.b} plan {d.plan} / real {d.real}" for d in diffs)
        out.append(f"  {cause}:\n      {cells}")
    if result.matches:
        out.append("The plan matches the machine" + (" in every cell it can check." if result.unchecked else "."))
    return "\n".join(out) + "\n"
