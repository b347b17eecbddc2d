"""One edit re-derives only what it touched: counted calls, not wall time (the speed suite prints times)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from rackplanner.core.analysis import analyse_plan
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine import fit, power
from rackplanner.core.machine.topology import derive as topology_derive
from rackplanner.core.plan import edits
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.rack import fabric, mounting
from rackplanner.core.rack import power as rackpower

# The functions that do the work behind each cache: a call means a result was computed, not looked up.
WORKERS = {
    "topology": (topology_derive, "_derive"),
    "fit rules": (fit, "_check_machine"),
    "machine power": (power, "_machine_power"),
    "rack layout": (mounting, "_layout"),
    "rack power": (rackpower, "_rack_power"),
    "rack network": (fabric, "_rack_network"),
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    counted: Counter[str] = Counter()
    for name, (module, attribute) in WORKERS.items():
        original = getattr(module, attribute)

        def counting(*args: object, _name: str = name, _original: Callable[..., object] = original) -> object:
            counted[_name] += 1
            return _original(*args)

        monkeypatch.setattr(module, attribute, counting)
    yield counted


def test_a_power_limit_edit_recomputes_one_machine_and_its_rack(catalog: Catalog, calls: Counter[str]) -> None:
    plan = generate_row(6, seed=3)  # 6 racks, 48 servers (rackplanner.core.plan.generate)
    analyse_plan(plan, catalog)
    assert calls["rack power"] == 6 and calls["rack layout"] == 6
    calls.clear()
    # 187 W is a limit no generated server has, so no other machine's result can answer for it.
    edited = edits.set_power_limit(plan, machine="r03-s2", slot="gpu4", watts=187.0, catalog=catalog).plan
    analyse_plan(edited, catalog)
    assert calls == Counter(
        {"topology": 1, "fit rules": 1, "machine power": 1, "rack layout": 1, "rack power": 1, "rack network": 1}
    ), calls


def test_moving_a_server_between_racks_recomputes_those_two_racks_only(catalog: Catalog, calls: Counter[str]) -> None:
    plan = generate_row(6, seed=3)
    analyse_plan(plan, catalog)
    calls.clear()
    # Generated racks hold servers at U1-U32 and switches at U41-U42: U33-U36 is free.
    moved = edits.move_device(plan, rack="rack-01", device="r01-s1", to_rack="rack-04", position_u=33).plan
    analyse_plan(moved, catalog)
    # No machine changed, so no topology or machine power; both racks re-lay out and re-wire.
    assert calls == Counter({"rack layout": 2, "rack power": 2, "rack network": 2}), calls


def test_moving_a_device_within_a_rack_leaves_its_power_and_network_alone(
    catalog: Catalog, calls: Counter[str]
) -> None:
    plan = generate_row(6, seed=3)
    analyse_plan(plan, catalog)
    calls.clear()
    moved = edits.move_device(plan, rack="rack-02", device="mgmt", position_u=35).plan
    analyse_plan(moved, catalog)
    assert calls == Counter({"rack layout": 1}), calls


def test_analysis_of_an_unchanged_plan_computes_nothing(catalog: Catalog, calls: Counter[str]) -> None:
    plan = generate_row(3, seed=3)
    analyse_plan(plan, catalog)
    calls.clear()
    analyse_plan(plan, catalog)
    assert sum(calls.values()) == 0
