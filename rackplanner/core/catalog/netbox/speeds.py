"""The speed and connector of a NetBox interface type (``100gbase-x-qsfp28``, ``infiniband-hdr``), and back."""

from __future__ import annotations

import re
from typing import Any

# Data rate per port of each InfiniBand generation (4x links, Gb/s) and its usual connector.
IB_SPEED_GBPS = {
    "sdr": 10,
    "ddr": 20,
    "qdr": 40,
    "fdr10": 40,
    "fdr": 56,
    "edr": 100,
    "hdr": 200,
    "ndr": 400,
    "xdr": 800,
}
IB_CONNECTOR = {"fdr": "qsfp+", "edr": "qsfp28", "hdr": "qsfp56", "ndr": "osfp", "xdr": "osfp"}
_ETHERNET = re.compile(r"^(\d+(?:\.\d+)?)(g|m)?base-")
_CONNECTORS = ("qsfpdd", "osfp", "qsfp112", "qsfp56", "qsfp28", "qsfpp", "sfp56", "sfp28", "sfpp", "sfp", "cx4")


def interface_speed(interface: dict[str, Any]) -> tuple[float, str] | None:
    """(Gb/s, connector) of a NetBox interface; None for virtual, LAG, wireless or unknown types."""
    kind = str(interface.get("type", "")).lower()
    if kind.startswith("infiniband-"):
        generation = kind.removeprefix("infiniband-")
        if generation in IB_SPEED_GBPS:
            return float(IB_SPEED_GBPS[generation]), IB_CONNECTOR.get(generation, "qsfp")
        return None
    match = _ETHERNET.match(kind)
    if not match:
        return None
    speed = float(match.group(1)) / (1 if match.group(2) == "g" else 1000)
    connector = next((c for c in _CONNECTORS if kind.endswith(c)), "rj45" if kind.endswith("-t") else "other")
    return speed, connector


def interface_type(speed_gbps: float, connector: str, fabric: str) -> str:
    """The NetBox interface type for a port group: ``infiniband-hdr``, ``100gbase-x-qsfp28``, ``1000base-t``."""
    if fabric == "infiniband":
        generation = next((g for g, s in IB_SPEED_GBPS.items() if s == speed_gbps), "hdr")
        return f"infiniband-{generation}"
    speed = f"{speed_gbps:g}g" if speed_gbps >= 1 else f"{speed_gbps * 1000:g}"
    if speed_gbps == 1:
        speed = "1000"
    return f"{speed}base-t" if connector == "rj45" else f"{speed}base-x-{connector}"
