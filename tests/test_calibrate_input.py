"""`rackplanner calibrate` on a user's measurement file: a bad row is named by its line, an
empty or tiny file never replaces the shipped constants."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from rackplanner.core.capacity import fitted

DATA = Path(__file__).parent / "data"
MEASURED = DATA / "measured.csv"


def _rows(count: int) -> list[str]:
    lines = MEASURED.read_text(encoding="utf-8").splitlines()
    return lines[: count + 1]


def _calibrate(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rackplanner", "calibrate", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("column", "bad", "message"),
    [
        ("value", "0", "value: Input should be greater than 0"),
        ("value", "inf", "value: Input should be a finite number"),
        ("value", "-50", "value: Input should be greater than 0"),
        ("context", "0", "context: Input should be greater than or equal to 1"),
        ("count", "0", "count: Input should be greater than or equal to 1"),
        ("mem_mts", "-3200", "mem_mts: Input should be greater than 0"),
        ("date", "yesterday", "date: give the date as YYYY, YYYY-MM or YYYY-MM-DD"),
        ("hardware", "rtx-9999", "unknown hardware 'rtx-9999'"),
        ("model", "gpt-7", "unknown model 'gpt-7'"),
    ],
)
def test_a_bad_row_is_named_by_its_line(tmp_path: Path, column: str, bad: str, message: str) -> None:
    # These crashed the fit (a zero rate divided by) or went into the constants unnoticed.
    lines = _rows(5)
    header = lines[0].split(",")
    cells = next(csv.reader([lines[3]]))
    cells[header.index(column)] = bad
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    lines[3] = out.getvalue().rstrip("\n")
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _calibrate(path)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    line = result.stderr.strip()
    assert line.startswith(f"rackplanner: {path}: line 4") and message in line, line


def test_a_spreadsheet_csv_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(_rows(3)).encode("utf-8") + b"\n")
    result = _calibrate(path)
    assert result.returncode == 0, result.stderr
    assert "Held-out error" in result.stdout


@pytest.mark.parametrize("rows", [0, 1])
def test_write_refuses_a_tiny_file_and_keeps_the_constants(tmp_path: Path, rows: int) -> None:
    shipped = Path(fitted.__file__).parent / fitted.FITTED_FILE
    before = shipped.read_bytes()
    path = tmp_path / "tiny.csv"
    path.write_text("\n".join(_rows(rows)) + "\n", encoding="utf-8")
    result = _calibrate(path, "--write")
    assert result.returncode == 2
    assert ("no measurement rows" if rows == 0 else "--write refused: 1 points from 1 sources") in result.stderr
    assert shipped.read_bytes() == before
