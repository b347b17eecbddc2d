"""Bill of materials: what a plan buys, by machine and rack, with prices, totals and CSV.

- ``lines``: the lines, their prices and the totals, and the CSV of them
"""
