"""The GPU catalog: the cards people buy are there, sourced, and their figures agree with each other.

The consistency checks catch the typos a spec sheet invites: a bandwidth that does not follow from
bus width and data rate, a sparse tensor figure entered as dense, an FP8 figure that is not twice
FP16, NVLink figures that do not add up per link.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog_file
from rackplanner.core.catalog.parts import Gpu, NvlinkBridge


def _gpus(catalog: Catalog) -> list[Gpu]:
    return [p for p in catalog if isinstance(p, Gpu)]


def _gpu(catalog: Catalog, part_id: str) -> Gpu:
    gpu = catalog.get_as(part_id, Gpu)
    assert gpu is not None, f"{part_id} is not in the GPU catalog"
    return gpu


# Every card issue 3 asks for, under its catalog id.
ISSUE_GPUS = [
    "rtx-3060-12gb",
    "rtx-3090",
    "rtx-3090-ti",
    "rtx-4060-ti-16gb",
    "rtx-4090",
    "rtx-5090",
    "rtx-a4000",
    "rtx-a5000",
    "rtx-a6000",
    "rtx-6000-ada",
    "l4",
    "l40s",
    "a10",
    "a40",
    "a100-40gb-pcie",
    "a100-80gb-pcie",
    "a100-40gb-sxm",
    "a100-80gb-sxm",
    "h100-pcie",
    "h100-sxm",
    "h100-nvl",
    "h200-sxm",
    "b200",
    "tesla-k80",
    "tesla-m40-24gb",
    "tesla-p40",
    "tesla-p100-16gb-pcie",
    "tesla-p100-sxm2",
    "v100-16gb-pcie",
    "v100-32gb-pcie",
    "v100-16gb-sxm2",
    "v100-32gb-sxm2",
    "mi300x",
    "mi250",
    "rx-7900-xtx",
    "arc-a770-16gb",
]


@pytest.mark.parametrize("part_id", ISSUE_GPUS)
def test_issue_gpus_are_in_the_catalog(catalog: Catalog, part_id: str) -> None:
    gpu = _gpu(catalog, part_id)
    assert gpu.vram_gb > 0 and gpu.tdp_w > 0


def test_every_gpu_source_can_be_opened() -> None:
    # A source is a URL or one of the seed documents, never a bare claim.
    entries = load_catalog_file(BUILTIN_CATALOG_DIR / "gpu.yaml", "gpu")
    assert len(entries) >= len(ISSUE_GPUS)
    for _, part in entries:
        assert isinstance(part, Gpu)
        for source in part.source:
            assert re.search(r"https?://\S+", source) or re.search(r"\b00\d_[0-9a-f]{16}\.txt\b", source), (
                f"{part.id}: source {source!r} names neither a URL nor a seed file"
            )


def test_bandwidth_follows_from_bus_width_and_data_rate(catalog: Catalog) -> None:
    checked = []
    for gpu in _gpus(catalog):
        if gpu.mem_bus_bits is None or gpu.mem_data_rate_gbps is None:
            continue
        assert gpu.mem_bw_gbs is not None, gpu.id
        computed = gpu.mem_bus_bits / 8 * gpu.mem_data_rate_gbps
        # 2% covers spec sheets rounding (V100: 4096 bit x 1.75 Gbps = 896, sheet 900 GB/s).
        assert computed == pytest.approx(gpu.mem_bw_gbs, rel=0.02), (
            f"{gpu.id}: {gpu.mem_bus_bits} bit x {gpu.mem_data_rate_gbps} Gbps = {computed:g} GB/s, "
            f"catalog says {gpu.mem_bw_gbs:g}"
        )
        checked.append(gpu.id)
    assert len(checked) >= 15, checked


@pytest.mark.parametrize(
    ("part_id", "bus_bits", "gbps", "bandwidth_gbs"),
    [
        ("a40", 384, 14.5, 696),  # A40 datasheet: 384-bit, 14.5 Gbps GDDR6, 696 GB/s
        ("rtx-5090", 512, 28, 1792),  # PC Perspective spec table: 512-bit, 28 Gbps, 1.79 TB/s
        ("rtx-4060-ti-16gb", 128, 18, 288),  # Pangoly / XDA: 18 Gbps on 128 bit, 288 GB/s
        ("rx-7900-xtx", 384, 20, 960),  # Guru3D: 384-bit, 20 Gbps, 960 GB/s
        ("l4", 192, 12.5, 300),  # fpsbench (TechPowerUp figures): 192 bit, 12.5 Gbps, 300.1 GB/s
        ("rtx-a5000", 384, 16, 768),  # alldbin: 384 bit, 16 Gbps GDDR6, 768.0 GB/s
        ("rtx-3080-10gb", 320, 19, 760),  # Tom's Hardware spec table: 320-bit, 19 Gbps, 760 GBps
        ("rtx-2080-ti", 352, 14, 616),  # NVIDIA's Turing Architecture In-Depth, Table 1 (FE)
        ("tesla-t4", 256, 10, 320),  # Spheron's T4 chart: 320 GB/s; 256-bit at 10 Gbps
        ("rx-7800-xt", 256, 19.5, 624),  # AMD's table via Sportskeeda: 256-bit, 19.5 Gbps; elektronika.lt 624 GB/s
        ("rx-7600-xt", 128, 18, 288),  # Meterpreter: 16GB GDDR6 on 128-bit, 18Gbps, 288GB/s
    ],
)
def test_memory_figures(catalog: Catalog, part_id: str, bus_bits: int, gbps: float, bandwidth_gbs: float) -> None:
    gpu = _gpu(catalog, part_id)
    assert (gpu.mem_bus_bits, gpu.mem_data_rate_gbps, gpu.mem_bw_gbs) == (bus_bits, gbps, bandwidth_gbs)


def _family(gpu: Gpu) -> str:
    """Architecture family with the chip where tensor rates differ within one generation."""
    arch = gpu.architecture or ""
    if arch.startswith("Ampere"):
        return "GA100" if "GA100" in arch else "GA10x"
    if arch.startswith("Blackwell"):
        return "GB100" if "GB100" in arch else "GB20x"
    return arch.split(" (")[0]


# Dense FP16 tensor TFLOP/s per FP32 TFLOP/s, from the sheets of each family: V100 112/14,
# A100 312/19.5, A40 149.7/37.4, H100 SXM 989.4/66.9, B200 2250/80 (Lockwood), MI250 362.1/45.3.
# GeForce cards run FP16 with FP32 accumulate at half the workstation rate (RTX 3090 71/35.58,
# RTX 4090 165/82.58, RTX 5090 209.5/104). A sparse figure entered as dense shows up as twice
# the ratio.
# RTX PRO 6000 Blackwell 503.8/125 (GB202 as the workstation part), MI100 184.6/23.1,
# MI325X 1307.4/163.4, MI355X 2516.6/157.3, Radeon AI PRO R9700 191/47.8, Arc Pro B60 98.3/12.3.
# The GB200's GPU runs 2500/80 = 31.3 (NVIDIA's GB200 NVL72 figures at its higher power), so the
# tolerance is 15%: a sparse figure is still twice the ratio and falls out.
TENSOR_PER_FP32 = {
    ("Volta", False): 8.0,
    ("Turing", False): 8.0,  # Tesla T4: 65 TFLOPS FP16/FP32 mixed precision, 8.1 FP32 (Spheron chart)
    ("Turing", True): 4.0,  # RTX 2080 Ti FE: 56.9 FP32 accumulate, 14.2 FP32 (NVIDIA's Turing blog)
    ("GA100", False): 16.0,
    ("GA10x", False): 4.0,
    ("GA10x", True): 2.0,
    ("Ada Lovelace", False): 4.0,
    ("Ada Lovelace", True): 2.0,
    ("Hopper", False): 14.8,
    ("GB100", False): 28.1,
    ("GB20x", False): 4.0,
    ("GB20x", True): 2.0,
    ("CDNA", False): 8.0,
    ("CDNA 2", False): 8.0,
    ("CDNA 3", False): 8.0,
    ("CDNA 4", False): 15.9,
    ("RDNA 3", False): 2.0,  # RX 7700 XT: 70.3 FP16 matrix on 35.17 FP32 (AMD's figures; FP32 dual-issue)
    ("RDNA 4", False): 4.0,
    ("Xe-HPG", False): 6.8,  # Arc A750: 28 Xe-cores x 2,048 FP16 XMX ops x 2.05 GHz = 117.6 on 17.2 FP32
    ("Xe2-HPG", False): 8.0,
}
# The L40's datasheet gives FP16 tensor with FP32 accumulate at 181.05 on 90.5 FP32 (half the
# L40S's rate, as on GeForce cards): Mullet's copy of the L40/L40S datasheet table.
# The H20 is Hopper throttled for export rules: 148 FP16 tensor on 44 FP32 (zangshuxian.com's
# dense figures, gpumap's table).
TENSOR_PER_FP32_BY_PART = {"l40": 2.0, "h20": 3.4}


def test_dense_tensor_figures_are_not_sparse(catalog: Catalog) -> None:
    checked = []
    for gpu in _gpus(catalog):
        if gpu.fp16_tensor_tflops is None or gpu.fp32_tflops is None:
            continue
        key = (_family(gpu), gpu.product_line == "geforce")
        assert key in TENSOR_PER_FP32, f"{gpu.id}: no expected tensor/FP32 ratio for {key}"
        expected = TENSOR_PER_FP32_BY_PART.get(gpu.id, TENSOR_PER_FP32[key])
        ratio = gpu.fp16_tensor_tflops / gpu.fp32_tflops
        assert ratio == pytest.approx(expected, rel=0.15), (
            f"{gpu.id}: FP16 tensor {gpu.fp16_tensor_tflops:g} is {ratio:.2f}x FP32 {gpu.fp32_tflops:g}, "
            f"expected {expected:g}x (a sparse figure would be twice that)"
        )
        checked.append(gpu.id)
    assert len(checked) >= 15, checked


# Dense FP16 tensor TFLOP/s per watt of board power, per generation; the ranges hold the cards
# of each generation from a 72 W L4 to a 700 W SXM module, and a sparse figure falls out of them.
TFLOPS_PER_WATT = {
    "Volta": (0.35, 0.6),  # V100 PCIe 112/250 = 0.45, SXM2 125/300 = 0.42
    "GA100": (0.7, 1.3),  # A100 SXM 312/400 = 0.78, PCIe 40GB 312/250 = 1.25
    "GA10x": (0.12, 0.9),  # RTX 3060 25/170 = 0.15, A10 125/150 = 0.83
    "Turing": (0.15, 1.2),  # RTX 2080 Ti FE 56.9/260 = 0.22, Tesla T4 65/70 = 0.93
    "Ada Lovelace": (0.25, 1.8),  # RTX 4070 Ti 80.2/285 = 0.28, L4 121/72 = 1.68
    # H100 SXM 989.4/700 = 1.41, H100 PCIe 756.5/350 = 2.16; GH200 989/1000 = 0.99, as its
    # 1,000 W is the whole module's (Grace CPU and LPDDR5X included).
    "Hopper": (0.9, 2.4),
    "GB100": (1.5, 3.0),  # B200 2250/1000 = 2.25, GB200's GPU 2500/1200 = 2.08
    # RTX 5070 61.7/250 = 0.247 (GeForce FP32 accumulate), RTX PRO 6000 Max-Q 1.46
    "GB20x": (0.24, 1.6),
    "CDNA": (0.4, 1.0),  # MI100 184.6/300 = 0.62
    "CDNA 2": (0.5, 1.0),  # MI250 362.1/500 = 0.72 per module, MI210 181/300 = 0.60
    "CDNA 3": (1.2, 2.2),  # MI300X 1300/750 = 1.73, MI325X 1307/1000 = 1.31
    "CDNA 4": (1.2, 2.4),  # MI355X 2516.6/1400 = 1.80
    "RDNA 3": (0.2, 0.5),  # RX 7600 XT 45.1/190 = 0.24, Radeon PRO W7800 90.5/260 = 0.35
    "RDNA 4": (0.4, 1.0),  # RX 9070 XT 195/304 = 0.64
    "Xe-HPG": (0.3, 0.8),  # Arc A580 83.6/175 = 0.48, A750 117.6/225 = 0.52
    # Arc Pro B60 98.3/200 = 0.49; the slot-powered Arc Pro B50 85.2/70 = 1.22
    "Xe2-HPG": (0.3, 1.3),
}


# The throttled H20: 148 dense FP16 tensor TFLOPS at 400 W (willitrunai, gpumap) = 0.37.
TFLOPS_PER_WATT_BY_PART = {"h20": (0.3, 0.45)}


def test_tensor_tflops_per_watt_fit_the_generation(catalog: Catalog) -> None:
    checked = []
    for gpu in _gpus(catalog):
        if gpu.fp16_tensor_tflops is None:
            continue
        family = _family(gpu)
        assert family in TFLOPS_PER_WATT, f"{gpu.id}: no TFLOP/s per watt range for {family!r}"
        low, high = TFLOPS_PER_WATT_BY_PART.get(gpu.id, TFLOPS_PER_WATT[family])
        # Compute is per device, power per card.
        per_watt = gpu.fp16_tensor_tflops * gpu.gpus_per_card / gpu.tdp_w
        assert low <= per_watt <= high, f"{gpu.id}: {per_watt:.2f} TFLOP/s per W outside {low}-{high}"
        checked.append(gpu.id)
    assert len(checked) >= 20, checked


def test_fp8_is_twice_fp16(catalog: Catalog) -> None:
    # Ada, Hopper, Blackwell and CDNA 3 run FP8 at twice the FP16 rate (L4 242 vs 121,
    # H100 SXM 1978.9 vs 989.4, B200 4500 vs 2250).
    checked = []
    for gpu in _gpus(catalog):
        dense16 = gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops
        if gpu.fp8_tensor_tflops is None or dense16 is None:
            continue
        assert gpu.fp8_tensor_tflops == pytest.approx(2 * dense16, rel=0.03), gpu.id
        checked.append(gpu.id)
    assert {"rtx-4090", "l40s", "l4", "h100-pcie", "h100-sxm", "h100-nvl", "h200-sxm", "b200", "mi300x"} <= set(checked)


def test_h100_nvl_low_precision_is_per_gpu_and_dense(catalog: Catalog) -> None:
    """NVIDIA H100 NVL column (94 GB, 350-400 W, one card): FP8 and INT8 3,341 with sparsity,
    halved; not the launch material's figures for the two-card pair."""
    gpu = _gpu(catalog, "h100-nvl")
    assert (gpu.fp8_tensor_tflops, gpu.int8_tensor_tops) == (1670.5, 1670.5)
    assert gpu.vram_gb == 94


