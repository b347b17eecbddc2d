"""Bill of materials: what a plan buys, by machine and rack, with prices, totals and CSV.

- ``model``: lines, groups and totals; ``build``: the counting rules and prices (``build_bom``)
- ``csv_rows``: the CSV of the lines, with stable columns
"""

from rackplanner.core.bom.build import build_bom
from rackplanner.core.bom.csv_rows import CSV_COLUMNS, bom_csv, bom_csv_rows, write_bom_csv
from rackplanner.core.bom.model import CURRENCY, NO_PRICE, Bom, BomGroup, BomLine, BomTotals, format_usd

__all__ = [
    "CSV_COLUMNS",
    "CURRENCY",
    "NO_PRICE",
    "Bom",
    "BomGroup",
    "BomLine",
    "BomTotals",
    "bom_csv",
    "bom_csv_rows",
    "build_bom",
    "format_usd",
    "write_bom_csv",
]
