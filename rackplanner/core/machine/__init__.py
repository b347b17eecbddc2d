"""One machine: does it fit, how its PCIe/NVLink devices connect, what it draws.

- ``fit``: physical and electrical compatibility rules, as findings
- ``topology``: the PCIe tree, each card's link, path classes, P2P and NCCL rules, ring all-reduce
- ``power``: DC load, transient peak for PSU sizing, wall power and heat
- ``placement``: where a dragged part may go, by the same rules as the findings
"""