def test_nvidia_int8_is_twice_fp16_on_datacentre_and_workstation_cards(catalog: Catalog) -> None:
    # A100 624 vs 312, A40 299.3 vs 149.7 (datasheet). GeForce cards halve FP16 with FP32
    # accumulate but not INT8 (RTX 4090 660.6 vs 165), so they are left out.
    checked = []
    for gpu in _gpus(catalog):
        if gpu.vendor != "NVIDIA" or gpu.product_line == "geforce":
            continue
        if gpu.int8_tensor_tops is None or gpu.fp16_tensor_tflops is None:
            continue
        assert gpu.int8_tensor_tops == pytest.approx(2 * gpu.fp16_tensor_tflops, rel=0.03), gpu.id
        checked.append(gpu.id)
    assert len(checked) >= 8, checked


@pytest.mark.parametrize(
    ("part_id", "dense_fp16"),
    [
        ("a40", 149.7),  # A40 datasheet: FP16 tensor 149.7 | 299.4* (* with sparsity)
        ("rtx-a4000", 76.7),  # A4000 datasheet: tensor performance 153.4 TFLOPS, with sparsity
        ("l4", 121),  # gpu-specs (NVIDIA L4 datasheet): 121 dense, 242 sparse
        ("h100-sxm", 989.4),  # Lockwood: FP16 matrix 989.4, sparse 1978.9
        ("h200-sxm", 989),  # Yobitel: 989 BF16 dense, 1,979 sparse
        ("h100-nvl", 835.5),  # NVIDIA H100 NVL: FP16 1,671 with sparsity
        ("rtx-6000-ada", 364.2),  # Ada professional whitepaper: 364.2 dense, FP32 accumulate
        ("rtx-5090", 209.5),  # RTX Blackwell whitepaper: FP32 accumulate 209.5 dense (419 FP16 accumulate)
        ("b200", 2250),  # Lockwood, HGX B200 at 1000 W: FP16 2250 dense, 4500 sparse
        ("mi250", 181.05),  # AMD: 362.1 TFLOPS FP16 per module of two GCDs
    ],
)
def test_dense_fp16_figures(catalog: Catalog, part_id: str, dense_fp16: float) -> None:
    assert _gpu(catalog, part_id).fp16_tensor_tflops == dense_fp16


