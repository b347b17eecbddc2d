"""The part kinds by name, importable without pydantic (the command line offers them as choices)."""

PART_KIND_NAMES = (
    "board",
    "chassis",
    "cpu",
    "drive",
    "gpu",
    "llm",
    "memory",
    "nic",
    "nvlink-bridge",
    "pcie-switch",
    "pdu",
    "psu",
    "rack",
    "rack-device",
    "server",
    "switch",
    "unified-system",
)
