"""Bill of materials: lines, counts, prices, overrides, unpriced parts and the CSV."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest

from rackplanner.core.bom import CSV_COLUMNS, NO_PRICE, Bom, BomLine, bom_csv, build_bom, format_usd
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import PartCount, Plan, UserPrice
from tests.conftest import EXAMPLES


def _plan(name: str, catalog: Catalog) -> Plan:
    return load_plan(EXAMPLES / name, catalog)


def _line(bom: Bom, group: str, part: str) -> BomLine:
    return next(line for g in bom.groups if g.id == group for line in g.lines if line.part == part)


# The home rig's priced lines (see test_home_rig_total_by_hand for each price's file and date).
HOME_RIG_TOTAL = 699 + 2 * 1499 + 289 + 199.99 + 500 + 40 + 506.52


def test_home_rig_total_by_hand(catalog: Catalog) -> None:
    bom = build_bom(_plan("home-rig-2x3090.json", catalog), catalog, today=date(2026, 11, 25))
    # catalog/prices/prices-2026-11.yaml: ryzen-9-7950x 699 (2022-08-30), rtx-3090 1499 (2020-09-01);
    # catalog/prices/prices-systems-network.yaml: samsung-990-pro-2tb 289 (launch, 2022-11-01);
    # catalog/prices/prices-parts-2026.yaml: fractal-define-7-xl 199.99 and seasonic-prime-tx-1600 500
    # (street, an October 2025 parts list), nvlink-bridge-3090-4slot 40 (used, eBay, January 2026);
    # catalog/prices/prices-boards-2026-11.yaml: proart-x670e-creator 506.52 (street, PCPartPicker
    # data of 2025-03-04). The 48 GB DIMMs have no price in the catalog.
    assert catalog.get("ryzen-9-7950x").price_usd == 699  # type: ignore[union-attr]
    assert catalog.get("rtx-3090").price_usd == 1499  # type: ignore[union-attr]
    assert bom.totals.total_usd == pytest.approx(HOME_RIG_TOTAL)  # 5,232.51
    assert bom.totals.unpriced_parts == 1
    assert bom.totals.unpriced_units == 2  # two 48 GB DIMMs count as two units
    assert bom.totals.total_text == "$5,232.51 plus 1 part without a price (2 units)"
    gpu = _line(bom, "home-rig", "rtx-3090")
    assert (gpu.quantity, gpu.extended_price_usd, gpu.price_origin) == (2, 2998, "catalog")
    assert gpu.price_date is not None and gpu.price_date.isoformat() == "2020-09-01"
    # The price's own source (the price book names the page that gives the launch price), its kind,
    # and more than a year old on 2026-11-25.
    assert "launch price $1,499" in gpu.price_source and "chipversus.com" in gpu.price_source
    assert gpu.price_kind == "launch" and gpu.price_stale
    # CPU, GPUs and SSD (2020-2022), the board (March 2025), case and PSU (October 2025) are over a
    # year old; the bridge is not.
    assert bom.totals.stale_parts == 6
    # Not a silent zero: a part without a price has no unit or extended price at all.
    dimm = _line(bom, "home-rig", "crucial-ddr5-5600-48gb-udimm")
    assert dimm.unit_price_usd is None and dimm.extended_price_usd is None
    assert format_usd(dimm.unit_price_usd) == NO_PRICE
    # Unmounted machine: still counted, under machines, with no rack.
    (group,) = bom.machines
    assert group.rack is None and not bom.racks
    categories = [line.category for line in group.lines]
    assert categories == ["board", "chassis", "cpu", "memory", "gpu", "drive", "nvlink-bridge", "psu"]


def test_colo_rack_counts_and_no_double_counting(catalog: Catalog) -> None:
    bom = build_bom(_plan("colo-rack.json", catalog), catalog)
    # colo-rack.json: 4 servers, each 2 CPUs, 12 DIMMs, 4 A100s, 1 ConnectX-6; the rack holds one
    # apc-ar3300, one QM8700, one SN2201 and two AP8886 PDUs. Priced: a used 32 GB DDR4-2400 RDIMM
    # at $125 (catalog/prices/prices-systems-network.yaml, 2026-09-07), a used Xeon E5-2680 v4 at
    # $180 (eBay average, 2026-02-17) and a new A100 80GB at $8,000 (street, 2026-03-20), both in
    # catalog/prices/prices-parts-2026.yaml; a used ConnectX-6 HDR card at $350 (a homelab
    # planning note, 2026-07-18) and a used QM8700 at $10,000 (a cluster guide's range, 2026-04-09),
    # in catalog/prices/prices-rack-power-network-2026-11.yaml. No public price was found for the
    # other four parts: the server, the SN2201, the AR3300 and the AP8886.
    assert bom.totals.total_usd == pytest.approx(48 * 125 + 8 * 180 + 16 * 8000 + 4 * 350 + 10000)
    assert bom.totals.unpriced_parts == 4
    assert bom.totals.unpriced_units == 4 + 1 + 1 + 2  # 8
    dimm = next(line for line in bom.totals.lines if line.part == "ddr4-2400-32gb-rdimm-2rx4")
    assert dimm.price_kind == "used" and dimm.unit_price_usd == 125
    consolidated = {line.part: line.quantity for line in bom.totals.lines}
    assert consolidated["a100-80gb-pcie"] == 16
    assert consolidated["xeon-e5-2680-v4"] == 8
    assert consolidated["apc-ap8886"] == 2
    server = catalog.get("sys-4028gr-trt2")
    # The server brings its board, chassis and stock PSUs: none of them is a line of its own.
    for included in (server.board, server.chassis, server.psu):  # type: ignore[union-attr]
        assert included not in consolidated
    assert "4 x PSU" in _line(bom, "gpu-1", "sys-4028gr-trt2").note
    rack = bom.racks[0]
    assert rack.machines == ["gpu-1", "gpu-2", "gpu-3", "gpu-4"]
    assert [line.part for line in rack.lines] == ["apc-ar3300", "mellanox-qm8700", "nvidia-sn2201", "apc-ap8886"]
    assert all(g.rack == "rack-1" for g in bom.machines)


def test_price_override_changes_the_total(catalog: Catalog) -> None:
    plan = _plan("colo-rack.json", catalog)
    plan = plan.model_copy(
        update={
            "user_prices": {"a100-80gb-pcie": UserPrice(price_usd=9500.0), "apc-ap8886": UserPrice(price_usd=1200.0)}
        }
    )
    bom = build_bom(plan, catalog)
    # 16 A100 x $9,500 + 2 AP8886 x $1,200, the plan's own prices, and 48 DIMMs at the catalog's $125,
    # 8 Xeons at its $180, 4 ConnectX-6 at $350 and the QM8700 at $10,000.
    assert bom.totals.total_usd == pytest.approx(16 * 9500 + 2 * 1200 + 48 * 125 + 8 * 180 + 4 * 350 + 10000)
    assert bom.totals.unpriced_parts == 3
    assert bom.totals.overridden_parts == 2
    line = _line(bom, "gpu-3", "a100-80gb-pcie")
    assert line.overridden and line.unit_price_usd == 9500 and line.extended_price_usd == 4 * 9500
    rack = bom.racks[0]
    assert rack.subtotal_usd == 2 * 1200 + 10000
    assert rack.rack_total_usd == pytest.approx(2 * 1200 + 10000 + 16 * 9500 + 48 * 125 + 8 * 180 + 4 * 350)
    # Overriding a part the catalog prices replaces the catalog price.
    home = _plan("home-rig-2x3090.json", catalog)
    home = home.model_copy(update={"user_prices": {"rtx-3090": UserPrice(price_usd=800.0)}})
    assert build_bom(home, catalog).totals.total_usd == pytest.approx(HOME_RIG_TOTAL - 2 * 1499 + 2 * 800)


def test_server_psus_beyond_stock_are_bought(catalog: Catalog) -> None:
    plan = _plan("colo-rack.json", catalog)
    server = catalog.get("sys-4028gr-trt2")
    stock = server.psu  # type: ignore[union-attr]
    count = server.psu_count  # type: ignore[union-attr]
    machines = list(plan.machines)
    machines[0] = machines[0].model_copy(update={"psus": [PartCount(part=stock, count=count)]})
    machines[1] = machines[1].model_copy(update={"psus": [PartCount(part=stock, count=count + 2)]})
    plan = plan.model_copy(update={"machines": machines})
    bom = build_bom(plan, catalog)
    assert not any(line.part == stock for line in bom.machines[0].lines)  # the stock ones, listed again
    assert _line(bom, "gpu-2", stock).quantity == 2


def test_csv_header_rows_and_totals(catalog: Catalog) -> None:
    plan = _plan("home-rig-2x3090.json", catalog)
    bom = build_bom(plan, catalog)
    text = bom_csv(bom)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == list(CSV_COLUMNS)
    assert len(rows) == 1 + len(bom.lines) == 1 + 8
    records = list(csv.DictReader(io.StringIO(text)))
    priced = [r for r in records if r["extended_price_usd"]]
    assert sum(float(r["extended_price_usd"]) for r in priced) == pytest.approx(HOME_RIG_TOTAL)
    gpu = next(r for r in records if r["part_id"] == "rtx-3090")
    assert (gpu["quantity"], gpu["unit_price_usd"], gpu["extended_price_usd"]) == ("2", "1499.00", "2998.00")
    assert gpu["price_date"] == "2020-09-01" and gpu["price_origin"] == "catalog"
    dimm = next(r for r in records if r["part_id"] == "crucial-ddr5-5600-48gb-udimm")
    assert dimm["unit_price_usd"] == "" and dimm["price_origin"] == "none"
    colo = build_bom(_plan("colo-rack.json", catalog), catalog)
    colo_rows = list(csv.DictReader(io.StringIO(bom_csv(colo))))
    assert {r["group_kind"] for r in colo_rows} == {"machine", "rack"}
    assert sum(int(r["quantity"]) for r in colo_rows) == 85


def test_a_dgx_price_covers_its_gpus(catalog: Catalog) -> None:
    # catalog/prices: the DGX H100 at $375,000 for the whole system (Viperatech, 2025-03-03, via
    # Epoch AI's hardware prices), which includes its eight H100 SXM5 GPUs.
    plan = edits.add_machine(Plan(name="dgx"), name="DGX", server="nvidia-dgx-h100", catalog=catalog).plan
    for n in range(1, 9):
        plan = edits.place_card(plan, machine="dgx", slot=f"sxm{n}", part="h100-sxm", catalog=catalog).plan
    bom = build_bom(plan, catalog, today=date(2026, 11, 25))
    gpus = _line(bom, "dgx", "h100-sxm")
    assert (gpus.quantity, gpus.unit_price_usd, gpus.extended_price_usd) == (8, 0.0, 0.0)
    assert gpus.price_origin == "included" and "DGX H100" in gpus.price_source
    assert bom.totals.total_usd == pytest.approx(375_000)
    assert bom_csv(bom).count(",included,") == 2  # the machine's line and the plan's
    # With the user's own quote for the system, what it covers is unknown: the GPUs are priced.
    quoted = plan.model_copy(update={"user_prices": {"nvidia-dgx-h100": UserPrice(price_usd=300_000)}})
    gpu_quote = catalog.price_of("h100-sxm")
    assert gpu_quote is not None
    totals = build_bom(quoted, catalog, today=date(2026, 11, 25)).totals
    assert totals.total_usd == pytest.approx(300_000 + 8 * gpu_quote.price_usd)
