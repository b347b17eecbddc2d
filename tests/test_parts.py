"""Part models refuse inconsistent entries with a message that names the problem."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from rackplanner.core.catalog.parts import PCIE_GBS_PER_LANE, Board, Cpu, Pdu
from rackplanner.core.errors import describe_validation_error


def board(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "test-board",
        "vendor": "Example",
        "model": "Two-socket board",
        "source": ["test fixture"],
        "platform": "server",
        "form_factor": "proprietary",
        "cpu_socket": "LGA2011-3",
        "sockets": 2,
        "mem_type": "DDR4",
        "dimm_slots": 16,
        "root_complexes": [{"id": "cpu0", "socket": 0}, {"id": "cpu1", "socket": 1}],
        "switches": [{"id": "plx0", "part": "pex8747", "upstream": "cpu0", "upstream_lanes": 16, "upstream_gen": 3}],
        "slots": [
            {
                "id": "s1",
                "label": "SLOT1",
                "position": 0,
                "physical_lanes": 16,
                "electrical_lanes": 16,
                "gen": 3,
                "parent": "plx0",
            },
            {
                "id": "s2",
                "label": "SLOT2",
                "position": 2,
                "physical_lanes": 16,
                "electrical_lanes": 8,
                "gen": 3,
                "parent": "cpu1",
            },
        ],
    }
    data.update(changes)
    return data


def message(data: dict[str, Any], model: type[Board] | type[Pdu] = Board) -> str:
    with pytest.raises(ValidationError) as err:
        model.model_validate(data)
    return describe_validation_error(err.value)


def test_valid_board_loads() -> None:
    parsed = Board.model_validate(board())
    slot = parsed.slot("s2")
    assert slot is not None
    assert slot.electrical_lanes == 8


def test_slot_on_missing_parent_is_named() -> None:
    data = board()
    data["slots"][0]["parent"] = "plx9"
    assert "slot s1: parent 'plx9' is not on this board" in message(data)


def test_switch_cycle_is_refused() -> None:
    data = board(
        switches=[
            {"id": "plx0", "part": "pex8747", "upstream": "plx1", "upstream_lanes": 16, "upstream_gen": 3},
            {"id": "plx1", "part": "pex8747", "upstream": "plx0", "upstream_lanes": 16, "upstream_gen": 3},
        ]
    )
    assert "switches form a cycle: plx0 -> plx1 -> plx0" in message(data)


def test_root_complex_on_missing_socket() -> None:
    data = board(sockets=1)
    assert "root complex cpu1 is on socket 1, but the board has 1" in message(data)


def test_electrical_wider_than_physical() -> None:
    data = board()
    data["slots"][1]["physical_lanes"] = 4
    assert "electrical_lanes x8 is wider than its physical x4 connector" in message(data)


def test_error_path_names_nested_field() -> None:
    data = board()
    data["slots"][1]["gen"] = 9
    assert message(data).startswith("slots[1].gen: Input should be less than or equal to 6")


def test_delta_pdu_needs_line_pairs() -> None:
    data = {
        "id": "test-pdu",
        "vendor": "Example",
        "model": "Delta PDU",
        "source": ["fixture"],
        "phases": 3,
        "wiring": "delta",
        "voltage_v": 208,
        "input_current_a": 60,
        "inlet": "iec-60309-3p-e-4h",
        "metering": "metered",
        "outlet_groups": [{"id": "g1", "line": "L1", "breaker_a": 20, "outlets": {"iec-60320-c13": 8}}],
    }
    assert "a delta PDU feeds line pairs like L1-L2" in message(data, Pdu)


def test_pcie_lane_rates() -> None:
    # PCIe 3.0 x16 ≈ 15.75 GB/s per direction: the "128 gbits/sec" of 000_2736fecfd42346e5.txt.
    assert PCIE_GBS_PER_LANE[3] * 16 == pytest.approx(15.75, abs=0.01)
    # Gen4 x8 ≈ 15.75 GB/s (issue 4 known answer for RTX 3090 at x8/x8 on AM5).
    assert PCIE_GBS_PER_LANE[4] * 8 == pytest.approx(15.75, abs=0.01)


def test_cpu_bandwidth_from_channels() -> None:
    # 003_fdb6d644ec457317.txt: DDR5-4800, 8 channels = 307.2 GB/s per socket (x4 ≈ 1.2 TB/s).
    cpu = Cpu.model_validate(
        {
            "id": "x",
            "vendor": "v",
            "model": "m",
            "source": "fixture",
            "platform": "server",
            "socket": "LGA4677",
            "cores": 60,
            "threads": 120,
            "tdp_w": 350,
            "mem_type": "DDR5",
            "mem_channels": 8,
            "mem_speed_mts": 4800,
            "pcie_gen": 5,
            "pcie_lanes": 80,
        }
    )
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(307.2)
    assert 4 * cpu.theoretical_mem_bw_gbs == pytest.approx(1228.8)
