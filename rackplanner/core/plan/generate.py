"""Realistic plans of any size from catalog parts, deterministic for a seed (for benchmarks and tests)."""

from __future__ import annotations

import random

from rackplanner.core.plan.model import Feed, Machine, MountedDevice, PartCount, PlacedCard, Plan, Rack, Row

# A row of 8-GPU servers as colo users build them: SYS-4028GR-TRT2 (4U) with eight PCIe
# GPUs and an HDR NIC, two Xeons and twelve RDIMMs; two 3-phase PDUs on A and B feeds, an
# HDR leaf and a management switch per rack. Every id is a catalog id.
SERVER = "sys-4028gr-trt2"
GPU_CHOICES = ("a100-80gb-pcie", "a100-40gb-pcie", "v100-32gb-pcie", "l40s")
GPU_SLOTS = tuple(f"gpu{n}" for n in range(1, 9))
NIC = ("cpu1-x8", "connectx-6-mcx653105a-hdat")
CPU = "xeon-e5-2680-v4"
DIMM = "ddr4-2400-32gb-rdimm-2rx4"
RACK = "apc-ar3300"
PDU = "apc-ap8886"
LEAF = "mellanox-qm8700"
MANAGEMENT = "nvidia-sn2201"
SERVERS_PER_RACK = 8
SERVER_HEIGHT_U = 4
ROW = Row(id="row-1", name="Row 1")


def generate_row(racks: int, *, seed: int = 0, servers_per_rack: int = SERVERS_PER_RACK) -> Plan:
    """A plan of ``racks`` racks in one row, each with ``servers_per_rack`` 8-GPU servers."""
    rng = random.Random(seed)
    machines: list[Machine] = []
    rack_list: list[Rack] = []
    feeds = [
        Feed(id="feed-a", name="Feed A", side="A", phases=3, voltage_v=400, breaker_a=32),
        Feed(id="feed-b", name="Feed B", side="B", phases=3, voltage_v=400, breaker_a=32),
    ]
    for r in range(1, racks + 1):
        devices: list[MountedDevice] = []
        for s in range(1, servers_per_rack + 1):
            machine_id = f"r{r:02d}-s{s}"
            gpu = rng.choice(GPU_CHOICES)
            limit = rng.choice((None, None, None, 250.0)) if gpu != "l40s" else None
            cards = [PlacedCard(slot=slot, part=gpu, power_limit_w=limit) for slot in GPU_SLOTS]
            cards.append(PlacedCard(slot=NIC[0], part=NIC[1]))
            machines.append(
                Machine(
                    id=machine_id,
                    name=f"Rack {r} server {s}",
                    server=SERVER,
                    cpu=CPU,
                    cpu_count=2,
                    memory=[PartCount(part=DIMM, count=12)],
                    cards=cards,
                )
            )
            devices.append(
                MountedDevice(
                    id=machine_id,
                    name=f"Server {s}",
                    machine=machine_id,
                    position_u=1 + (s - 1) * SERVER_HEIGHT_U,
                )
            )
        devices.append(MountedDevice(id="leaf", name="HDR leaf", part=LEAF, position_u=42))
        devices.append(MountedDevice(id="mgmt", name="Management switch", part=MANAGEMENT, position_u=41))
        devices.append(MountedDevice(id="pdu-a", name="PDU A", part=PDU, side="left", face="rear", feed="feed-a"))
        devices.append(MountedDevice(id="pdu-b", name="PDU B", part=PDU, side="right", face="rear", feed="feed-b"))
        rack_list.append(Rack(id=f"rack-{r:02d}", name=f"Rack {r}", part=RACK, row=ROW.id, devices=devices))
    return Plan(
        name=f"Generated row of {racks} racks (seed {seed})",
        machines=machines,
        rows=[ROW],
        racks=rack_list,
        feeds=feeds,
    )
