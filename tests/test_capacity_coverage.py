"""Every kind of machine people compare answers in every common format (issue: coverage).

Each case is a machine a user asks about, in the formats people download; each must give a
fit verdict and, where it fits, finite decode and prefill speeds with their error band.
"""

from __future__ import annotations

import json
import math

import pytest

from rackplanner.core.capacity.text import estimate_command
from rackplanner.core.catalog.loading import Catalog
from tests.conftest import EXAMPLES

MACHINES = {
    "m3-max": {"system": "macbook-pro-m3-max-128gb"},
    "strix-halo": {"system": "framework-desktop-ryzen-ai-max-395-128gb"},
    "gh200": {"gpu": "gh200-144gb"},
    "8x-h100-sxm": {"gpu": "h100-sxm", "count": 8},
    "4x-mi300x": {"gpu": "mi300x", "count": 4},
    "2x-epyc-9005": {"cpu": "epyc-9755", "sockets": 2, "ram_gb": 1536.0},
    "2x-3090-split": {"plan": EXAMPLES / "home-rig-2x3090.json", "gpu_layers": 40},
}
FORMATS = ("q4_k_s", "iq4_xs", "q5_0", "mxfp4")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("machine", list(MACHINES))
def test_every_machine_answers_in_every_format(catalog: Catalog, machine: str, fmt: str) -> None:
    data = json.loads(
        estimate_command(catalog, model="llama-3.1-70b", format=fmt, json=True, **MACHINES[machine])  # type: ignore[arg-type]
    )
    # Llama 3.1 70B is 70.55B parameters (README); at 4.25-5.5 bits it is 37-49 GB, which
    # fits each of these machines (the 3090 pair with half its layers in host RAM).
    assert data["fits"] is True
    for key in ("decode_tokens_per_s", "prefill_tokens_per_s"):
        value = data[key]
        assert value is not None and math.isfinite(value) and value > 0, (machine, fmt, key)
    assert data["decode_error"]["median"] > 0
    # Even at 5.5 bits on the widest bus here (8 x 3.35 TB/s), one sequence reads 48 GB a
    # token: no machine decodes one sequence faster than about 560 tokens/s.
    assert data["decode_tokens_per_s"] < 560