def test_devices_per_card(catalog: Catalog) -> None:
    # AMD/Yobitel: an MI250 module holds two GCDs, seen as two GPUs; 128 GB and 3.2 TB/s per module.
    mi250 = _gpu(catalog, "mi250")
    assert mi250.gpus_per_card == 2
    assert (mi250.vram_gb * 2, mi250.mem_bw_gbs and mi250.mem_bw_gbs * 2) == (128, 3200)
    # hmc-tech / Wikipedia: an A16 card holds four GA107 GPUs of 16 GB and 200 GB/s each
    # (64 GB and 4 x 200 GB/s a card) under one 250 W board power.
    a16 = _gpu(catalog, "a16")
    assert (a16.gpus_per_card, a16.vram_gb * 4, a16.mem_bw_gbs, a16.tdp_w) == (4, 64, 200, 250)
    # Every other card is one device.
    assert all(g.gpus_per_card == 1 for g in _gpus(catalog) if g.id not in {"mi250", "tesla-k80", "a16"})


def test_transient_peaks_sit_above_board_power(catalog: Catalog) -> None:
    # 001_1caa315e8577a206.txt budgets an RTX 3090 (350 W) at 600 W; Igor's Lab measured an
    # RTX 5090 Founders Edition (575 W) at 738 W over 1-10 ms.
    assert _gpu(catalog, "rtx-3090").transient_peak_w == 600
    assert _gpu(catalog, "rtx-5090").transient_peak_w == 738
    for gpu in _gpus(catalog):
        if gpu.transient_peak_w is not None:
            assert gpu.tdp_w < gpu.transient_peak_w <= 2 * gpu.tdp_w, gpu.id


