"""Pydantic models of catalog parts, one module per family; ``PART_KINDS`` maps a kind name to its model.

- ``base``: ``Part`` and the shared types; ``devices``: GPUs, CPUs, memory, drives, NICs...
- ``boards``: boards with their PCIe layout; ``systems``: cases, PSUs, servers
- ``unified``: unified-memory machines (Apple M-series, Strix Halo, DGX Spark)
- ``rack``: racks, PDUs, switches, rack devices; ``llm``: LLM architectures
"""

from rackplanner.core.catalog.parts.base import PCIE_GBS_PER_LANE, Frozen, Generation, KebabId, Part, PcieLanes
from rackplanner.core.catalog.parts.boards import (
    BifurcationGroup,
    Board,
    Chipset,
    LaneShare,
    NvlinkWiring,
    RootComplex,
    Slot,
    SwitchOnBoard,
)
from rackplanner.core.catalog.parts.devices import Cpu, Drive, Gpu, Memory, Nic, NvlinkBridge, PcieSwitch
from rackplanner.core.catalog.parts.llm import LlmModel
from rackplanner.core.catalog.parts.panel import BAY_FACE_MM, Airflow, BaySize, DriveBays, rack_airflow
from rackplanner.core.catalog.parts.rack import (
    MOUNTABLE_PARTS,
    LineName,
    NetworkSwitch,
    OutletGroup,
    OutletType,
    Pdu,
    PortGroup,
    PowerPort,
    Rack,
    RackDevice,
)
from rackplanner.core.catalog.parts.systems import Chassis, Psu, Server
from rackplanner.core.catalog.parts.unified import UnifiedSystem

PART_KINDS: dict[str, type[Part]] = {
    cls.kind: cls
    for cls in (
        Gpu,
        Cpu,
        Memory,
        Drive,
        Nic,
        PcieSwitch,
        NvlinkBridge,
        Board,
        Chassis,
        Psu,
        Server,
        UnifiedSystem,
        Rack,
        Pdu,
        NetworkSwitch,
        RackDevice,
        LlmModel,
    )
}

__all__ = [
    "BAY_FACE_MM",
    "MOUNTABLE_PARTS",
    "PART_KINDS",
    "PCIE_GBS_PER_LANE",
    "Airflow",
    "BaySize",
    "BifurcationGroup",
    "Board",
    "Chassis",
    "Chipset",
    "Cpu",
    "Drive",
    "DriveBays",
    "Frozen",
    "Generation",
    "Gpu",
    "KebabId",
    "LaneShare",
    "LineName",
    "LlmModel",
    "Memory",
    "NetworkSwitch",
    "Nic",
    "NvlinkBridge",
    "NvlinkWiring",
    "OutletGroup",
    "OutletType",
    "Part",
    "PcieLanes",
    "PcieSwitch",
    "Pdu",
    "PortGroup",
    "PowerPort",
    "Psu",
    "Rack",
    "RackDevice",
    "RootComplex",
    "Server",
    "Slot",
    "SwitchOnBoard",
    "UnifiedSystem",
    "rack_airflow",
]
