"""The PCIe/NVLink block diagram of a machine, drawn as a graphics scene (the dock and the report share it).

- ``tree``: the boxes and how they hang together; ``layout``: where each goes
- ``items``: boxes and labels with pre-shaped text; ``scene``: ``DiagramScene`` builds and colours it
"""
