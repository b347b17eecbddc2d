"""Read an ``lspci -tv`` tree: which host bridge and which bridges each GPU and NIC sits behind.

``nvidia-smi topo -m`` says PHB or NODE but not which slots share a PCIe host bridge; the tree
does: each ``[dddd:bb]`` at its left edge is one host bridge, and every ``-[bus]`` on the way
to a device is a bridge (a root port or a switch port). nvidia-smi numbers GPUs in PCI bus
order, so the k-th NVIDIA GPU function by address is GPUk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rackplanner.core.errors import InputError

_ROOT = re.compile(r"\[(?P<domain>[0-9a-f]{4}):(?P<bus>[0-9a-f]{2})\]")
_ENTRY = re.compile(r"(?<![0-9a-f])(?P<devfn>[0-9a-f]{2}\.[0-9a-f])(?:-\[(?P<sec>[0-9a-f]{2})(?:-[0-9a-f]{2})?\])?")
_NAME = re.compile(r"(?<=[0-9a-f]{2}\.[0-9a-f])\s{2,}(?P<name>\S.*)$")
# Functions of a GPU that are not the GPU itself (HDMI audio, the USB-C controller of Turing cards).
_NOT_A_GPU = re.compile(r"audio|usb|ucsi|serial bus|bridge|nvswitch", re.I)


@dataclass(frozen=True)
class PciDevice:
    """One device function of the tree, with the host bridge and the bridges above it."""

    address: str  # 0000:c1:00.0
    name: str
    host_bridge: str  # 0000:c0
    bridges: tuple[str, ...]  # addresses of the root port and switch ports on the way down

    @property
    def is_gpu(self) -> bool:
        return "NVIDIA" in self.name and self.address.endswith(".0") and not _NOT_A_GPU.search(self.name)

    @property
    def is_rdma_nic(self) -> bool:
        return "Mellanox" in self.name or "ConnectX" in self.name


def parse_lspci_tree(text: str, origin: str = "the lspci tree") -> list[PciDevice]:
    """Every named device in an ``lspci -tv`` printout; InputError naming ``origin`` when there is no tree."""
    devices: list[PciDevice] = []
    # Open parents, left to right: (column, domain, bus their children sit on, host bridge, bridges).
    stack: list[tuple[int, str, str, str, tuple[str, ...]]] = []
    for line in text.splitlines():
        name_match = _NAME.search(line)
        body = line[: name_match.start()] if name_match else line
        for root in _ROOT.finditer(body):
            column = root.start()
            while stack and stack[-1][0] >= column:
                stack.pop()
            host = f"{root['domain']}:{root['bus']}"
            stack.append((column, root["domain"], root["bus"], host, ()))
        entries = [e for e in _ENTRY.finditer(body) if not _inside_root(body, e.start())]
        for index, entry in enumerate(entries):
            column = entry.start()
            while stack and stack[-1][0] >= column:
                stack.pop()
            if not stack:
                continue  # a line the tree does not explain (a prompt, a wrapped name)
            _, domain, bus, host, bridges = stack[-1]
            address = f"{domain}:{bus}:{entry['devfn']}"
            if entry["sec"] is not None:
                stack.append((column, domain, entry["sec"], host, (*bridges, address)))
            elif index == len(entries) - 1 and name_match:
                devices.append(PciDevice(address, name_match["name"].strip(), host, bridges))
    if not devices:
        raise InputError(f"{origin}: no lspci -tv tree found (lines like '+-[0000:c0]-+-01.1-[c1]----00.0  NVIDIA …')")
    return devices


def _inside_root(body: str, at: int) -> bool:
    """True where a match falls inside a ``[dddd:bb]`` or ``[bb-bb]`` bracket rather than being a device."""
    return body.rfind("[", 0, at) > body.rfind("]", 0, at)


def gpus_in_bus_order(devices: list[PciDevice]) -> list[PciDevice]:
    """The GPUs as nvidia-smi numbers them: by PCI address."""
    return sorted((d for d in devices if d.is_gpu), key=lambda d: d.address)


def shared_bridge_path(a: PciDevice, b: PciDevice) -> str:
    """The path class two devices' tree positions give: PIX/PXB under a shared switch, PHB, or NODE."""
    if a.host_bridge != b.host_bridge:
        return "NODE"  # or SYS across sockets; the tree does not say which socket a host bridge is on
    common = 0
    for x, y in zip(a.bridges, b.bridges, strict=False):
        if x != y:
            break
        common += 1
    # Under one root port only, they meet at the host bridge; deeper, a switch joins them.
    if common <= 1:
        return "PHB"
    return "PIX" if max(len(a.bridges), len(b.bridges)) - common <= 1 else "PXB"