def test_p2p_follows_the_product_line(catalog: Catalog) -> None:
    # 001_1caa315e8577a206.txt: only workstation GPUs have PCIe P2P enabled; datacentre parts too.
    for gpu in _gpus(catalog):
        expected = gpu.product_line not in {"geforce", "radeon", "arc"}
        assert gpu.p2p_pcie is expected, gpu.id


def test_modules_are_not_cards(catalog: Catalog) -> None:
    modules = [g for g in _gpus(catalog) if g.form_factor != "pcie"]
    assert {"a100-80gb-sxm", "h100-sxm", "b200", "v100-32gb-sxm2", "mi300x"} <= {g.id for g in modules}
    for gpu in modules:
        assert gpu.slot_width is None and gpu.length_mm is None, gpu.id


# NVLink bandwidth per link per direction by generation: GA102 whitepaper 14.0625 GB/s; NVLink
# 2.0-4.0 50 GB/s per bidirectional link (wikimili: V100 6, A100 12, H100 18 links); NVLink 5
# 100 GB/s per link (NVIDIA: 18 links, 1.8 TB/s per Blackwell GPU).
PER_LINK_GBS = {"GA10x": 14.0625, "Volta": 25, "GA100": 25, "Hopper": 25, "GB100": 50}


def test_nvlink_figures_add_up_per_link(catalog: Catalog) -> None:
    checked = []
    for gpu in _gpus(catalog):
        if not gpu.nvlink_links or not gpu.nvlink_gbs:
            continue
        assert gpu.nvlink_gbs / gpu.nvlink_links == pytest.approx(PER_LINK_GBS[_family(gpu)]), gpu.id
        checked.append(gpu.id)
    assert {"rtx-3090", "a40", "a100-80gb-sxm", "h100-sxm", "v100-16gb-sxm2", "b200"} <= set(checked)


