"""What a device type is (PDU, switch or other rack device), from everything its file says, with the reasons.

Never from a port count alone: an 8-GPU server has ten network ports and a management switch
may have few. The file's outlets make a PDU; otherwise switch and server evidence is weighed:
ports and their speeds, a console port, half depth, interfaces named as switch ports are, bays
for PCIe cards, drives or nodes, and the model names vendors give each kind of product.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rackplanner.core.catalog.netbox.reading import DeviceFile
from rackplanner.core.catalog.netbox.speeds import interface_speed

# Product lines by model name, as the vendors name them (PowerEdge servers, PowerSwitch switches...).
SERVER_MODELS = re.compile(
    r"poweredge|proliant|thinksystem|primergy|quantagrid|superserver|^sys-|^as-|^ssg-|^nf\d|^rs\d|^esc\d|"
    r"^dgx|^hgx|^g\d{3}-|^r\d{3}-|nuvo|apollo|ucs c",
    re.IGNORECASE,
)
SWITCH_MODELS = re.compile(
    r"powerswitch|^n\d+k-|nexus|catalyst|^dcs-|^qfx|^ex\d|^sn\d|^msn\d|^sb\d|^msb\d|^sx\d|^msx\d|^qm\d|^mqm\d|"
    r"^cs\d{4}|^as\d{4}-|^\d{4}-\d+[xq]|switch",
    re.IGNORECASE,
)
# UPSes and their battery packs, by what the file calls them or the product lines' names (APC
# Smart-UPS SMT/SMX/SRT/SC, Eaton 5PX/9PX, CyberPower OR, Riello Sentinel SDL/SDU, Tripp Lite SMART).
UPS_WORDS = re.compile(r"\bups\b|smart-ups|uninterruptible|battery (module|pack)|battery\+surge", re.IGNORECASE)
UPS_MODELS = re.compile(r"^(apc )?(smt|smx|srt|sc\d{3})|^5px|^9px|^or\d{3}|^sd[lu][ -]?\d|smart\d{3,4}", re.IGNORECASE)
# Interfaces named as switch operating systems name their ports.
SWITCH_PORT_NAMES = re.compile(r"^(ethernet\s?\d|swp\d|et-\d|xe-\d|ge-\d|eth1/|te\d|twe\d|hu\d|fo\d)", re.IGNORECASE)
SERVER_BAYS = re.compile(r"pcie|riser|slot|gpu|drive|disk|nvme|bay|cpu|dimm|ocp|aiom|node", re.IGNORECASE)


@dataclass
class Role:
    kind: str  # "pdu", "switch" or "rack-device"
    reasons: list[str] = field(default_factory=list)


def ups_evidence(device: DeviceFile) -> str | None:
    """Why the file describes a UPS or a battery pack (its outlets do not make it a PDU), or None."""
    model = re.sub(r"^(tripp lite|eaton|apc|cyberpower|riello)\s+", "", device.model, flags=re.IGNORECASE)
    if UPS_MODELS.search(model):
        return f"{device.model} is a UPS model name"
    outlets = " ".join(str(o.get("description", "")) for o in device.outlets)
    found = UPS_WORDS.search(f"{device.model} {device.comments} {outlets}")
    return f"the file says {found.group(0)!r}" if found else None


def decide_role(device: DeviceFile) -> Role:
    """The kind a device type imports as, and why (shown in the import report)."""
    if device.outlets:
        return Role("pdu", [f"{len(device.outlets)} power outlets"])
    data_ports = [i for i in device.interfaces if not i.get("mgmt_only") and interface_speed(i) is not None]
    fast = [i for i in data_ports if (interface_speed(i) or (0.0, ""))[0] >= 10]
    infiniband = [i for i in device.interfaces if str(i.get("type", "")).startswith("infiniband")]
    named = [i for i in data_ports if SWITCH_PORT_NAMES.match(str(i.get("name", "")))]
    bays = [b for b in [*device.module_bays, *device.device_bays] if SERVER_BAYS.search(b)]
    switch: list[tuple[int, str]] = []
    server: list[tuple[int, str]] = []
    if len(data_ports) >= 16:
        switch.append((2, f"{len(data_ports)} data ports"))
    elif len(data_ports) >= 8:
        switch.append((1, f"{len(data_ports)} data ports"))
    else:
        server.append((1, f"only {len(data_ports)} data ports"))
    if fast and len(fast) == len(data_ports) and len(fast) >= 8:
        switch.append((1, f"all {len(fast)} data ports at 10 Gb/s or more"))
    if infiniband:
        switch.append((2, f"{len(infiniband)} InfiniBand ports"))
    if device.console_ports:
        switch.append((1, "a console port"))
    if not device.is_full_depth and data_ports:
        switch.append((1, "not full depth, as network gear usually is"))
    if named and len(named) >= len(data_ports) / 2:
        switch.append((1, f"ports named as a switch names them ({named[0].get('name')}, ...)"))
    # A product line's name outweighs what the ports suggest: a PowerEdge R940 with eight 10G ports
    # and a console port is still a server (3 against the ports' 3, and a tie is not a switch).
    if SWITCH_MODELS.search(device.model):
        switch.append((3, f"{device.model} is a switch model name"))
    if SERVER_MODELS.search(device.model):
        server.append((3, f"{device.model} is a server model name"))
    if bays:
        server.append((2, f"bays for cards, drives or nodes ({', '.join(bays[:3])}{', ...' if len(bays) > 3 else ''})"))
    if device.subdevice_role == "parent":
        server.append((1, "a chassis with child devices"))
    switch_score, server_score = sum(s for s, _ in switch), sum(s for s, _ in server)
    # A switch entry needs data ports: a modular chassis whose ports are all on line cards
    # (Allied Telesis SwitchBlade x908) goes in as a rack device.
    if switch_score > server_score and switch_score >= 3 and data_ports:
        return Role("switch", [r for _, r in switch])
    return Role("rack-device", [r for _, r in server] or ["not a PDU, too little to call it a switch"])
