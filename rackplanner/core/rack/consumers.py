"""What each mounted device draws at the wall and through which inlets."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch, RackDevice
from rackplanner.core.machine.power import BTU_PER_HR_PER_W, POWER_FACTOR, machine_power
from rackplanner.core.plan.model import MountedDevice, Plan
from rackplanner.core.rack.power_model import DEFAULT_INLET, OUTLET_FOR_INLET, Consumer


def rack_consumer(device: MountedDevice, plan: Plan, catalog: Catalog) -> Consumer | None:
    if device.machine is not None:
        machine = plan.machine(device.machine)
        if machine is None:
            return None
        power = machine_power(machine, catalog)
        inlet = power.inlet
        return Consumer(
            device=device.id,
            name=device.name,
            wall_w=power.wall_max_w,
            wall_va=power.wall_max_va,
            heat_btu_hr=power.heat_max_btu_hr,
            inlets=[inlet or DEFAULT_INLET] * power.power_cords,
            inlet_assumed=inlet is None,
            psu_watts_each=power.psu.watts_each if power.psu else None,
            dc_load_w=power.dc_max_w,
        )
    part = catalog.get(device.part or "")
    if isinstance(part, NetworkSwitch):
        watts = part.power_max_w or part.power_typical_w
        return _ac_consumer(device, watts, [part.inlet] * part.psu_count)
    if isinstance(part, RackDevice):
        inlets = [p.type for p in part.power_ports if p.type in OUTLET_FOR_INLET]
        consumer = _ac_consumer(device, part.draw_w, inlets)
        consumer.unfed_inlets = [p.type for p in part.power_ports if p.type not in OUTLET_FOR_INLET]
        return consumer
    return None


def _ac_consumer(device: MountedDevice, wall_w: float | None, inlets: list[str]) -> Consumer:
    """A device whose catalog figure is already its draw at the wall (switches, NetBox devices)."""
    watts = wall_w or 0.0
    return Consumer(
        device=device.id,
        name=device.name,
        wall_w=watts,
        wall_va=watts / POWER_FACTOR,
        heat_btu_hr=watts * BTU_PER_HR_PER_W,
        inlets=inlets,
        power_known=wall_w is not None,
    )
