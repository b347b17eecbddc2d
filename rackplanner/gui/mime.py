"""Drag-and-drop payloads: a catalog part from the palette, a card moved on a board, a device moved in a rack."""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData

PART_MIME = "application/x-rackplanner-part"
CARD_MIME = "application/x-rackplanner-card"


def part_mime(part_id: str) -> QMimeData:
    """Mime data for dragging a catalog part (its id); plain text too, for other apps."""
    data = QMimeData()
    data.setData(PART_MIME, part_id.encode("utf-8"))
    data.setText(part_id)
    return data


def part_from_mime(data: QMimeData) -> str | None:
    if not data.hasFormat(PART_MIME):
        return None
    return bytes(data.data(PART_MIME).data()).decode("utf-8") or None


def card_mime(machine_id: str, slot_id: str, part_id: str) -> QMimeData:
    """Mime data for moving the card in ``slot_id`` of a machine."""
    data = QMimeData()
    payload = {"machine": machine_id, "slot": slot_id, "part": part_id}
    data.setData(CARD_MIME, json.dumps(payload).encode("utf-8"))
    return data


def card_from_mime(data: QMimeData) -> dict[str, str] | None:
    if not data.hasFormat(CARD_MIME):
        return None
    try:
        payload = json.loads(bytes(data.data(CARD_MIME).data()).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict) or not all(isinstance(payload.get(k), str) for k in ("machine", "slot", "part")):
        return None
    return {k: payload[k] for k in ("machine", "slot", "part")}


DEVICE_MIME = "application/x-rackplanner-device"


def device_mime(rack_id: str, device_id: str) -> QMimeData:
    data = QMimeData()
    data.setData(DEVICE_MIME, json.dumps({"rack": rack_id, "device": device_id}).encode("utf-8"))
    return data


def device_from_mime(data: QMimeData) -> tuple[str, str] | None:
    if not data.hasFormat(DEVICE_MIME):
        return None
    try:
        payload = json.loads(bytes(data.data(DEVICE_MIME).data()).decode("utf-8"))
        return str(payload["rack"]), str(payload["device"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
