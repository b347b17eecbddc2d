"""The bill of materials as CSV: one row per line, stable columns (README, Bill of materials)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from rackplanner.core.bom.model import Bom
from rackplanner.core.files import write_atomic

# --- CSV ---------------------------------------------------------------------------------

# The CSV's columns, in order; their names and meaning stay stable (README, "Bill of materials").
CSV_COLUMNS = (
    "group_kind",
    "group_id",
    "group_name",
    "category",
    "part_id",
    "vendor",
    "model",
    "quantity",
    "unit_price_usd",
    "extended_price_usd",
    "price_date",
    "price_origin",
    "price_source",
    "note",
    # Added later, at the end so the columns before keep their places.
    "price_kind",
    "price_stale",
)


def bom_csv_rows(bom: Bom) -> list[dict[str, str]]:
    """One row per line of every machine and rack group; prices blank where there is none."""
    rows = []
    for group in bom.groups:
        for line in group.lines:
            rows.append(
                {
                    "group_kind": group.kind,
                    "group_id": group.id,
                    "group_name": group.name,
                    "category": line.category,
                    "part_id": line.part,
                    "vendor": line.vendor,
                    "model": line.model,
                    "quantity": str(line.quantity),
                    "unit_price_usd": "" if line.unit_price_usd is None else f"{line.unit_price_usd:.2f}",
                    "extended_price_usd": "" if line.extended_price_usd is None else f"{line.extended_price_usd:.2f}",
                    "price_date": line.price_date.isoformat() if line.price_date else "",
                    "price_origin": line.price_origin,
                    "price_source": line.price_source,
                    "note": line.note,
                    "price_kind": line.price_kind,
                    "price_stale": "yes" if line.priced and line.price_stale else "",
                }
            )
    return rows


def bom_csv(bom: Bom) -> str:
    """The BOM lines as CSV text: one header row (``CSV_COLUMNS``), then one row per line."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(bom_csv_rows(bom))
    return out.getvalue()


def write_bom_csv(bom: Bom, path: Path) -> Path:
    """Write ``bom_csv`` to ``path`` (UTF-8) in one piece; returns the path."""
    write_atomic(path, bom_csv(bom).encode("utf-8"))
    return path
