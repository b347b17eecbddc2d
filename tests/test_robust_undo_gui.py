"""Undo through the app's own widgets: a random sequence of drops, card moves and deletes on the
machine canvas, undone with the Edit menu's Undo action back to the opened plan and redone with
Redo to the last plan, exactly (compared by ``plan_to_json``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import plan_to_json
from rackplanner.gui.mime import card_mime, part_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import drop, keep, make_window, slot_point

SERVER = EXAMPLES / "sys-4028gr-trt2-8gpu.json"
PARTS = ["a100-80gb-pcie", "l40s", "rtx-3090", "connectx-6-mcx653105a-hdat", "samsung-990-pro-2tb"]


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


@pytest.mark.parametrize("seed", [1])
def test_widget_edits_undo_and_redo_through_the_menu_actions(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, seed: int
) -> None:
    rng = random.Random(seed)
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    window.show()
    document = window.document
    texts = [plan_to_json(document.plan)]
    made = 0
    for _ in range(30):
        canvas = window.current_canvas()
        assert canvas is not None
        machine = document.plan.machine(canvas.machine_id)
        assert machine is not None
        occupied = [c.slot for c in machine.cards]
        slots = list(canvas.slot_items)
        action = rng.choice(["drop", "move", "delete"])
        if action == "drop":
            drop(canvas, part_mime(rng.choice(PARTS)), slot_point(canvas, rng.choice(slots)))
        elif action == "move" and occupied:
            slot = rng.choice(occupied)
            card = machine.card_in(slot)
            assert card is not None
            drop(canvas, card_mime(machine.id, slot, card.part), slot_point(canvas, rng.choice(slots)))
        elif action == "delete" and occupied:
            document.select_slots([rng.choice(occupied)])
            window.delete_action.trigger()
        text = plan_to_json(document.plan)
        if text != texts[-1]:
            texts.append(text)
            made += 1
    assert made >= 10, "most widget edits should be made"
    assert document.undo_stack.count() == made
    for i in range(len(texts) - 2, -1, -1):
        window.undo_action.trigger()
        assert plan_to_json(document.plan) == texts[i], f"undo to step {i} differs"
    assert not window.undo_action.isEnabled()
    assert not window.isWindowModified()
    for i in range(1, len(texts)):
        window.redo_action.trigger()
        assert plan_to_json(document.plan) == texts[i], f"redo to step {i} differs"
    assert not window.redo_action.isEnabled()
