"""``rackplanner export`` headless in a subprocess, and File → Export BOM… in the app."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.bom import CSV_COLUMNS, build_bom
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import load_plan
from tests.conftest import EXAMPLES, REPO
from tests.guihelpers import keep, make_window
from tests.test_bom import HOME_RIG_TOTAL


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process with no display and no Qt platform chosen."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-m", "rackplanner", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def pages_and_boxes(path: Path) -> tuple[int, set[tuple[int, int]]]:
    data = path.read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", data))
    boxes = {(round(float(w)), round(float(h))) for w, h in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)}
    return pages, boxes


def test_export_headless_letter(tmp_path: Path, catalog: Catalog) -> None:
    pdf, out_csv = tmp_path / "colo.pdf", tmp_path / "colo.csv"
    result = run_cli(
        "export", str(EXAMPLES / "colo-rack.json"), "--pdf", str(pdf), "--csv", str(out_csv), "--page-size", "letter"
    )
    assert result.returncode == 0, result.stderr
    pages, boxes = pages_and_boxes(pdf)
    assert f"wrote {pdf} ({pages} pages, LETTER)" in result.stdout
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert boxes == {(612, 792)}  # US Letter, 8.5 x 11 in
    # Cover, at least one BOM page, one rack, one machine configuration, power, capacity, findings.
    assert pages >= 7
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert list(rows[0]) == list(CSV_COLUMNS)
    bom = build_bom(load_plan(EXAMPLES / "colo-rack.json", catalog), catalog)
    assert len(rows) == len(bom.lines)
    assert sum(int(r["quantity"]) for r in rows) == bom.totals.priced_units + bom.totals.unpriced_units


def test_export_json_and_csv_only(tmp_path: Path) -> None:
    out_csv = tmp_path / "home.csv"
    result = run_cli("export", str(EXAMPLES / "home-rig-2x3090.json"), "--csv", str(out_csv), "--json")
    assert result.returncode == 0, result.stderr
    assert '"csv": "' in result.stdout and '"pdf": null' in result.stdout
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    # The home rig's catalog prices, each with its file and date in test_bom.py.
    assert sum(float(r["extended_price_usd"] or 0) for r in rows) == pytest.approx(HOME_RIG_TOTAL)


def test_export_bad_input(tmp_path: Path) -> None:
    nothing = run_cli("export", str(EXAMPLES / "colo-rack.json"))
    assert nothing.returncode == 2 and "--pdf" in nothing.stderr
    # A place that cannot be written is the environment's failure (exit 1), said in one line.
    missing = run_cli("export", str(EXAMPLES / "colo-rack.json"), "--pdf", str(tmp_path / "no" / "such" / "x.pdf"))
    assert missing.returncode == 1
    folder = tmp_path / "no" / "such"
    assert missing.stderr == f"rackplanner: {folder}/x.pdf: cannot write: the folder {folder} does not exist\n"


def test_file_menu_export_bom(qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QFileDialog

    window = make_window(tmp_path, catalog, EXAMPLES / "colo-rack.json")
    keep(qtbot, window)
    target = tmp_path / "out" / "vendor"
    target.parent.mkdir()
    opened: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "PDF report (*.pdf)"))
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    action = next(a for a in file_menu.actions() if a.text() == "&Export BOM…")
    action.trigger()
    pdf, out_csv = target.with_suffix(".pdf"), target.with_suffix(".csv")
    assert pdf.exists() and out_csv.exists()
    assert opened == [str(pdf)]
    pages, boxes = pages_and_boxes(pdf)
    assert boxes == {(595, 842)}  # A4 by default
    assert window._status.text() == f"Wrote vendor.pdf ({pages} pages) and vendor.csv"
