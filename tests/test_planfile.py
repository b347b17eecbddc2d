"""Plan files: examples round-trip, bad files give one clear message, saves are atomic."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import OutputError
from rackplanner.core.plan import files as planfile
from rackplanner.core.plan import migrations
from rackplanner.core.plan.files import PlanFileError, load_plan, plan_to_json, save_plan
from rackplanner.core.plan.model import SCHEMA_VERSION, Plan


def test_every_example_loads_and_round_trips_byte_for_byte(
    example_paths: list[Path], catalog: Catalog, tmp_path: Path
) -> None:
    for path in example_paths:
        plan = load_plan(path, catalog)
        copy = tmp_path / path.name
        save_plan(plan, copy)
        assert copy.read_bytes() == path.read_bytes(), f"{path.name} is not in canonical form"
        assert load_plan(copy, catalog) == plan


def test_the_three_examples_exist(example_paths: list[Path]) -> None:
    names = {p.stem for p in example_paths}
    assert {"home-rig-2x3090", "sys-4028gr-trt2-8gpu", "colo-rack"} <= names


def _example(example_paths: list[Path], stem: str) -> dict[str, Any]:
    path = next(p for p in example_paths if p.stem == stem)
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _write(tmp_path: Path, data: Any, name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_truncated_file_is_named_with_position(example_paths: list[Path], tmp_path: Path) -> None:
    text = example_paths[0].read_text()
    path = _write(tmp_path, text[: len(text) // 2])
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    message = str(err.value)
    assert message.startswith(f"{path}: not valid JSON at line ")
    assert "truncated" in message


def test_not_json_at_all(tmp_path: Path) -> None:
    path = _write(tmp_path, "this is a shopping list\n")
    with pytest.raises(PlanFileError, match=r"not valid JSON at line 1, column 1"):
        load_plan(path)


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PlanFileError, match="not UTF-8 text"):
        load_plan(path)


def test_wrong_type_names_field_path(example_paths: list[Path], tmp_path: Path) -> None:
    data = _example(example_paths, "home-rig-2x3090")
    data["machines"][0]["cards"][0]["power_limit_w"] = "quiet please"
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value) == (
        f"{path}: machines[0].cards[0].power_limit_w: Input should be a valid number (found 'quiet please')"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "Input should be a valid integer (found True)"),
        ("12", "Input should be a valid integer (found '12')"),
        (12.0, "Input should be a valid integer (found 12.0)"),
    ],
)
def test_values_are_not_quietly_converted(
    example_paths: list[Path], tmp_path: Path, value: object, expected: str
) -> None:
    data = _example(example_paths, "colo-rack")
    data["machines"][0]["memory"][0]["count"] = value
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value) == f"{path}: machines[0].memory[0].count: {expected}"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_numbers_a_plan_cannot_hold(example_paths: list[Path], tmp_path: Path, constant: str) -> None:
    text = json.dumps(_example(example_paths, "colo-rack")).replace('"voltage_v": 400.0', f'"voltage_v": {constant}', 1)
    path = _write(tmp_path, text)
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value).startswith(f"{path}: feeds[0].voltage_v: ")
    assert str(err.value).endswith(" is not a number a plan can hold")


def test_unpaired_surrogate_is_refused(example_paths: list[Path], tmp_path: Path) -> None:
    # Valid JSON escapes, but not Unicode text: the plan could never be saved again.
    text = json.dumps(_example(example_paths, "colo-rack")).replace('"name": "GPU 1"', '"name": "GPU \\ud800"', 1)
    path = _write(tmp_path, text)
    with pytest.raises(PlanFileError, match=r"machines\[0\]\.name: text with an unpaired surrogate escape"):
        load_plan(path)


def test_deep_nesting_is_refused(example_paths: list[Path], tmp_path: Path) -> None:
    data = _example(example_paths, "colo-rack")
    nested: object = "deep"
    for _ in range(40):
        nested = [nested]
    data["notes"] = nested
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError, match="notes" + r"(\[0\])+: nested more than 32 levels deep"):
        load_plan(path)
    path = _write(tmp_path, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(PlanFileError, match="JSON nested too deeply"):
        load_plan(path)


def test_unknown_part_id_names_field(example_paths: list[Path], catalog: Catalog, tmp_path: Path) -> None:
    data = _example(example_paths, "home-rig-2x3090")
    data["machines"][0]["cards"][1]["part"] = "rtx-9090"
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError) as err:
        load_plan(path, catalog)
    assert str(err.value) == f"{path}: machines[0].cards[1].part: part 'rtx-9090' is not in the catalog"


def test_part_of_wrong_kind(example_paths: list[Path], catalog: Catalog, tmp_path: Path) -> None:
    data = _example(example_paths, "home-rig-2x3090")
    data["machines"][0]["cpu"] = "rtx-3090"
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError, match=r"machines\[0\]\.cpu: 'rtx-3090' is a gpu, expected a cpu"):
        load_plan(path, catalog)


def test_card_in_missing_slot(example_paths: list[Path], catalog: Catalog, tmp_path: Path) -> None:
    data = _example(example_paths, "home-rig-2x3090")
    data["machines"][0]["cards"][0]["slot"] = "pcie-99"
    data["machines"][0]["bridges"] = []
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError, match=r"machines\[0\]\.cards\[0\]\.slot: board \S+ has no slot 'pcie-99'"):
        load_plan(path, catalog)


def test_future_schema_version_is_refused(example_paths: list[Path], tmp_path: Path) -> None:
    data = _example(example_paths, "colo-rack")
    data["schema_version"] = SCHEMA_VERSION + 1
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value) == (
        f"{path}: schema_version: the file is version {SCHEMA_VERSION + 1}, this rackplanner "
        f"reads up to version {SCHEMA_VERSION}; open it with a newer rackplanner"
    )


def test_missing_schema_version(tmp_path: Path) -> None:
    path = _write(tmp_path, {"name": "x"})
    with pytest.raises(PlanFileError, match="schema_version: expected a whole number >= 1, found None"):
        load_plan(path)


def test_duplicate_machine_ids(example_paths: list[Path], tmp_path: Path) -> None:
    data = _example(example_paths, "colo-rack")
    data["machines"].append(data["machines"][0])
    path = _write(tmp_path, data)
    with pytest.raises(PlanFileError, match=r"machine id '[a-z0-9-]+' is used twice"):
        load_plan(path)


def test_top_level_not_an_object(tmp_path: Path) -> None:
    path = _write(tmp_path, [1, 2, 3])
    with pytest.raises(PlanFileError, match="expected a JSON object, found list"):
        load_plan(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError, match="cannot read the plan"):
        load_plan(tmp_path / "nope.json")


def test_migration_mechanism(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An older file is migrated step by step on load; here a pretend v2->v3 step renames a key."""
    monkeypatch.setattr(planfile, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", 3)

    def v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
        data["name"] = data.pop("title")
        return data

    monkeypatch.setitem(migrations.MIGRATIONS, 2, v2_to_v3)
    path = _write(tmp_path, {"schema_version": 1, "title": "Old plan"})
    plan = load_plan(path)
    assert plan.name == "Old plan"
    assert plan.schema_version == 3


def test_missing_migration_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    newer = migrations.SCHEMA_VERSION + 2
    monkeypatch.setattr(planfile, "SCHEMA_VERSION", newer)
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", newer)
    last = newer - 2
    with pytest.raises(PlanFileError, match=f"no migration from version {last}"):
        migrations.migrate({"schema_version": 1}, 1)
    path = _write(tmp_path, {"schema_version": last, "name": "x"})
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value) == f"{path}: schema_version: no migration from version {last}"


