"""The plan generator builds valid, deterministic rows of GPU racks."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import check_references, plan_to_json
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.rack.mounting import rack_layout


def test_rows_are_deterministic_and_valid(catalog: Catalog) -> None:
    plan = generate_row(3, seed=7)
    assert plan_to_json(plan) == plan_to_json(generate_row(3, seed=7))
    assert plan_to_json(plan) != plan_to_json(generate_row(3, seed=8))
    assert check_references(plan, catalog) == []
    # Eight 8-GPU servers per rack.
    assert len(plan.machines) == 24
    assert sum(len(m.cards) for m in plan.machines) == 24 * 9  # eight GPUs and a NIC each
    layout = rack_layout(plan, "rack-01", catalog)
    # Eight 4U servers at U1..U32 plus two 1U switches: 34 of 42 U, no collisions.
    assert layout.used_u == 34
    assert not [f for f in layout.findings if f.code == "collision"]
