"""The NetBox device-type library's vocabularies, read from its own schema, and what rackplanner knows of them.

The names (power port and outlet types, feed legs, interface types) come from the vendored
``netbox_schema/generated_schema.json``, never retyped. Beside them, keyed by those names, the
electrical meaning of the PDU input plugs rackplanner understands (NEMA WD 6 for locking plugs,
IEC 60309's colour and clock position for industrial ones, whose current is a housing size and is
not part of the name) and the outlets a server's cord plugs into.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "netbox_schema"
LIBRARY_COMMIT = "56ea927237535ac2f74d77a6479383982ead7740"


@cache
def schema(name: str) -> dict[str, Any]:
    """One of the library's schema files (``devicetype``, ``components``, ``generated_schema``...)."""
    data: dict[str, Any] = json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _enum(definition: str, prop: str) -> frozenset[str]:
    return frozenset(schema("generated_schema")["definitions"][definition]["properties"][prop]["enum"])


POWER_PORT_TYPES = _enum("power-port", "type")
POWER_OUTLET_TYPES = _enum("power-outlet", "type")
FEED_LEGS = _enum("power-outlet", "feed-leg")
INTERFACE_TYPES = _enum("interface", "type")


@dataclass(frozen=True)
class Plug:
    """What a PDU's input plug says: phases, wiring, voltage (line to line) and current, where it says them."""

    phases: int
    wiring: str  # single, wye or delta
    voltage_v: float | None  # None: the plug is used at several voltages
    current_a: float | None  # None: not part of the plug's name (IEC 60309 housing sizes)


PLUGS: dict[str, Plug] = {
    "nema-l5-20p": Plug(1, "single", 120, 20),
    "nema-l5-30p": Plug(1, "single", 120, 30),
    "nema-l6-20p": Plug(1, "single", None, 20),
    "nema-l6-30p": Plug(1, "single", None, 30),
    "nema-l6-50p": Plug(1, "single", None, 50),
    "nema-l14-30p": Plug(1, "single", 240, 30),
    "nema-l15-20p": Plug(3, "delta", 208, 20),
    "nema-l15-30p": Plug(3, "delta", 208, 30),
    "nema-l15-50p": Plug(3, "delta", 208, 50),
    "nema-l15-60p": Plug(3, "delta", 208, 60),
    "nema-l21-20p": Plug(3, "wye", 208, 20),
    "nema-l21-30p": Plug(3, "wye", 208, 30),
    "nema-l22-20p": Plug(3, "wye", 480, 20),
    "nema-l22-30p": Plug(3, "wye", 480, 30),
    # California-style 3-pole 4-wire grounding (Hubbell CS8365C: 50 A 250 V three-phase).
    "cs8365c": Plug(3, "delta", 208, 50),
    "cs8465c": Plug(3, "delta", 480, 50),
    # IEC 60309: 2P+E and P+N+E 6h = 200-250 V, 4h = 100-130 V; between lines 3P+E 9h = 200-250 V,
    # 3P+E 6h = 380-415 V; 3P+N+E 9h = 120/208 V and 6h = 230/400 V. The current is the housing size.
    "iec-60309-2p-e-6h": Plug(1, "single", 230, None),
    "iec-60309-2p-e-4h": Plug(1, "single", 120, None),
    "iec-60309-p-n-e-6h": Plug(1, "single", 230, None),
    "iec-60309-p-n-e-4h": Plug(1, "single", 120, None),
    # A PDU with an IEC 60320 inlet (a power strip fed by a C19-C20 cord) is single-phase, 100-250 V.
    "iec-60320-c20": Plug(1, "single", None, None),
    "iec-60320-c14": Plug(1, "single", None, None),
    "iec-60309-3p-e-9h": Plug(3, "delta", 208, None),
    "iec-60309-3p-e-6h": Plug(3, "delta", 400, None),
    "iec-60309-3p-n-e-9h": Plug(3, "wye", 208, None),
    "iec-60309-3p-n-e-6h": Plug(3, "wye", 400, None),
}

# The outlet a server's or switch's cord plugs into, by its inlet: a C14 inlet takes a C13-C14
# cord, a C20 inlet a C19-C20 cord, a C16 inlet a C15 cord (a C14 plug at the PDU end).
CORD_OUTLETS = {"iec-60320-c14": "iec-60320-c13", "iec-60320-c16": "iec-60320-c13", "iec-60320-c20": "iec-60320-c19"}
# PDU outlets rackplanner plugs cords into; combination outlets take C14 and C20 plugs alike.
USABLE_OUTLETS = ("iec-60320-c13", "iec-60320-c19", "hdot-cx", "eaton-c39", "nema-5-15r", "nema-5-20r")


def line_to_line(plug: Plug, voltage_v: float, outlet_type: str) -> bool:
    """Whether an outlet of a wye PDU is wired between two lines rather than line to neutral.

    IEC 60320 outlets take 200-250 V: on a 120/208 V wye (NEMA L21) they are wired line to line
    at 208 V; on a 230/400 V wye, line to neutral at 230 V. NEMA 5-xx outlets are 125 V, always
    line to neutral.
    """
    return plug.wiring == "wye" and voltage_v <= 250 and outlet_type.startswith(("iec-60320", "hdot", "eaton"))
