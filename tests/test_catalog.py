"""The built-in catalog: every file loads, every entry is sourced, key figures match their sources."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog, load_catalog_file
from rackplanner.core.catalog.parts import (
    PART_KINDS,
    Board,
    Cpu,
    Gpu,
    LlmModel,
    NetworkSwitch,
    NvlinkBridge,
    Pdu,
    Server,
)

SEED_001 = "001_1caa315e8577a206.txt"


def test_every_catalog_file_loads() -> None:
    files = sorted(BUILTIN_CATALOG_DIR.glob("*.yaml"))
    assert {f.stem for f in files} >= {"gpu", "cpu", "board", "server", "pdu", "rack", "switch", "llm"}
    for path in files:
        entries = load_catalog_file(path, path.stem)
        assert entries, f"{path.name} is empty"


def test_ids_are_unique_kebab_case_and_sourced(catalog: Catalog) -> None:
    ids: list[str] = []
    for path in sorted(BUILTIN_CATALOG_DIR.glob("*.yaml")):
        ids += [part.id for _, part in load_catalog_file(path, path.stem)]
    assert len(ids) == len(set(ids)), "an id is used twice across catalog files"
    for part in catalog:
        assert re.fullmatch(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*", part.id)
        assert part.source and all(s.strip() for s in part.source), f"{part.id} has no source"
        if part.price_usd is not None:
            assert part.price_date is not None


def test_every_kind_is_represented(catalog: Catalog) -> None:
    kinds = {part.kind for part in catalog}
    assert kinds == set(PART_KINDS)


def _gpu(catalog: Catalog, part_id: str) -> Gpu:
    gpu = catalog.get_as(part_id, Gpu)
    assert gpu is not None, part_id
    assert any(SEED_001 in s for s in gpu.source), f"{part_id} should cite the seed's hardware table"
    return gpu


@pytest.mark.parametrize(
    ("part_id", "tflops", "bandwidth_gbs", "vram_gb"),
    [
        # The hardware table of 001_1caa315e8577a206.txt (TFLOP/s, GB/s, GB).
        ("rtx-4090", 165, 1008, 24),
        ("rtx-3090", 71, 936, 24),
        ("rtx-3060-12gb", 25, 360, 12),
        ("tesla-k80", 4, 240, 12),
        ("tesla-m40-24gb", 7, 288, 24),
        ("tesla-p40", 12, 347, 24),
    ],
)
def test_seed_gpu_table(catalog: Catalog, part_id: str, tflops: float, bandwidth_gbs: float, vram_gb: float) -> None:
    gpu = _gpu(catalog, part_id)
    assert gpu.tflops_for_inference == tflops
    assert gpu.mem_bw_gbs == bandwidth_gbs
    assert gpu.vram_gb == vram_gb
    # The table's FLOP/byte ratio column: 4090 163, 3090 75, 3060 70 (rounded).
    ratio = tflops * 1000 / bandwidth_gbs
    expected_ratio = {
        "rtx-4090": 163,
        "rtx-3090": 75,
        "rtx-3060-12gb": 70,
        "tesla-k80": 16,
        "tesla-m40-24gb": 24,
        "tesla-p40": 34,
    }[part_id]
    assert round(ratio) == pytest.approx(expected_ratio, abs=1)


def test_k80_is_two_gpus_per_card(catalog: Catalog) -> None:
    # 001_1caa315e8577a206.txt: "Each Tesla K80 card contains two individual GPU chips."
    assert _gpu(catalog, "tesla-k80").gpus_per_card == 2


def test_rtx_3090_power_and_nvlink(catalog: Catalog) -> None:
    gpu = _gpu(catalog, "rtx-3090")
    # 001_1caa315e8577a206.txt: assume an RTX 3090 has a maximum power draw of 600 W.
    assert gpu.transient_peak_w == 600
    # GA102 whitepaper: NV4, four x4 links, 56.25 GB/s per direction.
    assert (gpu.nvlink_links, gpu.nvlink_gbs) == (4, 56.25)
    # 001_1caa315e8577a206.txt: only workstation GPUs have PCIe P2P enabled.
    assert gpu.p2p_pcie is False and gpu.product_line == "geforce"
    bridge = catalog.get_as("nvlink-bridge-3090-4slot", NvlinkBridge)
    assert bridge is not None and "rtx-3090" in bridge.fits_gpus and bridge.gbs_per_direction == 56.25


def test_datacentre_cards_enable_p2p(catalog: Catalog) -> None:
    for part_id in ("v100-32gb-pcie", "a100-80gb-pcie", "rtx-a6000"):
        gpu = catalog.get_as(part_id, Gpu)
        assert gpu is not None and gpu.p2p_pcie


@pytest.mark.parametrize(
    ("part_id", "tflops", "bandwidth_gbs"),
    [
        # 001_1caa315e8577a206.txt hardware table: TFLOP/s and theoretical bandwidth.
        ("ryzen-9-7950x", 2.5, 83),  # "DDR5-5200 dual-channel"
        ("ryzen-7-7800x3d", 1.3, 83),
        ("core-i9-14900k", 2.5, 90),
        ("core-i5-14600k", 1.5, 90),
        ("xeon-platinum-8280", 4.8, 141),
        ("apple-m1-ultra", 21, 819),
    ],
)
def test_seed_cpu_table(catalog: Catalog, part_id: str, tflops: float, bandwidth_gbs: float) -> None:
    cpu = catalog.get_as(part_id, Cpu)
    assert cpu is not None
    assert cpu.peak_tflops == tflops
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(bandwidth_gbs, abs=1)


def test_single_root_server_layout(catalog: Catalog) -> None:
    # 000_2736fecfd42346e5.txt: all eight GPUs (128 lanes) on 32 lanes back to one socket
    # through 96-lane switches, hives of four; the remaining 8 lanes of that socket for a NIC.
    server = catalog.get_as("sys-4028gr-trt2", Server)
    assert server is not None
    board = catalog.get_as(server.board, Board)
    assert board is not None
    gpu_slots = [s for s in board.slots if s.parent in {sw.id for sw in board.switches}]
    assert len(gpu_slots) == 8
    assert sum(s.electrical_lanes for s in gpu_slots) == 128
    assert sum(sw.upstream_lanes for sw in board.switches) == 32
    sockets = {rc.socket for rc in board.root_complexes if rc.id in {sw.upstream for sw in board.switches}}
    assert sockets == {0}
    switch_part = catalog.get(board.switches[0].part)
    assert switch_part is not None and getattr(switch_part, "lanes", None) == 96
    nic_slot = next(s for s in board.slots if s.electrical_lanes == 8)
    assert nic_slot.parent == board.switches[0].upstream


def test_dual_root_x9_layout(catalog: Catalog) -> None:
    # 000_2736fecfd42346e5.txt: X9DRG-O-PCIE, per socket two x16 links to two PLX switches with
    # two GPUs each, the x8 slot on the same root complex.
    board = catalog.get_as("x9drg-o-pcie", Board)
    assert board is not None
    for rc in board.root_complexes:
        switches = [sw for sw in board.switches if sw.upstream == rc.id]
        assert [sw.upstream_lanes for sw in switches] == [16, 16]
        for sw in switches:
            assert len([s for s in board.slots if s.parent == sw.id]) == 2
        assert [s.electrical_lanes for s in board.slots if s.parent == rc.id] == [8]


def test_x670e_bifurcation(catalog: Catalog) -> None:
    # 001_1caa315e8577a206.txt: two GPUs on a consumer board run x8 each by bifurcation.
    board = catalog.get_as("proart-x670e-creator", Board)
    assert board is not None
    (group,) = board.bifurcation_groups
    assert (group.lanes, group.split_lanes, len(group.slots)) == (16, 8, 2)


def test_ap8966_figures(catalog: Catalog) -> None:
    # 002_daeb2f0cc80a7fe9.txt: 208 V 3PH, 60 A max input, derated 48 A, 17.3 kVA.
    pdu = catalog.get_as("apc-ap8966", Pdu)
    assert pdu is not None
    assert (pdu.voltage_v, pdu.input_current_a, pdu.phases, pdu.wiring) == (208, 60, 3, "delta")
    assert pdu.input_current_a * pdu.derating == 48
    assert math.sqrt(3) * pdu.voltage_v * pdu.input_current_a * pdu.derating == pytest.approx(17292.8, abs=0.1)
    assert pdu.load_capacity_va == 17300


def test_hdr_leaf_switch(catalog: Catalog) -> None:
    # 002_daeb2f0cc80a7fe9.txt: "40-port 200 Gb/s InfiniBand Leaf Switch".
    switch = catalog.get_as("mellanox-qm8700", NetworkSwitch)
    assert switch is not None and switch.fabric == "infiniband"
    assert [(g.count, g.speed_gbps) for g in switch.ports] == [(40, 200)]


def test_llm_architecture(catalog: Catalog) -> None:
    # Llama 3.1 70B config: 80 layers, 64 heads, 8 KV heads, head_dim 128, hidden 8192.
    llama = catalog.get_as("llama-3.1-70b", LlmModel)
    assert llama is not None
    assert (llama.layers, llama.attention_heads, llama.kv_heads, llama.head_dim) == (80, 64, 8, 128)
    assert llama.hidden_size == llama.attention_heads * llama.head_dim
    # Mixtral 8x7B: 8 experts, 2 active, 46.7B total, 12.9B active (arXiv 2401.04088).
    mixtral = catalog.get_as("mixtral-8x7b", LlmModel)
    assert mixtral is not None
    assert (mixtral.moe_experts, mixtral.moe_active_experts) == (8, 2)
    assert (mixtral.params_b, mixtral.active_params_b) == (46.7, 12.9)


def test_parse_cache_answers_for_unchanged_files_and_never_for_changed_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datetime

    from rackplanner.core.catalog import parsecache

    monkeypatch.setenv("RACKPLANNER_CACHE_DIR", str(tmp_path / "cache"))
    first = tmp_path / "gpu.yaml"
    first.write_text("- id: a\n  price_date: 2024-05-01\n")
    parses: list[str] = []

    def parse(path: Path) -> object:
        parses.append(path.name)
        return [{"id": path.read_text().split()[2], "price_date": datetime.date(2024, 5, 1)}]

    assert parsecache.parsed([first], parse) == {"gpu.yaml": [{"id": "a", "price_date": datetime.date(2024, 5, 1)}]}
    # Read back from the cache: not parsed again; the date comes back as the text the models accept.
    assert parsecache.parsed([first], parse) == {"gpu.yaml": [{"id": "a", "price_date": "2024-05-01"}]}
    assert parses == ["gpu.yaml"]
    first.write_text("- id: b\n  price_date: 2024-05-01\n")
    assert parsecache.parsed([first], parse)["gpu.yaml"] == [{"id": "b", "price_date": datetime.date(2024, 5, 1)}]
    assert parses == ["gpu.yaml", "gpu.yaml"]
    # A damaged cache file is ignored, never trusted.
    (stored,) = (tmp_path / "cache").glob("catalog-*.json")
    stored.write_text("{not json")
    assert parsecache.parsed([first], parse)["gpu.yaml"][0]["id"] == "b"  # type: ignore[index]
    assert len(parses) == 3


def test_built_in_catalog_is_the_same_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_CACHE_DIR", str(tmp_path / "cache"))
    parsed_yaml = load_catalog(include_user=False)  # parses and stores
    assert list((tmp_path / "cache").glob("catalog-*.json"))
    from_cache = load_catalog(include_user=False)
    assert from_cache.parts == parsed_yaml.parts
