"""Desktop habits: fit and keep fitting, Help, Export and Copy image, the welcome view, dark mode, Reset layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QFileDialog
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Plan
from rackplanner.gui.app import application
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.image_export import TARGET_WIDTH_PX
from rackplanner.gui.main_window import open_window
from rackplanner.gui.theme import DARK_CANVAS, apply_theme
from rackplanner.gui.welcome import WelcomeView
from tests.conftest import EXAMPLES, REPO
from tests.guihelpers import keep, shown_window


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


HOME = EXAMPLES / "home-rig-2x3090.json"


def test_canvas_keeps_fitting_until_zoomed_and_ctrl_0_returns(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, HOME)
    canvas = window.current_canvas()
    assert isinstance(canvas, MachineCanvas) and canvas.auto_fit
    fitted = canvas.transform().m11()
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: canvas.transform().m11() > fitted * 1.2)
    window.zoom_in_action.trigger()
    assert not canvas.auto_fit
    zoomed = canvas.transform().m11()
    window.resize(1366, 768)
    qtbot.wait(20)
    assert canvas.transform().m11() == pytest.approx(zoomed)
    window.fit_action.trigger()  # Ctrl+0
    assert canvas.auto_fit and canvas.transform().m11() == pytest.approx(fitted, rel=0.02)


def test_help_menu_windows(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, HOME)
    window.about_action.trigger()
    about = window.help_window.browser.toPlainText()
    # catalog/catalog-date.txt holds the date the built-in figures were last checked.
    assert (REPO / "catalog" / "catalog-date.txt").read_text().strip() in about
    assert f"{len(catalog.parts):,} parts" in about and "rackplanner 0.1.0" in about
    window.shortcuts_action.trigger()
    shortcuts = window.help_window.browser.toPlainText()
    assert "Fit to View" in shortcuts and "Ctrl+0" in shortcuts and "Export Image" in shortcuts
    window.guide_action.trigger()
    assert "Set up" in window.help_window.browser.toPlainText()


def test_export_and_copy_image(qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    window = shown_window(qtbot, tmp_path, catalog, HOME)
    png, svg = tmp_path / "board.png", tmp_path / "diagram.svg"
    answers = iter([(str(png), "PNG image (*.png)"), (str(svg), "SVG drawing (*.svg)")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: next(answers))
    window.export_image_action.trigger()
    image = QImage(str(png))
    assert image.width() == pytest.approx(TARGET_WIDTH_PX, abs=2) and image.height() > 500
    window.export_diagram_image_action.trigger()
    text = svg.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "GeForce RTX 3090" in text
    window.copy_image_action.trigger()
    copied = QGuiApplication.clipboard().image()
    assert copied.width() == image.width() and copied.height() == image.height()


def test_welcome_view_opens_an_example_as_untitled(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, None)
    welcome = window.tabs.currentWidget()
    assert isinstance(welcome, WelcomeView) and window.tabs.tabText(0) == "Welcome"
    # The four plans in resources/examples, the home rig first.
    assert [p.name for p in welcome.example_buttons] == [
        "home-rig-2x3090.json",
        "sys-4028gr-trt2-8gpu.json",
        "colo-rack.json",
        "teaching-mistakes.json",
    ]
    welcome.example_buttons[HOME].click()
    assert [m.name for m in window.document.plan.machines] == ["Home rig"]
    assert window.document.path is None  # Save asks where: the example is not overwritten
    assert isinstance(window.current_canvas(), MachineCanvas)


def test_dark_mode_colours_the_window_and_dims_the_canvas(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    app = application()
    window = shown_window(qtbot, tmp_path, catalog, HOME)
    canvas = window.current_canvas()
    assert canvas is not None
    try:
        assert apply_theme(app, dark=True)
        qtbot.wait(10)
        assert QApplication.palette().window().color().lightness() < 60
        assert canvas.backgroundBrush().color().name() == DARK_CANVAS
    finally:
        apply_theme(app, dark=False)
    qtbot.wait(10)
    assert QApplication.palette().window().color().lightness() > 180
    assert canvas.backgroundBrush().color().name() == "#eef1f4"


def test_reset_layout_and_the_layout_kept_per_user(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, HOME)
    qtbot.waitUntil(lambda: "CapacityDock" in window.docks)
    findings, diagram = window.docks["FindingsDock"], window.docks["BlockDiagramDock"]
    findings.hide()
    diagram.setFloating(True)
    window.reset_layout_action.trigger()
    assert findings.isVisible() and not diagram.isFloating()
    # Closed with the network dock hidden, the next window (same settings file) opens without it.
    window.docks["NetworkDock"].close()
    window.document.undo_stack.setClean()
    window.close()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    again = open_window(catalog, Plan(name="Empty"), None, settings)
    keep(qtbot, again)
    again.show()
    qtbot.waitUntil(lambda: "NetworkDock" in again.docks)
    assert not again.docks["NetworkDock"].isVisible()
    assert again.docks["FindingsDock"].isVisible()
