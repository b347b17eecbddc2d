"""The capacity dock's cost of ownership: $/month, $ per million tokens and break-even, with
the electricity price, utilisation, years and rental price as settings kept between sessions."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QVBoxLayout, QWidget

from rackplanner.core.capacity.cost import (
    CLOUD_SOURCE,
    DEFAULT_USD_PER_KWH,
    ELECTRICITY_SOURCE,
    CostSettings,
    format_ownership,
)
from rackplanner.core.capacity.purchase import Purchase, ownership_of

_KEYS = ("cost/cents_per_kwh", "cost/utilisation_percent", "cost/years", "cost/cloud_usd_per_gpu_hour")


def stored_cost_settings() -> CostSettings:
    """The cost settings the capacity dock keeps (its defaults where none is stored)."""
    stored = QSettings()
    cloud = float(stored.value(_KEYS[3], 0.0))  # type: ignore[arg-type]
    return CostSettings(
        electricity_usd_per_kwh=float(stored.value(_KEYS[0], DEFAULT_USD_PER_KWH * 100)) / 100,  # type: ignore[arg-type]
        utilisation=int(stored.value(_KEYS[1], 50)) / 100,  # type: ignore[call-overload]
        amortisation_years=float(stored.value(_KEYS[2], 3.0)),  # type: ignore[arg-type]
        cloud_usd_per_gpu_hour=cloud or None,
    )


class CostPanel(QGroupBox):
    """Cost of owning the shown machine while it runs the selected model."""

    settings_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Cost of ownership", parent)
        stored = stored_cost_settings()
        self.cents_per_kwh = QDoubleSpinBox()
        self.cents_per_kwh.setRange(0, 500)
        self.cents_per_kwh.setDecimals(2)
        self.cents_per_kwh.setSuffix(" ¢/kWh")
        self.cents_per_kwh.setValue(stored.electricity_usd_per_kwh * 100)
        self.cents_per_kwh.setToolTip(f"Electricity price (default: {ELECTRICITY_SOURCE})")
        self.utilisation = QSpinBox()
        self.utilisation.setRange(1, 100)
        self.utilisation.setSuffix(" % of hours busy")
        self.utilisation.setValue(round(stored.utilisation * 100))
        self.years = QDoubleSpinBox()
        self.years.setRange(0.5, 20)
        self.years.setDecimals(1)
        self.years.setSuffix(" years")
        self.years.setValue(stored.amortisation_years)
        self.years.setToolTip("Years the purchase is paid off over (straight line)")
        self.cloud = QDoubleSpinBox()
        self.cloud.setRange(0, 100)
        self.cloud.setDecimals(2)
        self.cloud.setPrefix("$")
        self.cloud.setSuffix(" per GPU-hour")
        # 0 stands for the sourced default, which holds for Hopper GPUs only.
        self.cloud.setSpecialValueText("default ($2 for Hopper)")
        self.cloud.setValue(stored.cloud_usd_per_gpu_hour or 0.0)
        self.cloud.setToolTip(f"Rental price to break even against (default: {CLOUD_SOURCE})")
        form = QFormLayout()
        form.addRow("Electricity", self.cents_per_kwh)
        form.addRow("Use", self.utilisation)
        form.addRow("Paid off over", self.years)
        form.addRow("Renting instead", self.cloud)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(form)
        for box in (self.cents_per_kwh, self.utilisation, self.years, self.cloud):
            box.valueChanged.connect(self._store)

    def settings(self) -> CostSettings:
        return CostSettings(
            electricity_usd_per_kwh=self.cents_per_kwh.value() / 100,
            utilisation=self.utilisation.value() / 100,
            amortisation_years=self.years.value(),
            cloud_usd_per_gpu_hour=self.cloud.value() or None,
        )

    def _store(self) -> None:
        stored = QSettings()
        values = (self.cents_per_kwh.value(), self.utilisation.value(), self.years.value(), self.cloud.value())
        for key, value in zip(_KEYS, values, strict=True):
            stored.setValue(key, value)
        self.settings_changed.emit()

    def show_cost(self, purchase: Purchase | None, decode: float | None, prefill: float | None) -> None:
        """The cost for ``purchase`` at one user's decode speed and the prefill speed."""
        if purchase is None:
            self.summary.setText("Shown for one machine (choose This machine).")
            return
        cost = ownership_of(purchase, decode, prefill, self.settings())
        if cost is None:
            missing = ", ".join(purchase.unpriced) or "its wall power"
            self.summary.setText(f"Unknown: no price for {missing}. Import a price list to fill it in.")
            return
        self.summary.setText("\n".join([*format_ownership(cost), "Tokens: one user (batch 1)."]))
