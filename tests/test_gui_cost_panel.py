"""The capacity dock's cost of ownership: the core's figures, the plan's own prices, settings."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rackplanner.core.capacity.cost import CostSettings, format_ownership
from rackplanner.core.capacity.purchase import ownership_of, purchase_of_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.gui.docks.capacity import CapacityDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import screenshot_dir, shown_dock


def test_cost_follows_prices_and_settings(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    dock = shown_dock(qtbot, CapacityDock(document), (520, 1100))
    dock.tabs.setCurrentWidget(dock.splitter)
    panel = dock.cost_panel
    machine = document.plan.machines[0]
    # Give every part a price the plan owns (a user's quote), as the bill of materials would use it.
    for part in ("proart-x670e-creator", "crucial-ddr5-5600-48gb-udimm", "fractal-define-7-xl"):
        document.apply(edits.set_price_override, part=part, price_usd=300.0, catalog=catalog)
    purchase = purchase_of_machine(catalog, machine, document.plan.user_prices)
    assert purchase.price_usd is not None and not purchase.unpriced
    assert dock.curve is not None
    decode = dock.curve.tokens_per_s[0]
    key = dock.selected_key()
    assert key is not None
    index = dock.model.row_of(*key)
    assert index is not None
    prefill = dock.model.rows[index].prefill_tokens_per_s
    panel.cents_per_kwh.setValue(30.0)
    panel.utilisation.setValue(25)
    panel.years.setValue(4.0)
    expected = ownership_of(
        purchase,
        decode,
        prefill,
        CostSettings(electricity_usd_per_kwh=0.30, utilisation=0.25, amortisation_years=4),
    )
    assert expected is not None
    assert format_ownership(expected)[0] in panel.summary.text()
    assert format_ownership(expected)[1] in panel.summary.text()
    # Undoing the last price: the panel follows the plan's prices (a part left without one is
    # named, rather than a total that omits it).
    document.undo_stack.undo()
    after = purchase_of_machine(catalog, machine, document.plan.user_prices)
    if after.unpriced:
        assert panel.summary.text().startswith(f"Unknown: no price for {', '.join(after.unpriced)}")
    else:
        cost = ownership_of(after, decode, prefill, panel.settings())
        assert cost is not None and format_ownership(cost)[0] in panel.summary.text()
    for _ in range(3):
        QApplication.processEvents()
    document.undo_stack.redo()
    assert dock.grab().save(str(screenshot_dir(tmp_path) / "capacity-dock-cost.png"))
