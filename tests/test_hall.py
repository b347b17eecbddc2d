"""Power at hall scale: row and hall totals, cooling load, the hall's budget."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.rack.hall import hall_power
from tests.conftest import EXAMPLES


def test_a_row_of_ten_racks_adds_up(catalog: Catalog) -> None:
    plan = generate_row(10, seed=3)
    analysis = analyse(plan, catalog)
    racks = {r.id: analysis.rack_power(r.id) for r in plan.racks}
    load_w = sum(p.load_w for p in racks.values())
    hall = hall_power(plan, catalog, racks, budget_kw=load_w / 1000 - 1)
    (row,) = hall.rows
    assert row.racks == 10 and row.load_kw == pytest.approx(load_w / 1000)
    # Every watt ends as heat: 1 W = 3.412 BTU/hr, 12,000 BTU/hr a ton of refrigeration.
    assert hall.heat_btu_hr == pytest.approx(load_w * 3.412)
    assert hall.cooling_tons == pytest.approx(load_w * 3.412 / 12_000)
    # Two PDUs per rack, on the A and B feeds (plan/generate.py).
    assert (row.pdus_a, row.pdus_b) == (10, 10)
    assert hall.over_budget and "over its" in hall.findings[0]
    assert not hall_power(plan, catalog, racks, budget_kw=load_w / 1000 + 1).over_budget


def test_power_command_prints_and_returns_the_hall() -> None:
    args = [sys.executable, "-m", "rackplanner", "power", str(EXAMPLES / "colo-rack.json"), "--hall-kw", "5"]
    text = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert text.returncode == 0 and "cooling must remove" in text.stdout and "over its 5.0 kW budget" in text.stdout
    data = json.loads(subprocess.run([*args, "--json"], capture_output=True, text=True, timeout=60).stdout)
    assert data["hall"]["over_budget"] is True and data["hall"]["budget_kw"] == 5
