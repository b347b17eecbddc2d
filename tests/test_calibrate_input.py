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


def test_check_compares_a_users_rows_with_the_shipped_estimate(tmp_path: Path) -> None:
    from rackplanner.core.capacity.check_measured import check_report
    from rackplanner.core.capacity.estimate import estimate, get_model
    from rackplanner.core.capacity.hardware import from_gpu
    from rackplanner.core.catalog.loading import load_catalog

    # XiongjieDai's RTX 3090, LLaMA 3 8B Q4_K_M (tests/data/measured.csv): tg 115.42, pp512 4030.40;
    # a user's file needs only the columns a row cannot do without.
    path = tmp_path / "mine.csv"
    path.write_text(
        "point,hardware,count,model,format,runtime,batch,context,metric,value,source\n"
        "my-tg,rtx-3090,1,llama-3.1-8b,q4_k_m,llama.cpp,1,256,decode_tokens_per_s,115.42,my desk\n"
        "my-pp,rtx-3090,1,llama-3.1-8b,q4_k_m,llama.cpp,1,512,prefill_tokens_per_s,4030.40,my desk\n",
        encoding="utf-8",
    )
    catalog = load_catalog()
    hw = from_gpu(catalog, "rtx-3090")
    model = get_model(catalog, "llama-3.1-8b")
    # The same figures `rackplanner estimate` prints, and the band it states with them.
    decode = estimate(model, "q4_k_m", hw, runtime="llama.cpp", context=256, with_training=False).decode_tokens_per_s
    band = fitted.error_band(fitted.current(), hw, "decode")
    assert decode is not None and band is not None
    text = check_report(path, catalog)
    line = next(row for row in text.splitlines() if row.startswith("my-tg"))
    assert f"{decode:10.1f}" in line and f"{(decode - 115.42) / 115.42:+7.0%}" in line
    assert f"±{band.median:.0%} (90% within ±{band.p90:.0%})" in line
    assert "nothing fitted" in text and "decode: 1 row(s)" in text and "prefill: 1 row(s)" in text
    # Nothing is fitted, so --write cannot go with it; a misspelt machine gets the nearest id.
    assert _calibrate(path, "--check", "--write").returncode == 2
    path.write_text(
        path.read_text(encoding="utf-8").replace("my-pp,rtx-3090", "my-pp,apple-m2-max-38c"), encoding="utf-8"
    )
    result = _calibrate(path, "--check")
    # The catalog's three M2 Max machines, nearest first.
    suggestion = "did you mean mac-studio-m2-max-32gb or macbook-pro-m2-max-96gb or mac-studio-m2-max-96gb?"
    assert result.returncode == 2 and suggestion in result.stderr


def test_one_source_says_its_held_out_table_means_nothing(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(_rows(2)) + "\n", encoding="utf-8")  # XiongjieDai's first two rows
    result = _calibrate(path)
    assert result.returncode == 0, result.stderr
    assert "With one source, held out it is estimated from no measurement at all" in result.stdout
