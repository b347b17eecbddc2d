"""What a device's faces show: its drive bays, and which way air flows through it.

Airflow uses NetBox's vocabulary, relative to the device's own front. A switch's front is its port
side, so NVIDIA's "C2P" (connector-to-power) is front-to-rear and "P2C" (power-to-connector, blue
handles) is rear-to-front, as NVIDIA's switch manuals spell them out ("Air Flow" in the SN3000 and
SN4000 hardware user manuals). ``None`` means no source gives it; a part sold in both directions
under one name stays ``None``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rackplanner.core.catalog.parts.base import Frozen

Airflow = Literal[
    "front-to-rear",
    "rear-to-front",
    "left-to-right",
    "right-to-left",
    "side-to-rear",
    "rear-to-side",
    "passive",
    "mixed",
]
BaySize = Literal["2.5-inch", "3.5-inch", "e1.s", "e3.s", "m.2", "5.25-inch"]

# The face of each bay size as a carrier shows it, width x height in mm, lying flat. Figures from the
# SFF form-factor specifications: SFF-8201 (2.5-inch, 69.85 x 15 mm at its tallest), SFF-8301
# (3.5-inch, 101.6 x 26.1 mm), SFF-TA-1006 (E1.S, 33.75 x 9.5 mm at the 9.5 mm pitch), SFF-TA-1008
# (E3.S, 76 x 7.5 mm), SFF-8551 (5.25-inch, 146 x 41.3 mm). An M.2 slot is internal: no face.
BAY_FACE_MM: dict[str, tuple[float, float]] = {
    "2.5-inch": (69.85, 15.0),
    "3.5-inch": (101.6, 26.1),
    "e1.s": (33.75, 9.5),
    "e3.s": (76.0, 7.5),
    "5.25-inch": (146.0, 41.3),
}


class DriveBays(Frozen):
    """A group of alike drive bays on one face of a device."""

    count: int = Field(ge=1, le=512)
    size: BaySize | None = None
    face: Literal["front", "rear", "internal"] = "front"
    hot_swap: bool | None = None


def rack_airflow(airflow: str | None, face: str) -> str | None:
    """The device's airflow as seen from the rack's front: a device mounted facing the rear is turned round."""
    if airflow is None or face == "front":
        return airflow
    turned = {
        "front-to-rear": "rear-to-front",
        "rear-to-front": "front-to-rear",
        "left-to-right": "right-to-left",
        "right-to-left": "left-to-right",
        "side-to-rear": "side-to-front",
        "rear-to-side": "front-to-side",
    }
    return turned.get(airflow, airflow)
