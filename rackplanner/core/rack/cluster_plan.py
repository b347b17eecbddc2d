"""A GPU training cluster as one plan: DGX H100 nodes in rows of racks with their rail-optimized fabric.

Laid out as NVIDIA's DGX SuperPOD reference architecture describes it: scalable units of 32 nodes,
four DGX H100 per rack, each unit's rail leaves (one QM9700 per rail) in a network rack beside its
eight compute racks. Spine and core switches stand in network rows in the middle of the hall, so
no link runs the whole hall's length. The switch counts come from ``size_fat_tree``. Deterministic
(no randomness): the same arguments give the same plan. Used by the benchmark and the tests.
"""

from __future__ import annotations

import math

from rackplanner.core.plan.model import Feed, Machine, MountedDevice, PartCount, PlacedCard, Plan, Rack, Row
from rackplanner.core.rack.fat_tree import FatTree, size_fat_tree

SERVER = "nvidia-dgx-h100"
GPU = "h100-sxm"
GPU_SLOTS = tuple(f"sxm{n}" for n in range(1, 9))
# One single-port 400 Gb/s NDR ConnectX-7 per GPU, behind the GPU's own PCIe switch: the rails.
RAIL_NIC = "connectx-7-mcx75310aas-neat"
NIC_SLOTS = tuple(f"nic{n}" for n in range(8))
CPU = "xeon-platinum-8480-plus"
# 2 TB of DDR5 as the DGX H100 ships: 32 x 64 GB RDIMMs.
DIMM = "micron-mtc40f2046s1rc48ba1"
DIMM_COUNT = 32
RACK = "conteg-ri7-48-60-120"
PDU = "apc-ap8886"
FABRIC_SWITCH = "nvidia-qm9700"
FABRIC_RADIX = 64
MANAGEMENT = "nvidia-sn2201"
SERVERS_PER_RACK = 4
SERVER_HEIGHT_U = 8
UNITS_PER_ROW = 2
SWITCHES_PER_NETWORK_RACK = 40
MANAGEMENT_U = 48
# One 0U PDU per side, on feeds A and B: what the rack's side channels hold (catalog default).
# Six PSUs per DGX H100 split over them; four DGX (about 8.1 kW each at the wall) are more than
# one AP8886 carries derated (22 kW at 32 A, 17.6 kW at 80%) when the other feed fails, which the
# power findings say: a 4-DGX rack needs 60 A PDUs or more 0U channels, as the SuperPOD guide plans.
PDUS_PER_SIDE = 1


def generate_cluster(servers: int = 2048, *, name: str | None = None) -> Plan:
    """``servers`` DGX H100 (8 GPUs each) with the leaf, spine and core switches of their fat tree."""
    if servers < 1:
        raise ValueError("a cluster needs at least one server")
    tree = size_fat_tree(servers, len(NIC_SLOTS), FABRIC_RADIX)
    builder = _Builder()
    per_unit = tree.nodes_per_unit
    units = math.ceil(servers / per_unit)
    rows = math.ceil(units / UNITS_PER_ROW)
    spine_rows_at = rows // 2  # network rows go in the middle of the hall
    node = 0
    for row in range(rows):
        if row == spine_rows_at:
            builder.network_rows(tree)
        first_unit = row * UNITS_PER_ROW
        # In three tiers, a pod is the units whose leaves share spines: say which pod a row is in.
        pod = f" (pod {first_unit * tree.rails // tree.leaves_per_pod + 1})" if len(tree.tiers) == 3 else ""
        row_id = builder.row(f"row-{row + 1:02d}", f"Row {row + 1}{pod}")
        for unit in range(row * UNITS_PER_ROW, min(units, (row + 1) * UNITS_PER_ROW)):
            in_unit = min(per_unit, servers - node)
            builder.leaf_rack(row_id, unit, tree.rails if tree.tier("spine") else 1)
            for first in range(0, in_unit, SERVERS_PER_RACK):
                builder.compute_rack(row_id, unit, node + first, min(SERVERS_PER_RACK, in_unit - first))
            node += in_unit
    if rows <= spine_rows_at:
        builder.network_rows(tree)
    return Plan(
        name=name or f"Training cluster: {servers:,} DGX H100, {servers * len(GPU_SLOTS):,} GPUs",
        machines=builder.machines,
        rows=builder.rows,
        racks=builder.racks,
        feeds=[
            Feed(id="feed-a", name="Feed A", side="A", phases=3, voltage_v=400, breaker_a=32),
            Feed(id="feed-b", name="Feed B", side="B", phases=3, voltage_v=400, breaker_a=32),
        ],
    )


