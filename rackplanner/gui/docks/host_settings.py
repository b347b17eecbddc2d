"""The machine's BIOS and OS settings (NUMA per socket, ACS, IOMMU, SMT, P2P driver, NCCL variables) as a form box."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QWidget

from rackplanner.core.plan import edits
from rackplanner.core.plan.model import HostSettings, Machine
from rackplanner.gui.document import PlanDocument

NUMA_CHOICES = ((1, "1 per socket (NPS1)"), (2, "2 per socket (NPS2 / SNC2)"), (4, "4 per socket (NPS4 / SNC4)"))
LEVEL_CHOICES = (None, "LOC", "NVL", "PIX", "PXB", "PHB", "SYS")

_CHECKS: tuple[tuple[str, str, str], ...] = (
    ("acs", "ACS on", "PCIe Access Control Services on: peer traffic goes up to the root complex"),
    ("iommu", "IOMMU translating", "DMA remapping in translation mode (not iommu=pt): P2P and GPUDirect RDMA off"),
    ("smt", "SMT (hyper-threading)", "Simultaneous multithreading: the siblings in the CPU affinity column"),
    ("p2p_driver", "P2P-enabled driver", "A driver that enables PCIe P2P on GeForce cards (patched open modules)"),
    ("nccl_p2p_disable", "NCCL_P2P_DISABLE=1", "NCCL never uses P2P, NVLink included"),
    ("nccl_nvb_disable", "NCCL_NVB_DISABLE=1", "NCCL does not route P2P through a third GPU over NVLink"),
)


class HostSettingsBox(QGroupBox):
    """Edits ``Machine.host``; each change is one undoable edit of the plan."""

    def __init__(self, document: PlanDocument, machine: Callable[[], Machine | None], parent: QWidget | None = None):
        super().__init__("BIOS and OS", parent)
        self._document = document
        self._machine = machine
        self.numa = QComboBox()
        self.numa.setToolTip("NUMA nodes per socket: AMD NPS or Intel sub-NUMA clustering, set in the BIOS")
        for value, text in NUMA_CHOICES:
            self.numa.addItem(text, value)
        self.p2p_level = QComboBox()
        self.p2p_level.setToolTip("NCCL_P2P_LEVEL: the furthest path on which NCCL uses P2P")
        for level in LEVEL_CHOICES:
            self.p2p_level.addItem("NCCL's default" if level is None else level, level)
        self.checks: dict[str, QCheckBox] = {}
        form = QFormLayout(self)
        form.addRow("NUMA nodes", self.numa)
        for field, text, tip in _CHECKS:
            box = QCheckBox(text)
            box.setToolTip(tip)
            box.toggled.connect(lambda on, f=field: self._set(**{f: on}))
            self.checks[field] = box
            form.addRow(box)
        form.addRow("NCCL_P2P_LEVEL", self.p2p_level)
        self.numa.currentIndexChanged.connect(lambda _i: self._set(numa_per_socket=self.numa.currentData()))
        self.p2p_level.currentIndexChanged.connect(lambda _i: self._set(nccl_p2p_level=self.p2p_level.currentData()))

    def fill(self, machine: Machine | None) -> None:
        """Show the machine's settings without sending edits back."""
        host = machine.host if machine is not None else HostSettings()
        widgets: list[QWidget] = [self.numa, self.p2p_level, *self.checks.values()]
        blockers = [QSignalBlocker(w) for w in widgets]
        try:
            self.numa.setCurrentIndex(max(0, self.numa.findData(host.numa_per_socket)))
            self.p2p_level.setCurrentIndex(max(0, self.p2p_level.findData(host.nccl_p2p_level)))
            for field, box in self.checks.items():
                box.setChecked(bool(getattr(host, field)))
            for widget in widgets:
                widget.setEnabled(machine is not None)
        finally:
            del blockers

    def _set(self, **settings: Any) -> None:
        machine = self._machine()
        if machine is None or all(getattr(machine.host, k) == v for k, v in settings.items()):
            return
        if self._document.apply(edits.set_host_settings, machine=machine.id, **settings) is None:
            self.fill(self._machine())
