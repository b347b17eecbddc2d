"""The few figures people choose a part by, formatted for lists, tooltips and the CLI."""

from __future__ import annotations

from rackplanner.core.catalog.parts import (
    Board,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    LlmModel,
    Memory,
    NetworkSwitch,
    Nic,
    NvlinkBridge,
    Part,
    PcieSwitch,
    Pdu,
    Psu,
    Rack,
    RackDevice,
    Server,
    UnifiedSystem,
)

UNKNOWN = "unknown"

Figure = tuple[str, str]


def _num(value: float | int | None, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return UNKNOWN
    text = f"{value:,.{digits}f}" if isinstance(value, float) and digits else f"{value:,g}"
    return f"{text} {unit}".strip()


def _memory(board: Board) -> str:
    """Channels per socket and the fastest listed DIMM speed, e.g. "8 ch DDR4-3200"."""
    if board.memory_channels_per_socket is None and board.max_memory_speed_mts is None:
        return UNKNOWN
    channels = f"{board.memory_channels_per_socket} ch" if board.memory_channels_per_socket else "? ch"
    speed = f"-{board.max_memory_speed_mts}" if board.max_memory_speed_mts else ""
    return f"{channels} {board.mem_type or ''}{speed}".strip()


def key_figures(part: Part) -> list[Figure]:
    """(label, text) pairs for the figures that matter for this kind of part."""
    figures: list[Figure]
    match part:
        case Gpu():
            figures = [
                ("VRAM", _num(part.vram_gb, "GB")),
                ("bandwidth", _num(part.mem_bw_gbs, "GB/s")),
                ("FP16 tensor", _num(part.fp16_tensor_tflops, "TFLOP/s")),
                ("TDP", _num(part.tdp_w, "W")),
                ("slots", _num(part.slot_width)),
                ("length", _num(part.length_mm, "mm")),
                ("PCIe", f"{part.pcie_gen}.0 x{part.pcie_lanes}"),
            ]
            if part.fp16_tensor_tflops is None and part.fp16_packed_tflops is not None:
                figures[2] = ("FP16", _num(part.fp16_packed_tflops, "TFLOP/s"))
            elif part.fp16_tensor_tflops is None and part.fp32_tflops is not None:
                figures[2] = ("FP32", _num(part.fp32_tflops, "TFLOP/s"))
        case Cpu():
            figures = [
                ("cores", _num(part.cores)),
                ("TDP", _num(part.tdp_w, "W")),
                ("memory", f"{part.mem_channels}ch {part.mem_type}-{part.mem_speed_mts}"),
                ("bandwidth", _num(round(part.theoretical_mem_bw_gbs, 1), "GB/s")),
                ("PCIe", f"{part.pcie_lanes} lanes Gen{part.pcie_gen}"),
                ("socket", part.socket),
            ]
        case Memory():
            figures = [
                ("size", _num(part.capacity_gb, "GB")),
                ("type", f"{part.mem_type}-{part.speed_mts} {part.module_type.upper()}"),
            ]
        case Drive():
            figures = [("size", _num(part.capacity_gb, "GB")), ("interface", part.interface.upper())]
        case Nic():
            figures = [
                ("ports", f"{part.ports} x {part.port_speed_gbps:g} Gb/s"),
                ("protocol", part.protocol),
                ("PCIe", f"{part.pcie_gen}.0 x{part.pcie_lanes}"),
            ]
        case PcieSwitch():
            figures = [("lanes", _num(part.lanes)), ("PCIe", f"Gen{part.pcie_gen}")]
        case NvlinkBridge():
            figures = [
                ("spacing", f"{part.slot_spacing} slots"),
                ("bandwidth", _num(part.gbs_per_direction, "GB/s per direction")),
            ]
        case Chassis():
            figures = [
                ("form", part.form + (f" {part.height_u}U" if part.height_u else "")),
                ("slots", _num(part.expansion_slots)),
                ("max GPU", _num(part.max_gpu_length_mm, "mm")),
            ]
        case Psu():
            figures = [("power", _num(part.watts, "W")), ("efficiency", part.efficiency or UNKNOWN)]
        case Server():
            figures = [
                ("height", f"{part.height_u}U"),
                ("GPUs", _num(part.max_gpus)),
                ("PSUs", f"{part.psu_count} ({part.psu_redundancy or 'no redundancy'})"),
            ]
        case UnifiedSystem():
            figures = [
                ("memory", _num(part.memory_gb, "GB") + (f" {part.mem_type}" if part.mem_type else "")),
                ("bandwidth", _num(part.mem_bw_gbs, "GB/s")),
                ("GPU FP16", _num(part.gpu_fp16_tflops, "TFLOP/s")),
                ("power", _num(part.max_power_w, "W")),
                ("form", part.form),
            ]
        case Board():
            figures = [
                ("socket", f"{part.sockets} x {part.cpu_socket}"),
                ("PCIe slots", _num(sum(1 for s in part.slots if s.kind == "pcie"))),
                ("DIMMs", _num(part.dimm_slots)),
                ("memory", _memory(part)),
                ("form", part.form_factor),
            ]
        case Rack():
            figures = [
                ("height", f"{part.height_u}U"),
                ("depth", _num(part.depth_mm, "mm")),
                ("max load", _num(part.max_load_kg, "kg")),
            ]
        case Pdu():
            outlets: dict[str, int] = {}
            for group in part.outlet_groups:
                for kind, count in group.outlets.items():
                    outlets[kind] = outlets.get(kind, 0) + count
            figures = [
                ("input", f"{part.voltage_v:g} V {part.phases}-ph {part.input_current_a:g} A"),
                (
                    "outlets",
                    ", ".join(f"{n} x {k.removeprefix('iec-60320-').upper()}" for k, n in outlets.items()),
                ),
            ]
        case NetworkSwitch():
            figures = [
                ("ports", ", ".join(f"{g.count} x {g.speed_gbps:g}G" for g in part.ports)),
                ("height", f"{part.height_u}U"),
                ("power", _num(part.power_max_w, "W")),
            ]
        case RackDevice():
            figures = [
                ("height", f"{part.height_u}U"),
                ("ports", ", ".join(f"{g.count} x {g.speed_gbps:g}G" for g in part.interfaces) or UNKNOWN),
                ("power", _num(part.draw_w, "W")),
            ]
        case LlmModel():
            figures = [
                ("params", _num(part.params_b, "B")),
                ("layers", _num(part.layers)),
                ("KV heads", _num(part.kv_heads)),
                ("context", _num(part.max_context)),
            ]
            if part.active_params_b is not None:
                figures.insert(1, ("active", _num(part.active_params_b, "B")))
        case _:
            figures = []
    figures.append(("price", f"${part.price_usd:,.0f}" if part.price_usd is not None else UNKNOWN))
    return figures
