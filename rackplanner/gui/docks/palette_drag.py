"""The picture a part dragged out of the palette shows under the cursor.

A GPU or NIC is drawn as the board draws it, to scale: a card as long as ``length_mm`` and as
wide as its slots, with its bracket, cooler and power plugs, its name on a label above it.
Other parts are a rounded tile in their kind's colour, with their name and key figure.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPen, QPixmap

from rackplanner.core.catalog.figures import UNKNOWN, key_figures
from rackplanner.core.catalog.parts import Gpu, Nic, Part
from rackplanner.draw.board import BOARD_FILL, CARD_COLOURS, DEFAULT_CARD_LENGTH_MM, SLOT_PITCH_MM
from rackplanner.draw.card_art import card_look, paint_card_details
from rackplanner.draw.rack import KIND_COLOURS as RACK_COLOURS
from rackplanner.gui.docks.palette_spec import KIND_NAMES

# Pixels per millimetre of a dragged card: a 313 mm three-slot card is about 180 x 37 px.
CARD_PX_PER_MM = 0.58
# A half-length card (PCIe CEM), drawn for a NIC whose length the catalog lacks.
DEFAULT_NIC_LENGTH_MM = 167.65
DEFAULT_GPU_SLOTS = 2
TILE_SIZE_PX = (160.0, 44.0)
LABEL_HEIGHT_PX = 16.0
EDGE = QColor("#10233f")
LABEL_FILL = QColor(20, 24, 31, 215)

# The board's and the rack's colours where they have one, so a part looks the same once dropped.
KIND_COLOURS: dict[str, QColor] = {
    "gpu": CARD_COLOURS["gpu"],
    "nic": CARD_COLOURS["nic"],
    "drive": CARD_COLOURS["drive"],
    "server": RACK_COLOURS["server"],
    "switch": RACK_COLOURS["switch"],
    "pdu": RACK_COLOURS["pdu"],
    "rack-device": RACK_COLOURS["rack-device"],
    "board": BOARD_FILL,
    "cpu": QColor("#6b7480"),
    "memory": QColor("#3f8f5a"),
    "pcie-switch": QColor("#8a6ec8"),
    "nvlink-bridge": QColor("#a5820f"),
    "chassis": QColor("#555d68"),
    "psu": QColor("#b5651d"),
    "rack": QColor("#3b4250"),
    "llm": QColor("#b0476e"),
}


def part_pixmap(part: Part, ratio: float = 1.0) -> QPixmap:
    """A small picture of the part for the drag cursor (``ratio``: the screen's device pixel ratio)."""
    if isinstance(part, Gpu | Nic) and not (isinstance(part, Gpu) and part.form_factor != "pcie"):
        return _card_pixmap(part, ratio)
    return _tile_pixmap(part, ratio)


def _canvas(width: float, height: float, ratio: float) -> tuple[QPixmap, QPainter]:
    pixmap = QPixmap(max(1, round(width * ratio)), max(1, round(height * ratio)))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    return pixmap, painter


def _small_font(bold: bool = False) -> QFont:
    font = QFont()
    font.setPointSizeF(8.0)
    font.setBold(bold)
    return font


def _card_pixmap(part: Gpu | Nic, ratio: float) -> QPixmap:
    """The card's footprint to scale under a label with its name; a guessed size is outlined dashed."""
    default_length = DEFAULT_CARD_LENGTH_MM if isinstance(part, Gpu) else DEFAULT_NIC_LENGTH_MM
    length_mm = part.length_mm or default_length
    slots = part.slot_width or DEFAULT_GPU_SLOTS
    guessed = part.length_mm is None or part.slot_width is None
    card_w, card_h = length_mm * CARD_PX_PER_MM, slots * SLOT_PITCH_MM * CARD_PX_PER_MM
    font = _small_font(bold=True)
    name_w = QFontMetrics(font).horizontalAdvance(part.model) + 10
    # Room on the left for the bracket, which reaches past the card's footprint.
    bracket = 4.0 * CARD_PX_PER_MM + 1
    width = max(card_w + bracket + 1, min(name_w, 220.0))
    pixmap, painter = _canvas(width, LABEL_HEIGHT_PX + 2 + card_h + 2, ratio)
    _label(painter, QRectF(0, 0, width, LABEL_HEIGHT_PX), part.model, font)
    painter.save()
    painter.translate(bracket, LABEL_HEIGHT_PX + 3)
    painter.scale(CARD_PX_PER_MM, CARD_PX_PER_MM)
    footprint = QRectF(0, 0, length_mm, slots * SLOT_PITCH_MM - 2)
    pen = QPen(EDGE, 1.2 / CARD_PX_PER_MM)
    if guessed:
        pen.setStyle(Qt.PenStyle.DashLine)
    painter.setPen(pen)
    painter.setBrush(QBrush(KIND_COLOURS[part.kind]))
    painter.drawRoundedRect(footprint, 2.5, 2.5)
    # Drawn at the board's detail level, so the stencil (fans, fins, plugs) shows at this size.
    paint_card_details(painter, footprint, card_look(part), lod=1.0)
    painter.restore()
    painter.end()
    return pixmap


def _tile_pixmap(part: Part, ratio: float) -> QPixmap:
    """A rounded tile in the kind's colour: the model in bold, under it the kind and first key figure."""
    width, height = TILE_SIZE_PX
    pixmap, painter = _canvas(width, height, ratio)
    body = QRectF(0.5, 0.5, width - 1, height - 1)
    painter.setPen(QPen(EDGE, 1))
    painter.setBrush(QBrush(KIND_COLOURS.get(part.kind, QColor("#7d6bb3"))))
    painter.drawRoundedRect(body, 6, 6)
    text = body.adjusted(8, 4, -8, -4)
    painter.setPen(QColor("white"))
    bold = _small_font(bold=True)
    painter.setFont(bold)
    metrics = QFontMetrics(bold)
    align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
    painter.drawText(text, align, metrics.elidedText(part.model, Qt.TextElideMode.ElideRight, int(text.width())))
    label, figure = next(((k, v) for k, v in key_figures(part) if v != UNKNOWN), ("", ""))
    if figure.replace(",", "").replace(".", "").isdigit():
        figure = f"{figure} {label}"  # a bare number needs its label: "28 cores"
    detail = " · ".join(t for t in (KIND_NAMES.get(part.kind, part.kind), figure) if t)
    plain = _small_font()
    painter.setFont(plain)
    painter.setPen(QColor(255, 255, 255, 220))
    painter.drawText(
        text.adjusted(0, metrics.lineSpacing() + 2, 0, 0),
        align,
        QFontMetrics(plain).elidedText(detail, Qt.TextElideMode.ElideRight, int(text.width())),
    )
    painter.end()
    return pixmap


def _label(painter: QPainter, rect: QRectF, text: str, font: QFont) -> None:
    """A dark name label, readable over whatever the card is dragged across."""
    metrics = QFontMetrics(font)
    shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(rect.width() - 10))
    box = QRectF(rect.left(), rect.top(), min(rect.width(), metrics.horizontalAdvance(shown) + 10), rect.height())
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(LABEL_FILL))
    painter.drawRoundedRect(box, 4, 4)
    painter.setPen(QColor("white"))
    painter.setFont(font)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, shown)
