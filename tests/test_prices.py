"""The price book and the user's price list: where each price comes from, how old it is, what wins."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from rackplanner.core.bom import build_bom
from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.prices import PriceQuote, choose_price, read_price_csv
from rackplanner.core.errors import InputError
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits.base import EditRefused
from rackplanner.core.plan.files import load_plan
from tests.clihelpers import run_cli
from tests.conftest import EXAMPLES, REPO
from tests.test_bom import HOME_RIG_TOTAL
from tests.test_report_pdf import export, flat, needs_pdftotext, page_text

TODAY = date(2026, 11, 25)


def quote(kind: str, day: date, price: float = 1.0) -> PriceQuote:
    return PriceQuote(part="rtx-3090", price_usd=price, price_date=day, kind=kind, source="test")  # type: ignore[arg-type]


def test_built_in_prices_live_in_the_price_book(catalog: Catalog) -> None:
    for path in (REPO / "catalog").glob("*.yaml"):
        entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        assert not [e["id"] for e in entries if "price_usd" in e], f"{path.name} carries prices in its entries"
    quotes = [q for qs in catalog.prices.values() for q in qs]
    assert len(quotes) >= 27 and all(catalog.get(q.part) is not None for q in quotes)
    assert all(q.source and q.kind in ("launch", "list", "street", "used") for q in quotes)
    # catalog/prices/prices-2026-11.yaml: the RTX 3090's launch price, dated and sourced, reaches the part.
    gpu = catalog.get("rtx-3090")
    assert gpu is not None and (gpu.price_usd, gpu.price_date) == (1499, date(2020, 9, 1))
    chosen = catalog.price_of("rtx-3090")
    assert chosen is not None and chosen.kind == "launch" and "launch price $1,499" in chosen.source
    # The Core i5-14600K's figure is a shop's (Newegg on launch day, per XDA): marked street.
    street = catalog.price_of("core-i5-14600k")
    assert street is not None and street.kind == "street"


def test_which_price_is_used() -> None:
    old_launch, new_street = quote("launch", date(2020, 9, 1), 1499), quote("street", date(2026, 10, 1), 900)
    used = quote("used", date(2026, 11, 1), 700)
    assert choose_price([old_launch, new_street, used]) == new_street  # newest price of a new part
    assert choose_price([used]) == used  # a used price only when there is nothing else
    mine = quote("quote", date(2025, 1, 1), 750)
    assert choose_price([old_launch, new_street, used, mine]) == mine  # the user's own quote first
    assert choose_price([]) is None
    assert old_launch.is_stale(TODAY) and not new_street.is_stale(TODAY)


def test_price_list_csv(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(
        'Part,Price,Currency,Date,Note\nrtx-3090,"$1,234.50",usd,2026-11-20,eBay\nproart-x670e-creator,449,,,\n,,,,\n',
        encoding="utf-8",
    )
    rows = read_price_csv(path, TODAY)
    assert [(q.part, q.price_usd, q.price_date, q.note, q.kind) for q in rows] == [
        ("rtx-3090", 1234.5, date(2026, 11, 20), "eBay", "quote"),
        ("proart-x670e-creator", 449.0, TODAY, "", "quote"),  # no date: the day it was read
    ]
    assert rows[0].source == "prices.csv row 2"
    for text, message in [
        ("part,price,currency\nrtx-3090,700,EUR\n", r"row 2 \(rtx-3090\): currency 'EUR'; prices are in USD"),
        ("part,price\nrtx-3090,cheap\n", r"row 2 \(rtx-3090\): cannot read the price 'cheap'"),
        ("part,price\nrtx-3090,-5\n", r"row 2: price_usd: "),
        ("part,price,date\nrtx-3090,5,25/11/2026\n", r"row 2 \(rtx-3090\): date '25/11/2026': write it as YYYY-MM-DD"),
        ("name,amount\nrtx-3090,5\n", "the header needs the columns part and price .* it has 'name', 'amount'"),
    ]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=message):
            read_price_csv(path, TODAY)


def test_price_lists_as_spreadsheets_write_them(tmp_path: Path) -> None:
    path = tmp_path / "quote.csv"
    # A spreadsheet saved where the decimal mark is a comma: ';' between fields, a byte-order
    # mark, "Part ID" and "Unit price" headers, a dotted day-first date, a month-only date.
    path.write_bytes(
        "\ufeffPart ID;Unit price;Date;Notes\nrtx-3090;1.234,50;28.11.2026;shop\nl40s;7450,00;2026-10;quote\n".encode()
    )
    assert [(q.part, q.price_usd, q.price_date, q.note) for q in read_price_csv(path, TODAY)] == [
        ("rtx-3090", 1234.5, date(2026, 11, 28), "shop"),
        ("l40s", 7450.0, date(2026, 10, 1), "quote"),
    ]
    path.write_text("part\tprice\nrtx-3090\tUS$ 1,299\n", encoding="utf-8")  # tab-separated
    assert [q.price_usd for q in read_price_csv(path, TODAY)] == [1299.0]
    for text, message in [
        ("part;price\nrtx-3090;1.299\n", "reads as thousands or decimals"),  # 1.299 or 1299?
        ("part,price\nrtx-3090,1299 €\n", "is not in US dollars"),
        ("part,price\nrtx-3090,nan\n", "cannot read the price 'nan'"),
    ]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=message):
            read_price_csv(path, TODAY)


def test_an_unknown_part_id_names_the_nearest_catalog_id(catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    path = tmp_path / "prices.csv"
    path.write_text("part,price\nrtx3090,780\nno-such-thing,5\n", encoding="utf-8")
    with pytest.raises(EditRefused, match=r"rtx3090 \(did you mean rtx-3090\?\), no-such-thing$"):
        edits.import_price_list(plan, quotes=read_price_csv(path, TODAY), name="prices.csv", catalog=catalog)


def test_the_users_prices_win_and_old_ones_are_flagged(catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    path = tmp_path / "prices.csv"
    path.write_text("part,price,date,note\nrtx-3090,780,2026-11-20,eBay used\n", encoding="utf-8")
    imported = edits.import_price_list(plan, quotes=read_price_csv(path, TODAY), name="prices.csv", catalog=catalog)
    assert imported.label == "Import 1 price from prices.csv"
    bom = build_bom(imported.plan, catalog, today=TODAY)
    gpu = next(line for line in bom.totals.lines if line.part == "rtx-3090")
    assert (gpu.unit_price_usd, gpu.price_origin, gpu.price_kind, gpu.price_stale) == (780, "override", "quote", False)
    assert gpu.price_source == "prices.csv row 2 (eBay used)"
    cpu = next(line for line in bom.totals.lines if line.part == "ryzen-9-7950x")
    # The 7950X's launch price (2022-08-30) is more than a year old on 2026-11-25.
    # With the CPU: the 990 PRO (2022), the board (March 2025) and the case and PSU (October 2025);
    # the 2026 bridge price is not.
    assert cpu.price_kind == "launch" and cpu.price_stale and bom.totals.stale_parts == 5
    # The home rig's catalog total with 2 x 780 for the GPUs; the unpriced DIMMs are still named,
    # never summed as zero.
    assert bom.totals.total_usd == pytest.approx(HOME_RIG_TOTAL - 2 * 1499 + 2 * 780)
    assert bom.totals.total_text == "$3,794.51 plus 1 part without a price (2 units)"
    with pytest.raises(EditRefused, match="parts not in the catalog: no-such-card"):
        edits.import_price_list(
            plan,
            quotes=[quote("quote", TODAY).model_copy(update={"part": "no-such-card"})],
            name="x.csv",
            catalog=catalog,
        )


def test_a_users_price_book_folder_with_a_broken_entry(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    (folder / "prices").mkdir(parents=True)
    (folder / "prices" / "shop.yaml").write_text(
        "- {part: rtx-3090, price_usd: 850, price_date: 2026-11-01, kind: street, source: a shop}\n"
        "- {part: rtx-3090, price_usd: -3, price_date: 2026-11-01, kind: street, source: a shop}\n",
        encoding="utf-8",
    )
    catalog = load_catalog([folder], include_user=False)
    # The street price is newer than the launch price: it is the one used; the broken row is skipped and said.
    assert catalog.get("rtx-3090").price_usd == 850  # type: ignore[union-attr]
    assert any("shop.yaml: entry 1: price_usd" in p and "(entry skipped)" in p for p in catalog.problems)


def test_import_price_list_in_the_app_is_one_undo_step(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rackplanner.gui.dialogs.import_prices import import_prices
    from tests.guihelpers import shown_window

    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    assert "Import &Price List…" in [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    path = tmp_path / "quotes.csv"
    path.write_text("part,price,note\nrtx-3090,780,eBay\nmade-up-gpu,10,\n", encoding="utf-8")
    asked: list[str] = []

    def yes(*args: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", yes)
    assert import_prices(window, path, today=TODAY) == 1
    assert "made-up-gpu" in asked[0]
    prices = window.document.plan.user_prices
    assert list(prices) == ["rtx-3090"] and prices["rtx-3090"].note == "eBay"
    window.document.undo_stack.undo()
    assert window.document.plan.user_prices == {}


def test_cli_export_with_a_price_list(tmp_path: Path) -> None:
    prices = tmp_path / "prices.csv"
    prices.write_text("part,price\nrtx-3090,780\n", encoding="utf-8")
    out = tmp_path / "bom.csv"
    home = str(EXAMPLES / "home-rig-2x3090.json")
    run = run_cli("export", home, "--csv", str(out), "--prices", str(prices))
    assert run.returncode == 0, run.stderr
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[0].endswith(",price_kind,price_stale")
    gpu = next(r for r in rows if ",rtx-3090," in r)
    assert ",780.00,1560.00," in gpu and gpu.endswith(",quote,")
    prices.write_text("part,price\nnot-a-part,5\n", encoding="utf-8")
    bad = run_cli("export", home, "--csv", str(out), "--prices", str(prices))
    assert bad.returncode == 2 and "parts not in the catalog: not-a-part" in bad.stderr


@needs_pdftotext
def test_the_pdf_total_follows_the_price_list(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    before = tmp_path / "before.pdf"
    export(plan, catalog, before)
    # The home rig's catalog total (test_bom.py): 5,232.51.
    assert flat(page_text(before)).count("$5,232.51") >= 2  # the cover and the whole-plan total
    prices = tmp_path / "prices.csv"
    prices.write_text("part,price,date\nrtx-3090,780,2026-11-20\n", encoding="utf-8")
    priced = edits.import_price_list(plan, quotes=read_price_csv(prices, TODAY), name="prices.csv", catalog=catalog)
    after = tmp_path / "after.pdf"
    export(priced.plan, catalog, after)
    text = flat(page_text(after))
    # 5,232.51 - 2 x 1,499 + 2 x 780 = 3,794.51: the cover and the whole-plan total say so, and the
    # old total is gone.
    assert text.count("$3,794.51") >= 2 and "$5,232.51" not in text