class _Builder:
    def __init__(self) -> None:
        self.machines: list[Machine] = []
        self.racks: list[Rack] = []
        self.rows: list[Row] = []

    def row(self, row_id: str, name: str) -> str:
        self.rows.append(Row(id=row_id, name=name))
        return row_id

    def _rack(self, rack_id: str, name: str, row_id: str, devices: list[MountedDevice]) -> None:
        devices.append(MountedDevice(id="mgmt", name="Management switch", part=MANAGEMENT, position_u=MANAGEMENT_U,
                                     face="rear"))  # fmt: skip
        for n in range(PDUS_PER_SIDE):
            for side, feed in (("left", "a"), ("right", "b")):
                devices.append(
                    MountedDevice(
                        id=f"pdu-{feed}{n + 1}",
                        name=f"PDU {feed.upper()}{n + 1}",
                        part=PDU,
                        side=side,
                        face="rear",
                        feed=f"feed-{feed}",
                    )
                )
        self.racks.append(Rack(id=rack_id, name=name, part=RACK, row=row_id, devices=devices))

    def compute_rack(self, row_id: str, unit: int, first_node: int, count: int) -> None:
        devices = []
        for n in range(count):
            node = first_node + n
            machine_id = f"node-{node + 1:04d}"
            cards = [PlacedCard(slot=slot, part=GPU) for slot in GPU_SLOTS]
            cards += [PlacedCard(slot=slot, part=RAIL_NIC, network="compute") for slot in NIC_SLOTS]
            self.machines.append(
                Machine(
                    id=machine_id,
                    name=f"DGX {node + 1}",
                    server=SERVER,
                    cpu=CPU,
                    cpu_count=2,
                    memory=[PartCount(part=DIMM, count=DIMM_COUNT)],
                    cards=cards,
                )
            )
            devices.append(
                MountedDevice(
                    id=machine_id,
                    name=f"DGX {node + 1}",
                    machine=machine_id,
                    position_u=1 + n * SERVER_HEIGHT_U,
                )
            )
        rack_number = first_node // SERVERS_PER_RACK + 1
        self._rack(f"su{unit + 1:02d}-rack-{rack_number:03d}", f"SU {unit + 1} compute {rack_number}", row_id, devices)

    def leaf_rack(self, row_id: str, unit: int, leaves: int) -> None:
        devices = [
            _switch(f"leaf-{rail + 1}", f"SU {unit + 1} rail {rail + 1} leaf", 1 + rail) for rail in range(leaves)
        ]
        self._rack(f"su{unit + 1:02d}-leaves", f"SU {unit + 1} leaves", row_id, devices)

    def network_rows(self, tree: FatTree) -> None:
        """Spines, then cores, 40 to a rack, in a row of their own."""
        switches = [(role, n) for role in ("spine", "core") if (tier := tree.tier(role)) for n in range(tier.switches)]
        if not switches:
            return
        row_id = self.row("row-network", "Network row")
        for first in range(0, len(switches), SWITCHES_PER_NETWORK_RACK):
            chunk = switches[first : first + SWITCHES_PER_NETWORK_RACK]
            number = first // SWITCHES_PER_NETWORK_RACK + 1
            devices = [
                _switch(f"{role}-{n + 1}", f"{role.capitalize()} {n + 1}", 1 + i) for i, (role, n) in enumerate(chunk)
            ]
            self._rack(f"network-{number:02d}", f"Network {number}", row_id, devices)


def _switch(device_id: str, name: str, position_u: int) -> MountedDevice:
    """A fabric switch mounted ports to the rear (its power side, where P2C air enters, faces the cold aisle)."""
    return MountedDevice(id=device_id, name=name, part=FABRIC_SWITCH, position_u=position_u, face="rear")
