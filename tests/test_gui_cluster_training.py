"""The capacity dock's training tab across a whole cluster plan: interruptions a day and goodput."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.rack.cluster_plan import generate_cluster
from rackplanner.gui.document import PlanDocument
from tests.test_gui_capacity_dock import make_dock


def test_training_across_the_whole_plan_counts_every_gpu(qtbot: QtBot, catalog: Catalog) -> None:
    dock = make_dock(qtbot, PlanDocument(generate_cluster(256), catalog))
    dock.tabs.setCurrentIndex(dock.tabs.indexOf(dock.training_page))
    assert dock.select("llama-3.1-70b", "fp16")
    assert dock.training is not None and dock.training.gpus == 8  # the current machine: one DGX H100
    box = dock.training_box.whole_plan
    on_the_box = QPoint(8, box.height() // 2)  # the tick box at the row's left
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=on_the_box)
    training = dock.training
    assert training is not None and training.gpus == 256 * 8 and training.machines == 256
    assert training.failures is not None
    # Llama 3 rates (arXiv 2407.21783, Table 5: 419 interruptions in 54 days on 16,384 GPUs) scaled
    # to 2,048 GPUs: about 0.97 a day.
    assert 419 / 54 / 8 * 0.95 < training.failures.interruptions_per_day < 419 / 54 / 8 * 1.1
    assert "in 256 machines" in dock.training_summary.text()
    assert f"goodput {training.failures.goodput:.1%}" in dock.interruptions.text()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=on_the_box)
    assert dock.training is not None and dock.training.gpus == 8


def test_the_network_dock_sizes_the_plans_fabric_after_an_edit(qtbot: QtBot, catalog: Catalog) -> None:
    from rackplanner.core.plan import edits
    from tests.test_gui_network_dock import make_dock as make_network_dock

    document = PlanDocument(generate_cluster(64), catalog)
    document.set_current_rack("su01-rack-001")
    dock = make_network_dock(qtbot, document)
    box = dock.plan_fabric
    qtbot.waitUntil(lambda: box.isVisible() and box.fabric is not None)
    # 64 DGX x 8 rails on 64-port QM9700: 2 units of 32 nodes, 16 rail leaves and 8 spines, all mounted.
    assert "In the plan: 16 of 16 leaf, 8 of 8 spine" in box.summary.text()
    # Take two spines out: the box says so once the edits pause.
    for spine in ("spine-1", "spine-2"):
        document.apply(edits.unmount_device, rack="network-01", device=spine)
    qtbot.waitUntil(lambda: "6 of 8 spine" in box.summary.text())
    assert "lacks 2 spine" in box.summary.text()
