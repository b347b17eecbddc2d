"""Block diagram dock, driven like a person would: real PlanDocument, clicks on the view, undo.

Every expected figure comes from the topology core or the catalog entry named beside it.
Screenshots go to $RACKPLANNER_SHOTS (or the test's tmp folder); the path is printed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.machine.topology import derive_topology, format_topo_matrix, pcie_gbs
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.draw import colors
from rackplanner.gui.docks.block_diagram import BlockDiagramDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_dock


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def save_shot(dock: BlockDiagramDock, tmp_path: Path, name: str) -> Path:
    path = shots(tmp_path) / f"{name}.png"
    assert dock.grab().save(str(path))
    print(f"screenshot: {path}")
    return path


def open_dock(qtbot: QtBot, document: PlanDocument, size: tuple[int, int] = (760, 820)) -> BlockDiagramDock:
    dock = shown_dock(qtbot, BlockDiagramDock(document), size)
    dock.view.fit()
    return dock


def example(name: str, catalog: Catalog) -> PlanDocument:
    path = EXAMPLES / name
    return PlanDocument(load_plan(path, catalog), catalog, path)


def built(catalog: Catalog, board: str, gpu: str, nic: str, cpu: str) -> PlanDocument:
    """A machine on a catalog board with a GPU in every GPU bay and a NIC in every other slot."""
    plan = edits.add_machine(Plan(name="t"), name="Server", board=board, cpu=cpu, cpu_count=2, catalog=catalog).plan
    machine = plan.machines[0].id
    layout = catalog.get_as(board, Board)
    assert layout is not None
    for slot in layout.slots:
        part = gpu if slot.kind == "sxm" or slot.id.startswith("gpu") else nic
        plan = edits.place_card(plan, machine=machine, slot=slot.id, part=part, catalog=catalog).plan
    return PlanDocument(plan, catalog)


def click(qtbot: QtBot, dock: BlockDiagramDock, node_id: str) -> None:
    box = dock.scene.boxes[node_id]
    pos = dock.view.mapFromScene(box.sceneBoundingRect().center())
    qtbot.mouseClick(dock.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def fills(dock: BlockDiagramDock) -> dict[str, str]:
    """Device name -> legend entry whose colour fills its box ('' for the plain fill)."""
    by_color = {color.name(): code for code, color in dock.legend_colors().items()}
    return {box.node.device: by_color.get(box.fill().name(), "") for box in dock.device_boxes()}


# --- SYS-4028GR-TRT2: eight GPUs behind two switches on one root complex ---------------------


def test_server_tree_has_its_gpus_switches_and_oversubscribed_uplinks(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path
) -> None:
    doc = example("sys-4028gr-trt2-8gpu.json", catalog)
    dock = open_dock(qtbot, doc)
    topo = derive_topology(doc.plan.machines[0], catalog)
    assert len(dock.device_boxes("gpu")) == 8 == len(topo.gpus)
    # catalog/board.yaml x10drg-o-plus-cpu: two PEX8796 switches (plx-a, plx-b) on cpu1.
    assert sorted(b.node.id for b in dock.node_boxes("switch")) == ["plx-a", "plx-b"]
    assert len(dock.device_boxes("nic")) == 1
    # Each switch: four GPUs x16 (64 lanes) on an x16 Gen3 uplink, 15.76 GB/s per direction: 4:1.
    uplink = next(u for u in topo.uplinks if u.switch == "plx-a")
    assert uplink.ratio == 4.0 and uplink.upstream_gbs == pytest.approx(pcie_gbs(3, 16), abs=0.01)
    assert dock.scene.edge_labels["plx-a"] == "Gen3 x16 · 15.76 GB/s 4:1 oversubscribed"
    assert dock.scene.edge_labels["plx-b"] == "Gen3 x16 · 15.76 GB/s 4:1 oversubscribed"
    # The oversubscribed uplinks are drawn in the warning colour, the device links are not.
    assert dock.scene.edges["plx-a"].pen().color() == colors.WARNING
    assert dock.scene.edges["dev:GPU0"].pen().color() != colors.WARNING
    # Device links: the V100s at PCIe 3.0 x16, the ConnectX-3 in the x8 slot on CPU1 (7.88 GB/s).
    assert dock.scene.edge_labels["dev:GPU0"] == f"Gen3 x16 · {pcie_gbs(3, 16):.2f} GB/s"
    assert dock.scene.edge_labels["dev:NIC0"] == f"Gen3 x8 · {pcie_gbs(3, 8):.2f} GB/s"
    # Two sockets joined by QPI (board.yaml: inter_socket_link QPI); the second socket has no devices.
    assert dock.scene.inter_socket_label == "QPI"
    assert dock.scene.boxes["socket1"].node.empty
    assert "plx-a carries 64 device lanes on a x16 Gen3 uplink (15.76 GB/s): 4:1 oversubscribed." in dock.notes_text()
    save_shot(dock, tmp_path, "block-diagram-sys-4028gr-trt2")


def test_clicking_a_gpu_selects_it_and_colours_the_others_by_path_class(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path
) -> None:
    doc = example("sys-4028gr-trt2-8gpu.json", catalog)
    dock = open_dock(qtbot, doc)
    topo = derive_topology(doc.plan.machines[0], catalog)
    assert set(fills(dock).values()) == {""}  # nothing selected: plain boxes
    with qtbot.waitSignal(doc.selection_changed):
        click(qtbot, dock, "dev:GPU0")
    assert doc.selected_slots == ["gpu1"]
    # nvidia-smi topo -m of this layout: GPU1-3 share GPU0's switch (PIX), GPU4-7 and the NIC
    # are reached through the CPU's host bridge (PHB).
    expected = {"GPU0": "X", **dict.fromkeys(["GPU1", "GPU2", "GPU3"], "PIX")}
    expected |= dict.fromkeys(["GPU4", "GPU5", "GPU6", "GPU7", "NIC0"], "PHB")
    assert fills(dock) == expected
    assert {name: topo.matrix["GPU0"][name] for name in expected} == expected
    assert dock.legend_colors()["PIX"] != dock.legend_colors()["PHB"]
    assert dock.scene.boxes["dev:GPU5"].badge is not None and dock.scene.boxes["dev:GPU5"].badge.text() == "PHB"
    save_shot(dock, tmp_path, "block-diagram-sys-4028gr-trt2-gpu0")

    # Selecting a slot elsewhere (the machine canvas) recolours from that GPU.
    doc.select_slots(["gpu6"])
    assert fills(dock)["GPU5"] == "X" and fills(dock)["GPU4"] == "PIX" and fills(dock)["GPU0"] == "PHB"
    doc.select_slots([])
    assert set(fills(dock).values()) == {""}


def test_removing_a_card_redraws_and_undo_restores(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("sys-4028gr-trt2-8gpu.json", catalog)
    dock = open_dock(qtbot, doc)
    machine = doc.plan.machines[0].id
    doc.apply(edits.remove_card, machine=machine, slot="gpu8")
    assert len(dock.device_boxes("gpu")) == 7
    # plx-b now has three GPUs x16 = 48 lanes on its x16 uplink: 3:1.
    assert dock.scene.edge_labels["plx-b"] == "Gen3 x16 · 15.76 GB/s 3:1 oversubscribed"
    doc.undo_stack.undo()
    assert len(dock.device_boxes("gpu")) == 8
    assert dock.scene.edge_labels["plx-b"] == "Gen3 x16 · 15.76 GB/s 4:1 oversubscribed"
    doc.undo_stack.redo()
    assert len(dock.device_boxes("gpu")) == 7


def test_matrix_dialog_shows_and_copies_the_topo_matrix(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("sys-4028gr-trt2-8gpu.json", catalog)
    dock = open_dock(qtbot, doc)
    dock.matrix_action.trigger()
    dialog = dock.matrix_dialog
    assert dialog is not None and dialog.isVisible()
    expected = format_topo_matrix(derive_topology(doc.plan.machines[0], catalog))
    assert dialog.text.toPlainText() == expected
    assert "GPU0\t X\t PIX\t PIX\t PIX\t PHB" in dialog.text.toPlainText()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == expected
    # The open dialog follows edits.
    doc.apply(edits.remove_card, machine=doc.plan.machines[0].id, slot="gpu8")
    assert "GPU7" not in dialog.text.toPlainText()


def test_wheel_zooms_and_fit_restores(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("sys-4028gr-trt2-8gpu.json", catalog)
    dock = open_dock(qtbot, doc)
    fitted = dock.view.transform().m11()
    centre = QPointF(dock.view.viewport().rect().center())
    wheel = QWheelEvent(
        centre,
        dock.view.viewport().mapToGlobal(centre),
        QPoint(0, 0),
        QPoint(0, 240),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(dock.view.viewport(), wheel)
    assert dock.view.transform().m11() == pytest.approx(fitted * 1.15**2)
    assert not dock.view.auto_fit
    dock.fit_action.trigger()
    assert dock.view.transform().m11() == pytest.approx(fitted) and dock.view.auto_fit
    # The whole tree fits in the view at the fitted scale.
    shown = dock.view.mapToScene(dock.view.viewport().rect()).boundingRect()
    assert shown.contains(dock.scene.sceneRect().adjusted(2, 2, -2, -2))


# --- other layouts ------------------------------------------------------------------------------


def test_home_rig_shows_nvlink_bridge_and_shared_lanes(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    doc = example("home-rig-2x3090.json", catalog)
    dock = open_dock(qtbot, doc, (560, 700))
    topo = derive_topology(doc.plan.machines[0], catalog)
    assert len(dock.device_boxes("gpu")) == 2 and len(dock.device_boxes("nvme")) == 1
    assert dock.node_boxes("switch") == [] and len(dock.node_boxes("chipset")) == 1
    # RTX 3090 NVLink bridge: NV4, 56.25 GB/s per direction (core pair from the bridge's catalog entry).
    pair = topo.pair("GPU0", "GPU1")
    assert pair.code == "NV4" and pair.gbs == 56.25
    assert dock.scene.nvlink_labels == ["NV4 · 56.25 GB/s"]
    # ProArt X670E: PCIEX16(G5)_1 and _2 share 16 lanes, so each card gets PCIe 4.0 x8 (15.75 GB/s).
    assert dock.scene.edge_labels["dev:GPU0"] == "Gen4 x8 · 15.75 GB/s card Gen4 x16"
    assert all(note in dock.notes_text() for note in topo.notes)
    click(qtbot, dock, "dev:GPU1")
    assert doc.selected_slots == [topo.device("GPU1").slot]
    assert fills(dock) == {"GPU0": "NV#", "GPU1": "X", "NVMe0": ""}  # an NVMe drive is not in the matrix
    save_shot(dock, tmp_path, "block-diagram-home-rig")
    # Clicking the drive selects it (outlined) and clears the colouring: it has no row in the matrix.
    click(qtbot, dock, "dev:NVMe0")
    assert doc.selected_slots == [topo.device("NVMe0").slot]
    assert set(fills(dock).values()) == {""}
    assert dock.scene.boxes["dev:NVMe0"].pen().color() == colors.SELECTED_BORDER
    assert dock.scene.boxes["dev:GPU0"].pen().color() != colors.SELECTED_BORDER


def test_dual_root_board_puts_the_far_socket_at_sys(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    doc = built(catalog, "x9drg-o-pcie", "v100-32gb-pcie", "connectx-6-mcx653105a-hdat", "xeon-e5-2680-v2")
    dock = open_dock(qtbot, doc, (900, 700))
    # board.yaml x9drg-o-pcie (seed 000_2736fecfd42346e5.txt): per socket two PEX8747, two GPUs each.
    assert len(dock.node_boxes("switch")) == 4 and len(dock.node_boxes("socket")) == 2
    assert len(dock.device_boxes("gpu")) == 8
    # Two GPUs x16 on an x16 uplink: 2:1.
    assert dock.scene.edge_labels["plx1a"].endswith("2:1 oversubscribed")
    click(qtbot, dock, "dev:GPU0")
    painted = fills(dock)
    assert painted["GPU1"] == "PIX" and painted["GPU2"] == "PHB" and painted["NIC0"] == "PHB"
    assert {painted[f"GPU{i}"] for i in range(4, 8)} == {"SYS"} and painted["NIC1"] == "SYS"
    save_shot(dock, tmp_path, "block-diagram-x9drg-dual-root")


def test_nvswitch_board_draws_one_fabric(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    doc = built(catalog, "dgx-a100-baseboard", "a100-40gb-sxm", "connectx-6-mcx653105a-hdat", "epyc-7742")
    dock = open_dock(qtbot, doc, (900, 760))
    # board.yaml dgx-a100-baseboard: two GPU root complexes per socket and the storage NIC's, four
    # Broadcom switches with a further switch level per NIC below each (tests/data/topo/05).
    assert len(dock.node_boxes("root")) == 5 and len(dock.node_boxes("switch")) == 12
    assert (
        len(dock.device_boxes("gpu")) == 8 and len(dock.device_boxes("nic")) == 9
    )  # eight compute slots and the storage slot
    # NVIDIA NVLink page: twelve NVLinks, 300 GB/s per direction through the NVSwitches: one box, no arcs.
    assert len(dock.scene.nvlink_labels) == 1
    assert "NV12" in dock.scene.nvlink_labels[0] and "300 GB/s" in dock.scene.nvlink_labels[0]
    # cpu.yaml epyc-7742: four xGMI links at 18 GT/s, 2 bytes per transfer = 144 GB/s per direction.
    assert dock.scene.inter_socket_label == "Infinity Fabric (xGMI) · 144 GB/s"
    doc.select_slots(["sxm1"])
    painted = fills(dock)
    assert {painted[f"GPU{i}"] for i in range(1, 8)} == {"NV#"}
    # NCCL dump of issue 1505: GPU0's NICs sit one bridge further down its switch tree (PXB).
    assert painted["NIC0"] == "PXB"
    save_shot(dock, tmp_path, "block-diagram-dgx-a100")


def test_dgx1_mesh_draws_each_nvlink_pair(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    doc = built(catalog, "dgx-1-v100", "v100-32gb-sxm2", "connectx-6-mcx653105a-hdat", "xeon-e5-2698-v4")
    dock = open_dock(qtbot, doc, (900, 760))
    topo = derive_topology(doc.plan.machines[0], catalog)
    nv = [p for p in topo.pairs if p.code.startswith("NV")]
    # board.yaml dgx-1-v100: the hybrid cube mesh wires 16 GPU pairs.
    assert len(nv) == 16 == len(dock.scene.nvlink_labels)
    assert sorted(set(dock.scene.nvlink_labels)) == ["NV1 · 25 GB/s", "NV2 · 50 GB/s"]
    save_shot(dock, tmp_path, "block-diagram-dgx-1")


# --- empty states -----------------------------------------------------------------------------


def test_empty_plan_and_machine_without_board(qtbot: QtBot, catalog: Catalog) -> None:
    doc = PlanDocument(Plan(name="empty"), catalog)
    dock = open_dock(qtbot, doc)
    assert dock.stack.currentWidget() is dock.message and "No machine" in dock.message.text()
    assert not dock.matrix_action.isEnabled() and dock.device_boxes() == []
    result = doc.apply(edits.add_machine, name="Bare", catalog=catalog)
    assert result is not None
    doc.set_current_machine(result.plan.machines[0].id)
    assert "Bare has no board" in dock.message.text()
    doc.apply(edits.configure_machine, machine="bare", board="proart-x670e-creator", catalog=catalog)
    assert dock.stack.currentWidget() is dock.view
    assert len(dock.node_boxes("socket")) == 1 and dock.device_boxes() == []
    assert not dock.matrix_action.isEnabled()  # no GPU or NIC: no matrix
    doc.apply(edits.place_card, machine="bare", slot="pciex16-g5-1", part="rtx-4090", catalog=catalog)
    assert len(dock.device_boxes("gpu")) == 1 and dock.matrix_action.isEnabled()
    # Undo back to no board: the message again.
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert dock.stack.currentWidget() is dock.message


def test_path_colours_are_distinct() -> None:
    shades = [colors.path_color(code).name() for code in ("X", "NV4", "PIX", "PXB", "PHB", "NODE", "SYS")]
    assert len(set(shades)) == len(shades)
    assert colors.path_class("NV12") == "NV#" and colors.path_class("PIX") == "PIX"


def test_devices_go_in_columns_in_a_tall_dock_and_side_by_side_in_a_wide_one(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("home-rig-2x3090.json", catalog)
    dock = open_dock(qtbot, doc, (420, 820))
    gpu0, gpu1 = dock.scene.boxes["dev:GPU0"], dock.scene.boxes["dev:GPU1"]
    assert dock.scene.stacked and gpu0.node.x == gpu1.node.x and gpu1.node.y > gpu0.node.y
    tall_scale = dock.view.transform().m11()
    dock.resize(1300, 420)
    qtbot.waitUntil(lambda: not dock.scene.stacked)
    gpu0, gpu1 = dock.scene.boxes["dev:GPU0"], dock.scene.boxes["dev:GPU1"]
    assert gpu0.node.y == gpu1.node.y and gpu1.node.x > gpu0.node.x
    # Same content either way: the NVLink bridge and both link labels.
    assert dock.scene.nvlink_labels == ["NV4 · 56.25 GB/s"] and len(dock.scene.edge_labels) == 4
    dock.resize(420, 820)
    qtbot.waitUntil(lambda: dock.scene.stacked)
    assert dock.view.transform().m11() == pytest.approx(tall_scale)


def test_a_hovered_drop_is_drawn_ahead_and_the_drop_only_shows_it(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rackplanner.bench.events import drag_over, drop_at
    from rackplanner.draw.block_diagram.scene import DiagramScene
    from rackplanner.gui.canvases.machine import MachineCanvas
    from rackplanner.gui.mime import part_mime
    from tests.guihelpers import shown_window, slot_point

    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "sys-4028gr-trt2-8gpu.json")
    doc = window.document
    doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
    dock = window.docks["BlockDiagramDock"]
    assert isinstance(dock, BlockDiagramDock)
    qtbot.waitUntil(lambda: len(dock.device_boxes("gpu")) == 7)
    canvas = window.current_canvas()
    assert isinstance(canvas, MachineCanvas)
    builds: list[int] = []
    real_build = DiagramScene.build

    def counting_build(scene: DiagramScene, *args: object, **kwargs: object) -> None:
        builds.append(1)
        real_build(scene, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DiagramScene, "build", counting_build)
    mime = part_mime("a100-80gb-pcie")
    assert drag_over(canvas, mime, slot_point(canvas, "gpu8"))
    # Hovering GPU slot 8 draws the diagram the drop would give, but shows nothing new yet.
    assert builds == [1] and len(dock.device_boxes("gpu")) == 7
    assert drop_at(canvas, mime, slot_point(canvas, "gpu8"))
    # The drop builds nothing more: the drawing made while hovering is the one shown.
    assert builds == [1]
    assert len(dock.device_boxes("gpu")) == 8
    fresh = DiagramScene()
    machine = doc.plan.machine("trainer")
    assert machine is not None
    board = catalog.get_as("x10drg-o-plus-cpu", Board)
    assert board is not None
    real_build(fresh, machine, board, derive_topology(machine, catalog), catalog, dock.font(), None)
    # Same links as a fresh drawing: GPU7 sits in slot 8 behind switch B at Gen3 x16.
    assert dock.scene.edge_labels == fresh.edge_labels
    assert dock.scene.edge_labels["dev:GPU7"] == f"Gen3 x16 · {pcie_gbs(3, 16):.2f} GB/s card Gen4 x16"


def test_compare_with_a_real_matrix_from_the_dock(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    topo_dir = Path(__file__).parent / "data" / "topo"
    stem = "14-wrx80-3975wx-2x-rtx5090-club3090-1140"
    document = PlanDocument(load_plan(topo_dir / f"{stem}.json", catalog), catalog)
    document.set_current_machine("real")
    dock = open_dock(qtbot, document)
    assert dock.compare_action.isEnabled()
    dialog = dock.compare_with(topo_dir / f"{stem}.txt")
    assert dialog is not None and dialog.isVisible()
    # tests/data/topo/14: PHB in the machine, NODE in the catalog's WRX80E layout (test_topology_real).
    text = dialog.text.toPlainText()
    assert "0 of 1 cells agree" in text and "GPU0-GPU1 plan NODE / real PHB" in text
    # The WRX80E's slot-to-host-bridge map is not sourced, so that cell is reported as not checked.
    assert "Not checked (1)" in text and "in every cell it can check" in text
    shot = shots(tmp_path) / "compare-not-checked.png"
    assert dialog.grab().save(str(shot))
    junk = tmp_path / "junk.txt"
    junk.write_text("hello", encoding="utf-8")
    bad = dock.compare_with(junk)
    assert bad is not None and "junk.txt: no nvidia-smi topo -m matrix found" in bad.text.toPlainText()


def test_compare_reads_an_lspci_tree_in_the_same_file(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    topo_dir = Path(__file__).parent / "data" / "topo"
    stem = "02-puget-wrx90-2x-rtx6000ada"
    document = PlanDocument(load_plan(topo_dir / f"{stem}.json", catalog), catalog)
    document.set_current_machine(document.plan.machines[0].id)
    dock = open_dock(qtbot, document)
    both = tmp_path / "topo-and-lspci.txt"
    matrix = (topo_dir / f"{stem}.txt").read_text(encoding="utf-8")
    both.write_text(matrix + "\n" + (topo_dir / f"{stem}.lspci.txt").read_text(encoding="utf-8"), encoding="utf-8")
    dialog = dock.compare_with(both)
    assert dialog is not None
    text = dialog.text.toPlainText()
    # 02's lspci -tv: both RTX 6000 Ada under host bridge 0000:c0, which settles the PHB cell.
    assert "1 settled by lspci -tv" in text and "sit under one host bridge 0000:c0" in text
    assert "Not checked" not in text and "The plan matches the machine." in text
