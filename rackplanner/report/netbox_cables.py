"""The cables of a NetBox export: power cords to PDU outlets, PDU inlets to feeds, data cables port by port.

Port and outlet names are the ones the exported device types give (``PSU1``…, ``port1``…,
``mgmt1``…, outlets ``1``…), so NetBox finds each end once the devices exist. A machine built
from a board and a case has no ports in its case's device type: its power ports and interfaces are
made per device (``power-ports.csv``, ``interfaces.csv``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from rackplanner.core.analysis import Analysis
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.netbox.vocabulary import POWER_PORT_TYPES
from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.machine.power import machine_power
from rackplanner.core.plan.model import MountedDevice, Plan, Rack
from rackplanner.core.plan.resolve import server_of

PANEL = "Panel 1"
PDU_INLET = "Input"  # the power port to_device_type gives a PDU
Rows = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Names:
    """NetBox device names by (rack id, device id): unique per site, as NetBox wants them."""

    by_device: dict[tuple[str, str], str]

    def of(self, rack: Rack, device_id: str) -> str:
        return self.by_device[(rack.id, device_id)]


def cable_rack(plan: Plan, rack: Rack, analysis: Analysis, catalog: Catalog, names: Names, rows: Rows) -> None:
    """Every cable of one rack, into ``rows`` (power-ports, interfaces, cables, power-feed-cables)."""
    _built_machine_ports(plan, rack, catalog, names, rows)
    _power_cords(rack, analysis, catalog, names, rows["cables.csv"])
    _feed_cables(plan, rack, catalog, names, rows["power-feed-cables.csv"])
    _network(rack, analysis, catalog, names, rows)


def _built_machine_ports(plan: Plan, rack: Rack, catalog: Catalog, names: Names, rows: Rows) -> None:
    """A built machine's power ports, one per cord, each allocated the machine's wall draw (the library's
    convention: what one feed carries when the other fails)."""
    for device in rack.devices:
        machine = plan.machine(device.machine) if device.machine else None
        if machine is None or server_of(machine, catalog) is not None:
            continue
        power = machine_power(machine, catalog)
        inlet = power.inlet if power.inlet in POWER_PORT_TYPES else "other"
        for index in range(power.power_cords):
            rows["power-ports.csv"].append(
                {
                    "device": names.of(rack, device.id),
                    "name": f"PSU{index + 1}",
                    "type": inlet,
                    "allocated_draw": str(round(power.wall_max_w)),
                }
            )


def _power_cords(rack: Rack, analysis: Analysis, catalog: Catalog, names: Names, out: list[dict[str, Any]]) -> None:
    """Each power cord from a PSU to a numbered outlet of its outlet group; a cord pinned in the plan is
    labelled ``pinned`` so that reading the export back pins it again."""
    taken: dict[str, set[int]] = defaultdict(set)
    for cord in analysis.rack_power(rack.id).cords:
        pdu = _pdu_part(rack.device(cord.pdu), catalog)
        if pdu is None:
            continue
        number = _outlet_number(pdu, cord.outlet_group, cord.outlet_type, taken[cord.pdu])
        if number is None:
            continue
        out.append(
            {
                "side_a_device": names.of(rack, cord.device),
                "side_a_type": "dcim.powerport",
                "side_a_name": f"PSU{cord.psu_index + 1}",
                "side_b_device": names.of(rack, cord.pdu),
                "side_b_type": "dcim.poweroutlet",
                "side_b_name": str(number),
                "type": "power",
                "status": "planned",
                "label": "pinned" if cord.manual else "",
            }
        )


def _feed_cables(plan: Plan, rack: Rack, catalog: Catalog, names: Names, out: list[dict[str, Any]]) -> None:
    """Each PDU's input to its feed (NetBox 4.5.8 and later import a cable that ends at a power feed)."""
    feeds = {f.id: f for f in plan.feeds}
    for device in rack.devices:
        feed = feeds.get(device.feed or "")
        if feed is None or _pdu_part(device, catalog) is None:
            continue
        out.append(
            {
                "side_a_device": names.of(rack, device.id),
                "side_a_type": "dcim.powerport",
                "side_a_name": PDU_INLET,
                "side_b_power_panel": PANEL,
                "side_b_type": "dcim.powerfeed",
                "side_b_name": feed.name,
                "type": "power",
                "status": "planned",
            }
        )


def _pdu_part(device: MountedDevice | None, catalog: Catalog) -> Pdu | None:
    return catalog.get_as(device.part, Pdu) if device is not None and device.part else None


def _outlet_number(pdu: Pdu, group_id: str, outlet_type: str, taken: set[int]) -> int | None:
    """The first free outlet of ``outlet_type`` in the group, numbered as ``to_device_type`` numbers them."""
    number = 0
    for group in pdu.outlet_groups:
        for kind, count in group.outlets.items():
            for _ in range(count):
                number += 1
                if group.id == group_id and kind == outlet_type and number not in taken:
                    taken.add(number)
                    return number
    return None


def _network(rack: Rack, analysis: Analysis, catalog: Catalog, names: Names, rows: Rows) -> None:
    """The data cables, port by port; a machine's interfaces are made as they are used."""
    used: dict[str, Counter[str]] = defaultdict(Counter)  # device id -> port group -> ports used
    for run in analysis.rack_network(rack.id).cables:
        device = rack.device(run.device)
        switch = rack.device(run.switch)
        if device is None or switch is None:
            continue
        for _ in range(run.count):
            own = _device_port(device, run.network, run.speed_gbps, catalog, used[device.id])
            port = _numbered_port(getattr(catalog.get(switch.part or ""), "ports", []), run.speed_gbps, used[switch.id])
            if own is None or port is None:
                continue
            if device.machine is not None:
                rows["interfaces.csv"].append(
                    {
                        "device": names.of(rack, device.id),
                        "name": own,
                        "type": "1000base-t" if run.speed_gbps <= 1 else "other",
                        "mgmt_only": "true" if run.network == "oob" else "false",
                    }
                )
            rows["cables.csv"].append(
                {
                    "side_a_device": names.of(rack, device.id),
                    "side_a_type": "dcim.interface",
                    "side_a_name": own,
                    "side_b_device": names.of(rack, switch.id),
                    "side_b_type": "dcim.interface",
                    "side_b_name": port,
                    "status": "planned",
                    "label": run.cable[:100],
                }
            )


def _device_port(
    device: MountedDevice, network: str, speed_gbps: float, catalog: Catalog, used: Counter[str]
) -> str | None:
    if device.machine is not None:
        used[network] += 1
        return "bmc" if network == "oob" and used[network] == 1 else f"{network}-{used[network]}"
    part = catalog.get(device.part or "")
    if network == "oob":
        used["mgmt"] += 1
        return f"mgmt{used['mgmt']}"
    return _numbered_port(getattr(part, "interfaces", None) or getattr(part, "ports", []), speed_gbps, used)


def _numbered_port(groups: list[Any], speed_gbps: float, used: Counter[str]) -> str | None:
    """The next free port of the first group at least ``speed_gbps`` fast (else of any group), by its number."""
    start = 0
    candidates = []
    for index, group in enumerate(groups):
        candidates.append((group.speed_gbps < speed_gbps, index, start, group.count))
        start += group.count
    for _slower, index, first, count in sorted(candidates):
        key = f"group-{index}"
        if used[key] < count:
            used[key] += 1
            return f"port{first + used[key]}"
    return None
