"""Weight formats: every llama.cpp preset, sized as llama-bench reports real GGUF files."""

from __future__ import annotations

import pytest
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.formats import FORMATS, active_weight_bytes, get_format, sized_format, weight_bytes
from rackplanner.core.capacity.layouts import ggml
from rackplanner.core.capacity.llama_quants import more_bits_share
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError

GIB = 2**30

# The quant types the capacity issue lists, as llama-quantize names them (lower case).
LLAMA_CPP_TYPES = [
    "q4_0",
    "q4_1",
    "q5_0",
    "q5_1",
    "q4_k_s",
    "q4_k_m",
    "q5_k_s",
    "q5_k_m",
    "q6_k",
    "q8_0",
    "q2_k",
    "q3_k_s",
    "q3_k_m",
    "q3_k_l",
    "iq1_s",
    "iq1_m",
    "iq2_xxs",
    "iq2_xs",
    "iq2_s",
    "iq2_m",
    "iq3_xxs",
    "iq3_xs",
    "iq3_s",
    "iq3_m",
    "iq4_xs",
    "iq4_nl",
    "mxfp4",
]


def test_every_llama_cpp_preset_and_block_format_is_known() -> None:
    for name in (*LLAMA_CPP_TYPES, "nvfp4", "fp8-block", "mxfp4-bf16", "mlx-4bit", "awq-int4-g128"):
        assert name in FORMATS, name
    with pytest.raises(InputError, match="unknown weight format 'q4_k_xl'"):
        get_format("q4_k_xl")


@pytest.mark.parametrize("name", ["Q4_0", "Q4_1", "Q5_0", "Q8_0", "Q4_K", "Q6_K", "IQ2_XXS", "IQ4_XS", "MXFP4"])
def test_ggml_layouts_are_the_gguf_tables(name: str) -> None:
    weights, size = GGML_QUANT_SIZES[GGMLQuantizationType[name]]
    assert ggml(name).bits_per_weight() == pytest.approx(size * 8 / weights)


def test_use_more_bits_picks_half_the_layers_plus_the_ends() -> None:
    # llama-quant.cpp use_more_bits(i, n) on 32 layers: the first 4, the last 4 and every third
    # in between (i - 4) % 3 == 2: 4 + 4 + 8 = 16 of 32.
    assert more_bits_share(32) == pytest.approx(16 / 32)


@pytest.mark.parametrize(
    ("model", "fmt", "gib"),
    [
        # llama-bench prints each file's size; the rows of tests/data/measured.csv cite the pages.
        ("llama-2-7b", "q4_0", 3.56),  # llama 7B Q4_0 3.56 GiB (llama.cpp PR tables)
        ("llama-3-70b", "q4_k_m", 39.59),  # Meta-Llama-3-70B Q4_K_M 39.59 GiB (llm-tracker)
        ("mistral-7b-v0.1", "q4_k_m", 4.07),  # Mistral-7B v0.3 Q4_K_M 4.07 GiB (llm-tracker); v0.1 shape
        ("gpt-oss-20b", "mxfp4-bf16", 12.83),  # gpt-oss-20b-F16.gguf 12.83 GiB (geerlingguy/ai-benchmarks)
        ("qwen3-235b-a22b", "q3_k_m", 104.72),  # Qwen3-235B-A22B Q3_K_M 104.72 GiB (visorcraft strix-halo)
        ("deepseek-v3", "q4_k_s", 355.33),  # deepseek2 671B Q4_K_S 355.33 GiB (ik_llama.cpp PR 180)
        ("deepseek-v3", "q5_k_m", 442.74),  # DeepSeek-V3 Q5_K_M 442.74 GiB (llm-tracker)
        ("llama-3.1-405b", "iq2_xxs", 99.90),  # shisa-v2-llama3.1-405b IQ2_XXS 99.90 GiB (llm-tracker)
        # Every layer routes to experts and the catalog gives no dense MLP width: the tensors are
        # split by class from the expert width, so Q4_K_M's Q6_K half of ffn_down counts.
        ("qwen3-30b-a3b", "q4_k_m", 17.28),  # Qwen3-30B-A3B Q4_K_M 17.28 GiB (llm-tracker RTX PRO 6000)
        ("qwen3-30b-a3b", "q4_0", 16.11),  # qwen3moe 30B.A3B Q4_0 16.11 GiB (llama.cpp issue 17936)
        ("qwen3-30b-a3b", "q8_0", 30.25),  # Qwen3-Coder-30B-A3B Q8_0 30.25 GiB (berney/genai-mei)
    ],
)
def test_gguf_file_sizes_match_what_llama_bench_reports(catalog: Catalog, model: str, fmt: str, gib: float) -> None:
    assert weight_bytes(get_model(catalog, model), get_format(fmt)) / GIB == pytest.approx(gib, rel=0.005)


def test_mxfp4_keeps_only_routed_experts_in_four_bits(catalog: Catalog) -> None:
    # ggml-org/gpt-oss-120b-GGUF (llama.cpp MXFP4_MOE: experts MXFP4, everything else Q8_0) is
    # about 4.25 bits on the experts: the file sits well under Q8_0's size and above 4.25 bits.
    model = get_model(catalog, "gpt-oss-120b")
    mxfp4 = weight_bytes(model, get_format("mxfp4"))
    q8 = weight_bytes(model, get_format("q8_0"))
    assert mxfp4 < 0.55 * q8
    assert mxfp4 * 8 / (model.params_b * 1e9) > 4.25


def test_a_dynamic_gguf_is_sized_by_its_real_file(catalog: Catalog) -> None:
    model = get_model(catalog, "deepseek-r1")
    preset = get_format("iq1_s")
    # Unsloth's dynamic 1.58-bit DeepSeek-R1 (UD-IQ1_S) is 131 GB on disk, 122 GiB
    # (unsloth.ai blog "Run DeepSeek R1 Dynamic 1.58-bit", January 2025): more than plain
    # IQ1_S because it keeps attention and the dense layers at 4-6 bits.
    sized = sized_format(model, preset, 122)
    assert weight_bytes(model, sized) == pytest.approx(122 * 2**30, rel=1e-9)
    # Bytes read per token scale with the file, the preset's tensor proportions kept.
    ratio = weight_bytes(model, sized) / weight_bytes(model, preset)
    assert active_weight_bytes(model, sized) == pytest.approx(ratio * active_weight_bytes(model, preset), rel=1e-9)
    assert sized.id == "iq1_s@122GiB"
    with pytest.raises(InputError, match=r"0\.01 bits per weight"):
        sized_format(model, preset, 1)
    with pytest.raises(InputError, match="more than 0"):
        sized_format(model, preset, float("inf"))
