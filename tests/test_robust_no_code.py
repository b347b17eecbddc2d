"""No code from files: loaders never run, import or unpickle anything a file names.

Catalog YAML goes through a safe loader only (no tags that build Python objects) and plan
files through ``json`` only; a class path or a pickle in a file is data at most, and where
the model has no place for it, a refusal. Each planted payload would create a marker file if
it ever ran; the marker must never appear.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import re
from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import CatalogError, load_catalog, load_catalog_file
from rackplanner.core.errors import InputError
from rackplanner.core.plan.files import load_plan
from tests.test_catalog_errors import GOOD_GPU

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "resources" / "examples" / "home-rig-2x3090.json"


class _Touch:
    """Unpickling this would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def yaml_payloads(marker: Path) -> list[str]:
    command = f"touch {marker}"
    return [
        f"- !!python/object/apply:os.system [{command!r}]\n",
        f"- !!python/object/apply:subprocess.check_call [[touch, {marker}]]\n",
        f"- !!python/object/new:subprocess.Popen [[touch, {marker}]]\n",
        "- !!python/name:os.system\n",
        "- !!python/module:os\n",
        f"- !!python/object:pathlib.Path {{}}\n- {command}\n",
        GOOD_GPU.replace("model: Card 24GB", f"model: !!python/object/apply:os.system [{command!r}]"),
        GOOD_GPU + f"  notes: !!python/object/apply:os.system [{command!r}]\n",
        f"%TAG !p! tag:yaml.org,2002:python/object/apply:\n---\n- !p!os.system [{command!r}]\n",
    ]


@pytest.mark.parametrize("index", range(9))
def test_python_tags_in_catalog_yaml_are_refused(tmp_path: Path, index: int) -> None:
    marker = tmp_path / "ran"
    folder = tmp_path / "catalog"
    folder.mkdir()
    path = folder / "gpu.yaml"
    path.write_text(yaml_payloads(marker)[index], encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog_file(path, "gpu")
    assert str(err.value).startswith(f"{path}: not valid YAML (")
    assert "python/" in str(err.value)
    # The user-folder path: the file is skipped with the same message, the rest loads.
    loaded = load_catalog([folder], include_user=False)
    assert loaded.problems == [f"{err.value} (file skipped)"]
    assert loaded.get("rtx-3090") is not None and loaded.get("my-card") is None
    assert not marker.exists()


def test_class_paths_in_a_plan_are_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    payloads = {
        "__class__": "os.system",
        "py/object": "subprocess.Popen",
        "$type": "System.Diagnostics.Process, System",
        "__reduce__": ["os.system", [f"touch {marker}"]],
        "pickle": base64.b64encode(pickle.dumps(_Touch(marker))).decode("ascii"),
    }
    for key, value in payloads.items():
        for where in ("top", "machine"):
            planted = json.loads(json.dumps(data))
            (planted if where == "top" else planted["machines"][0])[key] = value
            path = tmp_path / f"{where}.json"
            path.write_text(json.dumps(planted), encoding="utf-8")
            with pytest.raises(InputError) as err:
                load_plan(path)
            at = key if where == "top" else f"machines[0].{key}"
            assert str(err.value).startswith(f"{path}: {at}: Extra inputs are not permitted"), str(err.value)
    assert not marker.exists()


def test_a_pickle_in_a_text_field_stays_text(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    payload = pickle.dumps(_Touch(marker)).decode("latin-1")
    data["notes"] = payload
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_plan(path).notes == payload
    assert not marker.exists()


def test_a_pickle_as_the_whole_plan_file_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "plan.json"
    path.write_bytes(pickle.dumps(_Touch(marker)))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: not (UTF-8 text|valid JSON)"):
        load_plan(path)
    assert not marker.exists()


# Ways of turning file content into code or objects that the loaders must never use.
FORBIDDEN = [
    r"\bimport pickle\b",
    r"\bpickle\.loads?\b",
    r"\bmarshal\b",
    r"\bshelve\b",
    r"\bjsonpickle\b",
    r"\byaml\.(unsafe_load|full_load|load_all)\b",
    r"\b(Unsafe|Full)?Loader\s*=\s*yaml\.(Unsafe|Full)?Loader\b",
    r"\byaml\.(Unsafe|Full)Loader\b",
    r"(?<![\w.])eval\(",
    r"(?<![\w.])exec\(",
    r"\b__import__\(",
    r"\bobject_hook\b",
]


def test_no_loader_can_run_code() -> None:
    offending = []
    for path in sorted((REPO / "rackplanner").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in FORBIDDEN:
            for match in re.finditer(pattern, text):
                offending.append(f"{path.relative_to(REPO)}: {match.group(0)}")
        # yaml.load only with a safe loader.
        for match in re.finditer(r"yaml\.load\((.*)\)", text):
            if "SafeLoader" not in match.group(1) and "_SAFE_LOADER" not in match.group(1):
                offending.append(f"{path.relative_to(REPO)}: {match.group(0)}")
    assert offending == []
