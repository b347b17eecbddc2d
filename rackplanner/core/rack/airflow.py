"""Which way air goes through each device of a rack, and the devices that blow the wrong way.

A rack is taken to stand with its front on the cold aisle, as racks in hot/cold-aisle rooms do:
every device should draw air in at the rack's front and blow it out at the rear. A device mounted
facing the rear is turned round, so a switch mounted ports-to-the-rear needs air to enter at its
power side and leave at its ports: NVIDIA's "P2C" (power-to-connector, part numbers ending in F,
e.g. MSN2700-CS2F), Arista's "-R" (rear-to-front) models. Where the catalog does not give a
device's airflow the finding says so: not checked.
"""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch, RackDevice, rack_airflow
from rackplanner.core.findings import RackFindings
from rackplanner.core.plan.model import MountedDevice, Plan
from rackplanner.core.plan.resolve import chassis_of

# Rack-relative directions that put exhaust out of the rack's front, into the cold aisle.
_INTO_COLD_AISLE = ("rear-to-front", "side-to-front")
_SIDEWAYS = ("left-to-right", "right-to-left", "front-to-side")


def device_airflow(device: MountedDevice, plan: Plan, catalog: Catalog) -> str | None:
    """The device's airflow relative to its own front, from its part or its machine's case (None: unknown)."""
    if device.machine is not None:
        machine = plan.machine(device.machine)
        chassis = chassis_of(machine, catalog) if machine else None
        return chassis.airflow if chassis else None
    part = catalog.get(device.part or "")
    return part.airflow if isinstance(part, (NetworkSwitch, RackDevice)) else None


def check_airflow(devices: list[tuple[str, str, str | None, str, bool]], found: RackFindings) -> None:
    """Findings for the ``(device id, name, own airflow, mounted face, is a switch)`` of each device that moves air."""
    unknown = [(device_id, name) for device_id, name, own, _, _ in devices if own is None]
    for device_id, name, own, face, is_switch in devices:
        in_rack = rack_airflow(own, face)
        if in_rack in _INTO_COLD_AISLE:
            turned = f"mounted facing the rear, its {own} airflow" if own != in_rack else f"its {own} airflow"
            remedy = (
                "Order the model with the other airflow (ports to the rear need power-to-connector: NVIDIA "
                "P2C, Arista -R; ports to the front need connector-to-power: NVIDIA C2P, Arista -F) or turn it round."
                if is_switch
                else "Mount it facing the front."
            )
            found.add(
                "warning",
                "airflow-into-cold-aisle",
                f"{name}: {turned} blows hot air out of the rack's front into the cold aisle, where the "
                f"other devices draw in. {remedy}",
                [device_id],
            )
        elif in_rack in _SIDEWAYS:
            found.add(
                "info",
                "airflow-sideways",
                f"{name} moves air {in_rack}; in a front-to-rear rack it needs a side-to-rear air duct "
                "or baffle so its exhaust does not reach its neighbours' intakes.",
                [device_id],
            )
    if unknown:
        names = [name for _, name in unknown[:6]] + ([f"{len(unknown) - 6} more"] if len(unknown) > 6 else [])
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        found.add(
            "info",
            "airflow-unknown",
            f"Airflow of {listed} is not in the catalog, so whether {'it blows' if len(unknown) == 1 else 'they blow'} "
            "hot air into the cold aisle is not checked.",
            [device_id for device_id, _ in unknown],
        )
