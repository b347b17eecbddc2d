"""The PDF report: pages, sections, text read back with pdftotext, page sizes, vector drawings."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pypdf
import pytest

from rackplanner.core.bom import build_bom
from rackplanner.core.capacity.cost import format_ownership
from rackplanner.core.capacity.fitted import current
from rackplanner.core.capacity.purchase import ownership_of, purchase_of_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import OutputError
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.machine_price import machine_parts
from rackplanner.core.plan.model import Plan, UserPrice
from rackplanner.core.rack.power import rack_power
from rackplanner.report import titles
from rackplanner.report.facts import plan_facts
from rackplanner.report.pdf import ExportCancelled, PdfResult, _write_pdf_to, write_pdf
from tests.conftest import EXAMPLES

TODAY = date(2026, 11, 22)
# Text is read with pdftotext when present, else with pypdf (installed with the test extra).
needs_pdftotext = pytest.mark.skipif(
    shutil.which("pdftotext") is None and importlib.util.find_spec("pypdf") is None, reason="no PDF text reader"
)


def raw_page_count(path: Path) -> int:
    """Page objects in the file (a pure-Python check that does not need poppler)."""
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", path.read_bytes()))


def media_boxes(path: Path) -> set[tuple[float, float]]:
    found = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", path.read_bytes())
    return {(round(float(w)), round(float(h))) for w, h in found}


def page_text(path: Path, page: int | None = None, *, layout: bool = False) -> str:
    """The text of the PDF (one page or all); ``layout`` keeps a table row on one line.

    pdftotext (poppler-utils) when the machine has it, else pypdf, so a bare CI machine
    checks the same text.
    """
    if shutil.which("pdftotext"):
        args = ["pdftotext", *(["-layout"] if layout else [])]
        args += ["-f", str(page), "-l", str(page)] if page else []
        args += [str(path), "-"]
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout
    reader = pypdf.PdfReader(str(path))
    pages = [reader.pages[page - 1]] if page else list(reader.pages)
    mode = "layout" if layout else "plain"
    return "\f".join(p.extract_text(extraction_mode=mode) for p in pages)


def flat(text: str) -> str:
    """Whitespace collapsed, so text wrapped in a table cell reads as one line."""
    return " ".join(text.split())


def squeezed(text: str) -> str:
    """Without whitespace and hyphens: a name hyphenated across a cell's lines still matches."""
    return re.sub(r"[\s\-]", "", text)


def export(plan: Plan, catalog: Catalog, path: Path, **kwargs: object) -> PdfResult:
    result = write_pdf(plan, catalog, path, today=TODAY, **kwargs)  # type: ignore[arg-type]
    shots = os.environ.get("RACKPLANNER_SHOTS")
    if shots and shutil.which("pdftoppm"):
        Path(shots).mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdftoppm", "-r", "60", "-png", str(path), str(Path(shots) / path.stem)], check=True)
        print(f"pages of {path.name} rendered to {shots}")
    return result


