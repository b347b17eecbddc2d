"""A part's full specification as rich text: the palette's tooltip and the Properties window.

The key figures (``key_figures``) come first, as the palette row shows them; then every other
figure the catalog holds for the part, read from its pydantic model; then its sources.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from urllib.parse import urlsplit

from pydantic import BaseModel

from rackplanner.core.catalog.figures import UNKNOWN, key_figures
from rackplanner.core.catalog.parts import DriveBays, Part
from rackplanner.draw.card_art import plug_label

KIND_NAMES: dict[str, str] = {
    "gpu": "GPU",
    "cpu": "CPU",
    "memory": "Memory module",
    "drive": "Drive",
    "nic": "NIC",
    "pcie-switch": "PCIe switch",
    "nvlink-bridge": "NVLink bridge",
    "board": "Board",
    "server": "Server",
    "unified-system": "Unified-memory machine",
    "chassis": "Case",
    "psu": "PSU",
    "rack": "Rack",
    "pdu": "PDU",
    "switch": "Network switch",
    "rack-device": "Rack device",
    "llm": "LLM",
}

# Fields every part has, shown in the heading, the price row or the sources, not as figures.
_COMMON = frozenset({"id", "vendor", "model", "source", "notes", "price_usd", "price_date"})
# Fields a kind's key figures already show (figures.py), so the table does not say them twice.
_IN_KEY_FIGURES: dict[str, frozenset[str]] = {
    "gpu": frozenset({"vram_gb", "mem_bw_gbs", "tdp_w", "slot_width", "length_mm", "pcie_gen", "pcie_lanes"}),
    "cpu": frozenset({"cores", "tdp_w", "mem_channels", "mem_type", "mem_speed_mts", "pcie_lanes", "pcie_gen"})
    | frozenset({"socket", "mem_bw_gbs"}),
    "memory": frozenset({"capacity_gb", "mem_type", "speed_mts", "module_type"}),
    "drive": frozenset({"capacity_gb", "interface"}),
    "nic": frozenset({"ports", "port_speed_gbps", "protocol", "pcie_gen", "pcie_lanes"}),
    "pcie-switch": frozenset({"lanes", "pcie_gen"}),
    "nvlink-bridge": frozenset({"slot_spacing", "gbs_per_direction"}),
    "chassis": frozenset({"form", "height_u", "expansion_slots", "max_gpu_length_mm"}),
    "psu": frozenset({"watts", "efficiency"}),
    "server": frozenset({"height_u", "max_gpus", "psu_count", "psu_redundancy"}),
    "unified-system": frozenset({"memory_gb", "mem_type", "mem_bw_gbs", "gpu_fp16_tflops", "max_power_w", "form"}),
    "board": frozenset({"sockets", "cpu_socket", "dimm_slots", "form_factor", "memory_channels_per_socket"})
    | frozenset({"max_memory_speed_mts", "mem_type"}),
    "rack": frozenset({"height_u", "depth_mm", "max_load_kg"}),
    "pdu": frozenset({"voltage_v", "phases", "input_current_a", "outlet_groups"}),
    "switch": frozenset({"ports", "height_u", "power_max_w"}),
    "rack-device": frozenset({"height_u", "interfaces", "power_max_w"}),
    "llm": frozenset({"params_b", "active_params_b", "layers", "kv_heads", "max_context"}),
}
# The unit a field name ends in (the catalog puts units in names), longest first.
_UNITS: tuple[tuple[str, str], ...] = (
    ("_tflops", "TFLOP/s"),
    ("_tops", "TOP/s"),
    ("_gbps", "Gb/s"),
    ("_gbs", "GB/s"),
    ("_gts", "GT/s"),
    ("_mbs", "MB/s"),
    ("_mts", "MT/s"),
    ("_ghz", "GHz"),
    ("_bits", "bits"),
    ("_gb", "GB"),
    ("_mb", "MB"),
    ("_mm", "mm"),
    ("_kg", "kg"),
    ("_va", "VA"),
    ("_w", "W"),
    ("_v", "V"),
    ("_a", "A"),
    ("_u", "U"),
    ("_b", "B"),
)
_WORDS = {
    "mem": "memory",
    "bw": "bandwidth",
    "tdp": "TDP",
    "pcie": "PCIe",
    "nvlink": "NVLink",
    "nvswitch": "NVSwitch",
    "p2p": "P2P",
    "psu": "PSU",
    "gpu": "GPU",
    "gpus": "GPUs",
    "cpu": "CPU",
    "dimm": "DIMM",
    "bmc": "BMC",
    "moe": "MoE",
    "kv": "KV",
    "qk": "QK",
    "lora": "LoRA",
    "mgmt": "management",
    "l3": "L3",
    "2p": "2P",
    "fp16": "FP16",
    "bf16": "BF16",
    "fp8": "FP8",
    "int8": "INT8",
    "fp32": "FP32",
    "fp64": "FP64",
    "is": "",
}
# Where a name read from the field would be unclear.
_LABELS = {
    "pcie_8pin": ("PCIe 8-pin plugs", ""),
    "pcie_12v_2x6": ("12V-2x6 plugs", ""),
    "mem_data_rate_gbps": ("memory data rate", "Gb/s per pin"),
    "watts_low_line": ("power at 110-120 V", "W"),
    "zero_u_channels": ("0U side channels", ""),
    "nvlink_gbs": ("NVLink bandwidth", "GB/s"),
    "p2p_pcie": ("P2P over PCIe", ""),
    "inter_socket_link": ("inter-socket link", ""),
    "inter_socket_links": ("inter-socket links", ""),
    "inter_socket_gts": ("inter-socket link speed", "GT/s"),
    "inter_socket_gbs": ("inter-socket bandwidth", "GB/s"),
    "peak_tflops": ("peak compute", "TFLOP/s"),
    "avx512": ("AVX-512", ""),
    "amx": ("AMX", ""),
}
# Notes longer than this are cut short in the tooltip.
TOOLTIP_NOTES_CHARS = 400
_URL = re.compile(r"https?://[^\s<>\"')]+")


def field_label(name: str) -> tuple[str, str]:
    """('transient peak', 'W') for 'transient_peak_w': the words of a field name and its unit."""
    if name in _LABELS:
        return _LABELS[name]
    unit = ""
    for suffix, text in _UNITS:
        if name.endswith(suffix):
            name, unit = name.removesuffix(suffix), text
            break
    words = [_WORDS.get(w, w) for w in name.split("_")]
    return " ".join(w for w in words if w), unit


def _value_text(value: object, unit: str) -> str | None:
    """The text of a figure, or None when the catalog has nothing to show for it."""
    if value is None or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return f"{value:,g} {unit}".strip()
    if isinstance(value, BaseModel):
        return str(getattr(value, "name", None) or getattr(value, "id", None) or type(value).__name__)
    if isinstance(value, list) and all(isinstance(v, DriveBays) for v in value):
        return ", ".join(f"{b.count} × {b.size or 'size unknown'} {b.face}" for b in value)
    if isinstance(value, list) and all(isinstance(v, BaseModel) for v in value):
        kinds = Counter(str(getattr(v, "kind", "")) for v in value)
        if len(kinds) > 1 or "" not in kinds:
            # Board slots: "8 (7 PCIe, 1 M.2)".
            names = {"pcie": "PCIe", "m2": "M.2", "sxm": "SXM"}
            return f"{len(value)} (" + ", ".join(f"{n} {names.get(k, k)}" for k, n in kinds.items()) + ")"
        return str(len(value))
    if isinstance(value, list):
        counts = Counter(plug_label(str(v)) for v in value)
        return ", ".join(f"{n} × {v}" if n > 1 else v for v, n in counts.items())
    return str(value)


def spec_rows(part: Part) -> list[tuple[str, str]]:
    """(label, value) for every figure of the part: key figures first, then the rest of its model."""
    rows = list(key_figures(part))
    if part.price_usd is not None and part.price_date is not None:
        # When the price was seen says how much to trust it.
        rows = [(k, f"{v} ({part.price_date.isoformat()})" if k == "price" else v) for k, v in rows]
    shown = _COMMON | _IN_KEY_FIGURES.get(part.kind, frozenset())
    key_shown = {"FP16 tensor": "fp16_tensor_tflops", "FP16": "fp16_packed_tflops", "FP32": "fp32_tflops"}
    shown |= {field for label, field in key_shown.items() if label in dict(rows)}
    for name in type(part).model_fields:
        if name in shown:
            continue
        label, unit = field_label(name)
        text = _value_text(getattr(part, name), unit)
        if text is not None:
            rows.append((label, text))
    return rows


def source_html(source: str) -> str:
    """A citation, escaped, its web addresses as links named by their host."""
    out, last = [], 0
    for match in _URL.finditer(source):
        url = match.group(0).rstrip(".,;")
        out.append(html.escape(source[last : match.start()]))
        host = urlsplit(url).netloc.removeprefix("www.") or url
        out.append(f'<a href="{html.escape(url, quote=True)}">{html.escape(host)}</a>')
        last = match.start() + len(url)
    out.append(html.escape(source[last:]))
    return "".join(out)


def part_tooltip(part: Part, *, notes: bool = False) -> str:
    """Rich text with every figure of a part, two to a row, then its sources (and with ``notes``, the
    start of its notes).

    The notes are left out by default: the Properties window, which starts with this text, gives
    them whole under their own heading.
    """
    kind = KIND_NAMES.get(part.kind, part.kind)
    cells = [
        f"<td>{html.escape(label)}&nbsp;</td>"
        + (f"<td><i>{UNKNOWN}</i></td>" if value == UNKNOWN else f"<td><b>{html.escape(value)}</b></td>")
        for label, value in spec_rows(part)
    ]
    # Two figures to a row keep a long specification from running off the screen.
    gap = "<td width=14></td>"
    rows = "".join(f"<tr>{gap.join(cells[i : i + 2])}</tr>" for i in range(0, len(cells), 2))
    text = (
        f"<p style='margin:0'><b>{html.escape(part.label)}</b><br>"
        f"<small>{html.escape(kind)} · {html.escape(part.id)}</small></p>"
        f"<table cellspacing=0 cellpadding=1 style='margin-top:4px'>{rows}</table>"
    )
    sources = "".join(f"<li><small>{source_html(s)}</small></li>" for s in part.source)
    count = f"{len(part.source)} sources" if len(part.source) > 1 else "Source"
    text += f"<p style='margin-bottom:0'><b>{count}</b></p><ol style='margin-top:0'>{sources}</ol>"
    if notes and part.notes:
        shown = part.notes
        if len(shown) > TOOLTIP_NOTES_CHARS:
            # A tooltip is read at a glance; the Properties window has the notes whole.
            shown = shown[:TOOLTIP_NOTES_CHARS].rsplit(" ", 1)[0] + " … (more under Properties)"
        text += f"<p><b>Notes</b><br><small>{html.escape(shown)}</small></p>"
    return text
