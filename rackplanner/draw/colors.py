"""Named colours of the app: path classes (nearest green, farthest red), severities, links."""

from __future__ import annotations

from PySide6.QtGui import QColor

# Fill of a device by its path class to the selected GPU, in PATH_CLASSES order.
PATH_CLASSES: tuple[str, ...] = ("X", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS")
_PATH_HEX: dict[str, str] = {
    "X": "#9cc3f0",
    "NV#": "#8fdcc8",
    "PIX": "#b5e0a4",
    "PXB": "#dcea9a",
    "PHB": "#f6dc85",
    "NODE": "#f5bb7c",
    "SYS": "#ef9a9a",
}

# What each class means, for tooltips (from the legend nvidia-smi topo -m prints).
PATH_MEANING: dict[str, str] = {
    "X": "the selected device",
    "NV#": "a bonded set of # NVLinks",
    "PIX": "at most a single PCIe bridge",
    "PXB": "multiple PCIe bridges, not the host bridge",
    "PHB": "PCIe and a PCIe host bridge (the CPU)",
    "NODE": "PCIe and the link between host bridges of one NUMA node",
    "SYS": "PCIe and the link between NUMA nodes (QPI/UPI/xGMI)",
}


def path_class(code: str) -> str:
    """The legend entry of a path code: NV4 and NV12 are both 'NV#'."""
    return "NV#" if code.startswith("NV") else code


def path_color(code: str) -> QColor:
    return QColor(_PATH_HEX[path_class(code)])


SEVERITY_COLORS: dict[str, QColor] = {
    "error": QColor("#c62828"),
    "warning": QColor("#b8690f"),
    "info": QColor("#1565c0"),
}

# Diagram boxes and lines.
DEVICE_FILL = QColor("#ffffff")
SOCKET_FILL = QColor("#dde5f0")
ROOT_FILL = QColor("#e9eef5")
SWITCH_FILL = QColor("#efeaf7")
CHIPSET_FILL = QColor("#eeeeee")
NVSWITCH_FILL = QColor("#d7f2ea")
BOX_BORDER = QColor("#6b7280")
EMPTY_BORDER = QColor("#b0b5bd")
LINK = QColor("#6b7280")
TEXT = QColor("#1f2328")
MUTED_TEXT = QColor("#5f6670")
WARNING = QColor("#d35400")
NVLINK = QColor("#138a6e")
SELECTED_BORDER = QColor("#1f5fbf")
LABEL_BACKGROUND = QColor(255, 255, 255, 235)
