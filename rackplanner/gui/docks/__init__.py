"""The docks around the canvas: catalog, machine form, findings, power, capacity, network."""