def test_save_keeps_previous_as_bak(example_paths: list[Path], catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(example_paths[0], catalog)
    target = tmp_path / "mine.json"
    save_plan(plan, target)
    first = target.read_bytes()
    renamed = plan.model_copy(update={"name": "Renamed"})
    save_plan(renamed, target)
    assert (tmp_path / "mine.json.bak").read_bytes() == first
    assert load_plan(target).name == "Renamed"
    # No temporary files are left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json", "mine.json.bak"]


def test_failed_save_leaves_previous_file_intact(
    example_paths: list[Path], catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = load_plan(example_paths[0], catalog)
    target = tmp_path / "mine.json"
    save_plan(plan, target)
    before = target.read_bytes()

    real_fsync = os.fsync
    calls = {"n": 0}

    def failing_fsync(fd: int) -> None:
        calls["n"] += 1
        real_fsync(fd)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OutputError, match="cannot write: No space left"):
        save_plan(plan.model_copy(update={"name": "Half written"}), target)
    assert calls["n"] == 1
    assert target.read_bytes() == before
    # Nothing else was touched: no backup yet (first save had none to keep), no temp file.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json"]


def test_failed_rename_leaves_previous_file_intact(
    example_paths: list[Path], catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = load_plan(example_paths[0], catalog)
    target = tmp_path / "mine.json"
    save_plan(plan, target)
    before = target.read_bytes()
    real_replace = os.replace

    def replace_fails_for_target(src: str, dst: Any) -> None:
        if Path(dst) == target:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_fails_for_target)
    with pytest.raises(OutputError, match="cannot write: Input/output error"):
        save_plan(plan.model_copy(update={"name": "Never lands"}), target)
    assert target.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_canonical_text_is_stable(example_paths: list[Path], catalog: Catalog) -> None:
    plan = load_plan(example_paths[0], catalog)
    assert plan_to_json(plan) == plan_to_json(Plan.model_validate_json(plan_to_json(plan)))
    assert plan_to_json(plan).endswith("}\n")


def test_saving_through_a_symlink_updates_the_file_it_points_to(
    example_paths: list[Path], catalog: Catalog, tmp_path: Path
) -> None:
    plan = load_plan(example_paths[0], catalog)
    real = tmp_path / "real" / "plan.json"
    real.parent.mkdir()
    save_plan(plan, real)
    link = tmp_path / "plan.json"
    link.symlink_to(real)
    save_plan(plan.model_copy(update={"name": "Renamed through the link"}), link)
    assert link.is_symlink() and link.resolve() == real
    assert load_plan(real).name == "Renamed through the link"
    # The previous version is kept beside the real file, not beside the link.
    assert load_plan(real.with_name("plan.json.bak")).name == plan.name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json", "real"]


def test_a_folder_named_like_the_backup_does_not_stop_saving(
    example_paths: list[Path], catalog: Catalog, tmp_path: Path
) -> None:
    plan = load_plan(example_paths[0], catalog)
    target = tmp_path / "mine.json"
    save_plan(plan, target)
    (tmp_path / "mine.json.bak").mkdir()
    save_plan(plan.model_copy(update={"name": "Saved anyway"}), target)
    assert load_plan(target).name == "Saved anyway"
    assert (tmp_path / "mine.json.bak").is_dir()  # left alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json", "mine.json.bak"]


def test_saving_keeps_the_files_permissions(example_paths: list[Path], catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(example_paths[0], catalog)
    target = tmp_path / "shared.json"
    save_plan(plan, target)
    target.chmod(0o640)
    save_plan(plan.model_copy(update={"name": "Again"}), target)
    assert target.stat().st_mode & 0o777 == 0o640