def test_bridges_match_their_gpus(catalog: Catalog) -> None:
    bridges = [p for p in catalog if isinstance(p, NvlinkBridge)]
    assert "nvlink-bridge-a100-2slot" in {b.id for b in bridges}
    for bridge in bridges:
        for part_id in bridge.fits_gpus:
            gpu = _gpu(catalog, part_id)
            # A bridge carries all of the card's links: 4 on GA102, 12 on an A100 PCIe pair.
            assert (bridge.links, bridge.gbs_per_direction) == (gpu.nvlink_links, gpu.nvlink_gbs), bridge.id
            assert gpu.slot_width is not None and gpu.slot_width <= bridge.slot_spacing, bridge.id


def test_cli_search_finds_a100s() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "catalog", "gpu", "--search", "a100", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    ids = {row["id"] for row in json.loads(result.stdout)}
    assert ids == {"a100-40gb-pcie", "a100-80gb-pcie", "a100-40gb-sxm", "a100-80gb-sxm"}


def test_cli_search_by_vendor() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "catalog", "gpu", "--search", "amd"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    listed = {line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ")}
    # Every AMD GPU, no other vendor's (catalog gpu.yaml).
    assert {"mi300x", "mi250", "rx-7900-xtx", "mi50-32gb", "radeon-ai-pro-r9700"} <= listed
    assert all(line.split()[1] == "AMD" for line in result.stdout.splitlines() if line.startswith("  "))


@pytest.mark.parametrize(
    ("part_id", "packed_fp16"),
    [
        ("mi50-32gb", 26.5),  # AnandTech's MI210 article, MI50 column: FP16 26.5 TFLOPS
        ("mi60", 29.5),  # Everyeye Tech: MI60 FP16 29.5 TFLOPS
        ("tesla-p100-16gb-pcie", 18.7),  # Tom's Hardware: 18.7 TFLOPS half precision
    ],
)
def test_packed_fp16_is_the_gemm_rate_without_tensor_cores(catalog: Catalog, part_id: str, packed_fp16: float) -> None:
    gpu = _gpu(catalog, part_id)
    # No FP16 tensor cores; FP16 runs on the shader cores at twice the FP32 rate.
    assert gpu.fp16_tensor_tflops is None
    assert gpu.fp16_packed_tflops == packed_fp16
    assert gpu.fp32_tflops is not None and packed_fp16 == pytest.approx(2 * gpu.fp32_tflops, rel=0.02)
    assert gpu.tflops_for_inference == packed_fp16