@needs_pdftotext
def test_colo_report_pages_text_and_power_figures(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    path = tmp_path / "colo.pdf"
    result = export(plan, catalog, path)
    n = result.pages
    assert raw_page_count(path) == n
    s = result.sections
    # Cover, BOM, then one page per rack (colo-rack.json: one) and one per distinct machine
    # configuration (its four servers are built alike: one), then power, capacity, findings.
    order = [titles.COVER, titles.BOM, titles.RACKS, titles.MACHINES]
    assert list(s) == [*order, titles.POWER, titles.CAPACITY, titles.FINDINGS]
    assert s[titles.MACHINES] - s[titles.RACKS] == 1
    assert s[titles.POWER] - s[titles.MACHINES] == 1
    # Findings come last and may run over more than one page.
    assert s[titles.FINDINGS] == max(s.values()) and n - 1 <= s[titles.FINDINGS] <= n
    assert s[titles.BOM] == 2 and s[titles.RACKS] > s[titles.BOM]

    text = flat(page_text(path))
    assert plan.name in text
    assert "Prepared 22 November 2026" in text
    # BOM totals (test_bom.py): 48 DIMMs at $125, 8 Xeons at $180, 16 A100s at $8,000, 4 ConnectX-6
    # at $350 and a QM8700 at $10,000; four parts have no price.
    totals = build_bom(plan, catalog).totals
    assert totals.total_text == "$146,840.00 plus 4 parts without a price (8 units)"
    assert "Total (USD)" in text and "plus 4 parts without a price (8 units)" in text
    for line in totals.lines:
        assert squeezed(line.model) in squeezed(text), line.model
    assert text.count("no price") >= sum(1 for line in totals.lines if line.unit_price_usd is None)
    for page in range(1, n + 1):
        assert f"Page {page} of {n}" in flat(page_text(path, page))
    # The BOM table's header row repeats on every page it runs onto; the price sources under the
    # table may run onto a page of their own.
    bom_pages = range(s[titles.BOM], s[titles.RACKS])
    sources_page = next(page for page in bom_pages if "Price sources" in flat(page_text(path, page)))
    for page in range(s[titles.BOM], sources_page + 1):
        bom_page = flat(page_text(path, page, layout=True))
        assert "Item Part id Qty Unit price Extended Price date Source" in bom_page, page
    rack_page = flat(page_text(path, s[titles.RACKS]))
    assert "Rack 1: elevation, front and rear" in rack_page
    # Labels of the rack drawing are text too: the devices' names from colo-rack.json.
    for name in ("GPU 1", "HDR leaf", "Management switch", "Front", "Rear"):
        assert name in rack_page, name

    power = rack_power(plan, "rack-1", catalog)
    power_page = flat(page_text(path, s[titles.POWER]))
    assert f"{power.load_w / 1000:,.2f} kW" in power_page
    assert f"{power.load_va / 1000:,.2f} kVA" in power_page
    assert f"{power.heat_btu_hr:,.0f} BTU/hr" in power_page
    for name in ("PDU A", "PDU B", "Normal", "Feed A failed", "Feed B failed"):
        assert name in power_page, name
    for scenario in power.scenarios:
        for pdu in scenario.pdus:
            for line in pdu.lines if pdu.alive else []:
                assert f"{line.current_a:.1f} A ({line.percent:.0f}%)" in power_page
    # The cover's kW is the rack's (every machine of this plan is mounted).
    assert f"{power.load_w / 1000:,.2f} kW" in flat(page_text(path, 1))


def test_drawings_are_vectors_and_text_is_text(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    path = tmp_path / "colo.pdf"
    export(plan, catalog, path)
    data = path.read_bytes()
    # No raster image anywhere: the rack, board and block diagram are painted as paths and text.
    assert b"/Subtype /Image" not in data and b"/Subtype/Image" not in data
    assert b"/FontFile2" in data  # fonts embedded, text kept as text


def test_page_sizes(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    a4 = export(plan, catalog, tmp_path / "a4.pdf", page_size="a4")
    letter = export(plan, catalog, tmp_path / "letter.pdf", page_size="letter")
    # ISO 216 A4 is 210 x 297 mm = 595 x 842 pt; US Letter is 8.5 x 11 in = 612 x 792 pt.
    assert media_boxes(a4.path) == {(595, 842)}
    assert media_boxes(letter.path) == {(612, 792)}
    # Letter is shorter: the BOM table needs at least as many pages.
    assert letter.pages >= a4.pages


@needs_pdftotext
def test_home_rig_prices_dates_and_unpriced_parts(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    path = tmp_path / "home.pdf"
    result = export(plan, catalog, path)
    s = result.sections
    # No racks: no rack pages; one machine configuration.
    assert titles.RACKS not in s
    assert s[titles.POWER] - s[titles.MACHINES] == 1
    text = flat(page_text(path))
    # catalog/prices: ryzen-9-7950x $699 (2022-08-30), rtx-3090 $1499 (2020-09-01), 990 PRO $289, and
    # the total with the case, PSU and bridge (test_bom.py).
    for figure in ("$699.00", "$1,499.00", "$2,998.00", "$289.00", "$5,232.51", "2022-08-30", "2020-09-01"):
        assert figure in text, figure
    assert "plus 1 part without a price (2 units)" in text
    assert "no price" in text
    # Catalog price sources are listed in full at the end of the BOM.
    assert "Price sources" in text and "chipversus.com" in text
    assert "Home rig" in text and "Machines not in a rack" in text
    # The capacity page says how far its speeds are off for GDDR GPUs, held out (README table).
    capacity_page = flat(page_text(path, s[titles.CAPACITY]))
    band = current().error_bands["decode|gpu-gddr"]
    assert f"decode typically ±{band.median:.0%} (90% within ±{band.p90:.0%})" in capacity_page
    assert "Speeds on gpu-gddr hardware, tested on published runs held out from the fit" in capacity_page
    # Every llama.cpp run on a GDDR GPU in tests/data/measured.csv decoded one sequence, so the
    # best-batch column is said to be unmeasured.
    assert current().measured_ranges["decode|gpu-gddr|llama.cpp"].max_batch == 1
    assert "so no run measured the best-batch figures" in capacity_page


@needs_pdftotext
def test_capacity_page_states_the_cost_of_ownership(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    machine = plan.machines[0]
    # Every part at a plan price of $100, so the purchase is known: 2 GPUs, 2 DIMMs, 1 each of the rest.
    prices = {part: UserPrice(price_usd=100.0) for part, _n in machine_parts(machine)}
    plan = plan.model_copy(update={"user_prices": prices})
    path = tmp_path / "cost.pdf"
    result = export(plan, catalog, path)
    page = flat(page_text(path, result.sections[titles.CAPACITY]))
    config = plan_facts(plan, catalog).configs[0]
    purchase = purchase_of_machine(catalog, machine, plan.user_prices)
    assert purchase.price_usd == 100.0 * sum(n for _p, n in machine_parts(machine))
    cost = ownership_of(purchase, config.models[0].decode_tokens_per_s, None)
    assert cost is not None
    assert f"running {config.models[0].label}" in page
    assert flat(format_ownership(cost)[0]) in page


@needs_pdftotext
def test_price_override_is_marked(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    plan = plan.model_copy(update={"user_prices": {"rtx-3090": UserPrice(price_usd=800.0)}})
    path = tmp_path / "override.pdf"
    export(plan, catalog, path)
    text = flat(page_text(path))
    # The catalog total (test_bom.py) with 2 x $800, the plan's price for the RTX 3090.
    assert "$3,834.51" in text
    assert "$800.00 *" in text and "$1,600.00" in text
    assert "$1,499.00" not in text


@needs_pdftotext
@pytest.mark.parametrize("name", ["sys-4028gr-trt2-8gpu.json", "teaching-mistakes.json"])
def test_other_examples_export(qapp: object, catalog: Catalog, tmp_path: Path, name: str) -> None:
    plan = load_plan(EXAMPLES / name, catalog)
    path = tmp_path / "plan.pdf"
    result = export(plan, catalog, path)
    assert raw_page_count(path) == result.pages
    text = flat(page_text(path))
    totals = build_bom(plan, catalog).totals
    for line in totals.lines:
        assert squeezed(line.model) in squeezed(text), line.model
    assert totals.total_text.split(" plus ")[0] in text


def test_empty_plan_and_progress(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int, section: str) -> bool:
        seen.append((done, total))
        return True

    result = export(Plan(name="Nothing yet"), catalog, tmp_path / "empty.pdf", progress=progress)
    # Cover, BOM, power, capacity and findings; no rack or machine pages.
    assert result.pages == 5
    assert seen == [(i, 5) for i in range(6)]


def test_cancel_leaves_no_file(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    path = tmp_path / "cancelled.pdf"
    with pytest.raises(ExportCancelled):
        write_pdf(plan, catalog, path, progress=lambda done, total, section: done < 2)
    assert not path.exists()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a device that is always full")
def test_a_write_that_runs_out_of_room_fails_and_keeps_the_old_file(
    qapp: object, catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a full disk Qt's PDF engine wrote 40,960 of 96,055 bytes, said nothing, and the
    # truncated file was renamed over the good one. Now the bytes are written by Python:
    # a short write raises, and the old report stays.
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    with pytest.raises(OSError):
        _write_pdf_to(Path("/dev/full"), plan, catalog, page_size="a4", today=TODAY, progress=None)
    path = tmp_path / "report.pdf"
    write_pdf(plan, catalog, path, today=TODAY)
    before = path.read_bytes()
    real_open = Path.open

    def full_disk(self: Path, mode: str = "r", *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if "w" in mode and self.name.endswith(".tmp"):
            return real_open(Path("/dev/full"), mode, *args, **kwargs)  # type: ignore[arg-type]
        return real_open(self, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", full_disk)
    with pytest.raises(OutputError, match="No space left on device"):
        write_pdf(plan, catalog, path, today=TODAY)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["report.pdf"]


def test_ten_rack_row_pages(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    from rackplanner.core.plan.generate import generate_row
    from rackplanner.report.facts import machine_configs

    plan = generate_row(10, seed=1)
    result = write_pdf(plan, catalog, tmp_path / "row.pdf", today=TODAY)
    s = result.sections
    # One page per rack and one per distinct machine configuration. (Its speed, 3 s at most,
    # is measured by `python -m rackplanner.report.benchmark`, not asserted here.)
    assert s[titles.MACHINES] - s[titles.RACKS] == 10
    assert s[titles.POWER] - s[titles.MACHINES] == len(machine_configs(plan))
    assert raw_page_count(result.path) == result.pages


@needs_pdftotext
def test_findings_said_once_for_identical_servers(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    # colo-rack.json: four servers built alike (GPU 1-4), four A100 80GB PCIe each on the
    # SYS-4028GR-TRT2's PCIe 3.0 switch slots: one link-width finding per server naming all four
    # slots, and the report states it once for all four servers.
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    facts = plan_facts(plan, catalog)
    a100 = [f for f in facts.machine_findings if f.code == "link-width" and "A100" in f.message]
    assert len(a100) == 4 and all(len(f.slots) == 4 for f in a100)
    assert "(4 cards) run at PCIe 3.0 x16 (15.76 GB/s per direction) instead of their 4.0 x16" in a100[0].message
    summary = [f for f in facts.findings_summary if f.code == "link-width" and "A100" in f.message]
    assert len(summary) == 1 and summary[0].where_text == "GPU 1, GPU 2, GPU 3 and GPU 4"
    # Three distinct machine findings per server (GPUDirect RDMA, A100 and NIC link widths; the
    # GPU bays are two slots wide and so are the A100s, catalog/board.yaml, so no spacing
    # finding), the two switches without a power figure, and the management switch's airflow
    # (sold both ways, catalog/switch.yaml) not checked.
    assert facts.findings_count == 6 and len(facts.machine_findings) == 12
    path = tmp_path / "colo.pdf"
    result = export(plan, catalog, path)
    findings_text = flat(page_text(path, result.sections[titles.FINDINGS]))
    assert findings_text.count("A100 80GB PCIe in GPU slot 1") == 1
    # The Where cell wraps inside its column ("GPU 1, GPU 2, GPU" / "3 and GPU 4"), once for
    # each of the three machine findings.
    assert findings_text.count("3 and GPU 4") == 3 and "GPU 1, GPU 2, GPU" in findings_text


@needs_pdftotext
def test_gpus_in_a_system_price_read_as_included(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    from rackplanner.core.plan import edits

    plan = edits.add_machine(Plan(name="dgx"), name="DGX", server="nvidia-dgx-h100", catalog=catalog).plan
    for n in range(1, 9):
        plan = edits.place_card(plan, machine="dgx", slot=f"sxm{n}", part="h100-sxm", catalog=catalog).plan
    path = tmp_path / "dgx.pdf"
    export(plan, catalog, path)
    text = flat(page_text(path))
    # catalog/prices: $375,000 for the whole DGX H100, its eight H100s included (test_bom.py).
    assert "in the system's price" in text and "[0]" not in text
    assert "$375,000.00" in text
