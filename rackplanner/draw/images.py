"""A part of a scene as a picture: vector SVG or PNG bytes, for the elevation files and the app's Export image."""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QImageWriter, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

from rackplanner.core.errors import OutputError

SVG_DPI = 96  # CSS pixels: the SVG opens at the PNG's size


def scene_image(scene: QGraphicsScene, source: QRectF, px_per_unit: float, background: QColor | None = None) -> QImage:
    """``source`` rendered at ``px_per_unit`` pixels per scene unit, on white (or ``background``)."""
    size = QSize(max(1, round(source.width() * px_per_unit)), max(1, round(source.height() * px_per_unit)))
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(background or QColor(Qt.GlobalColor.white))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    try:
        scene.render(painter, QRectF(0, 0, size.width(), size.height()), source)
    finally:
        painter.end()
    return image


def scene_png(scene: QGraphicsScene, source: QRectF, px_per_unit: float, background: QColor | None = None) -> bytes:
    """``source`` as PNG bytes (see ``scene_image``)."""
    image = scene_image(scene, source, px_per_unit, background)
    out = QByteArray()
    buffer = QBuffer(out)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    if not writer.write(image):
        raise OutputError(f"the PNG could not be made: {writer.errorString()}")
    buffer.close()
    return bytes(out.data())


def scene_svg(scene: QGraphicsScene, source: QRectF, px_per_unit: float, title: str) -> bytes:
    """Vector SVG, one scene unit to one SVG unit, shown at the PNG's size."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setResolution(SVG_DPI)
    generator.setSize(QSize(round(source.width() * px_per_unit), round(source.height() * px_per_unit)))
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle(title)
    generator.setDescription("Drawn by rackplanner")
    painter = QPainter(generator)
    try:
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
    return bytes(buffer.data().data())
