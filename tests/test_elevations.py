"""Rack elevations as SVG and PNG: the PDF's drawing (same scene, same part of it), from the CLI and the File menu."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.report.drawings import Drawings
from rackplanner.report.elevations import PNG_PX_PER_MM, write_elevation, write_elevations
from tests.conftest import REPO
from tests.guihelpers import keep, make_window

EXAMPLES = REPO / "resources" / "examples"


def svg_texts(path: Path) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text(encoding="utf-8"))]


def test_svg_and_png_are_the_pdfs_drawing(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    [svg] = write_elevations(plan, catalog, tmp_path, "svg")
    [png] = write_elevations(plan, catalog, tmp_path, "png")
    assert (svg.name, png.name) == ("rack-1.svg", "rack-1.png")
    # The region the PDF prints for this rack (report.drawings), here rendered at PNG_PX_PER_MM.
    drawings = Drawings(plan, catalog)
    drawn = drawings.rack("rack-1")
    assert drawn is not None
    _scene, source = drawn
    drawings.close()
    image = QImage(str(png))
    assert (image.width(), image.height()) == (
        round(source.width() * PNG_PX_PER_MM),
        round(source.height() * PNG_PX_PER_MM),
    )
    assert f'viewBox="0 0 {source.width():g} {source.height():g}"' in svg.read_text(encoding="utf-8")
    texts = " ".join(svg_texts(svg))
    # colo-rack.json: its title, both faces, every device's label, U numbers 1..42.
    assert "Rack 1" in texts and "Front" in texts and "Rear" in texts
    for label in ("GPU 1", "GPU 4", "HDR leaf", "Management switch", "PDU A", "PDU B"):
        assert label in texts, label
    assert {str(u) for u in range(1, 43)} <= set(svg_texts(svg))


def test_export_command_writes_every_rack(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, check=False)

    plan = str(EXAMPLES / "colo-rack.json")
    done = run("export", plan, "--svg", str(tmp_path / "svg"), "--png", str(tmp_path / "png"), "--json")
    assert done.returncode == 0, done.stderr
    assert '"svg": [' in done.stdout and (tmp_path / "svg" / "rack-1.svg").exists()
    assert (tmp_path / "png" / "rack-1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # A plan with no racks has nothing to draw: said, exit 2.
    none = run("export", str(EXAMPLES / "home-rig-2x3090.json"), "--svg", str(tmp_path / "x"))
    assert none.returncode == 2 and none.stderr == "rackplanner: the plan has no racks to draw\n"
    # --svg names a folder; a file there said only "File exists".
    (tmp_path / "one.svg").write_text("")
    taken = run("export", plan, "--svg", str(tmp_path / "one.svg"))
    assert taken.returncode == 1
    assert taken.stderr.strip().endswith(
        "one.svg: each rack's elevations go into a folder, and this is a file; give a folder"
    )


def test_elevation_needs_svg_or_png(catalog: Catalog, tmp_path: Path) -> None:
    from rackplanner.core.errors import OutputError

    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    with pytest.raises(OutputError, match=r"x\.jpg: an elevation is written as \.svg or \.png"):
        write_elevation(plan, catalog, "rack-1", tmp_path / "x.jpg")


def test_file_menu_export_elevation(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    window = make_window(tmp_path, catalog, EXAMPLES / "colo-rack.json")
    keep(qtbot, window)
    target = tmp_path / "front-and-rear"
    asked: list[str] = []

    def save_name(*args: object, **kwargs: object) -> tuple[str, str]:
        asked.append(str(args[2]))
        return str(target), "PNG image (*.png)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_name)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    action = next(a for a in file_menu.actions() if a.text() == "Export E&levation…")
    action.trigger()
    assert asked == [str(EXAMPLES / "colo-rack-rack-1.svg")]  # beside the plan, named after it and the rack
    written = target.with_suffix(".png")
    assert written.read_bytes()[:4] == b"\x89PNG"
    assert window._status.text() == "Wrote the elevation of Rack 1 to front-and-rear.png"
