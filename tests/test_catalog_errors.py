"""A broken catalog entry is refused with a message naming the file, the entry and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.catalog import CatalogError, load_catalog, load_catalog_file
from rackplanner.core.parts import Gpu

GOOD_GPU = """
- id: my-card
  vendor: Example
  model: Card 24GB
  source: my own measurement
  product_line: geforce
  vram_gb: 24
  tdp_w: 350
  pcie_gen: 4
  p2p_pcie: false
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_field_names_file_entry_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", GOOD_GPU.replace("  vram_gb: 24\n", ""))
    with pytest.raises(CatalogError) as err:
        load_catalog_file(path, "gpu")
    message = str(err.value)
    assert str(path) in message
    assert "entry 0 (my-card)" in message
    assert "vram_gb: Field required" in message


def test_wrong_type_says_what_was_found(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", GOOD_GPU.replace("tdp_w: 350", "tdp_w: lots"))
    with pytest.raises(CatalogError, match=r"tdp_w: Input should be a valid number.*'lots'"):
        load_catalog_file(path, "gpu")


def test_entry_without_source_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", GOOD_GPU.replace("  source: my own measurement\n", ""))
    with pytest.raises(CatalogError, match="source: Field required"):
        load_catalog_file(path, "gpu")


def test_unknown_field_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", GOOD_GPU + "  vram_gib: 24\n")
    with pytest.raises(CatalogError, match="vram_gib: Extra inputs are not permitted"):
        load_catalog_file(path, "gpu")


def test_bad_id_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", GOOD_GPU.replace("id: my-card", "id: My Card"))
    with pytest.raises(CatalogError, match="not a lowercase kebab-case id"):
        load_catalog_file(path, "gpu")


def test_invalid_yaml_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "gpu.yaml", "- id: [unclosed\n")
    with pytest.raises(CatalogError, match=r"gpu\.yaml: not valid YAML"):
        load_catalog_file(path, "gpu")


def test_yaml_tags_are_refused(tmp_path: Path) -> None:
    # safe_load refuses Python object tags, so a catalog file cannot run code.
    path = write(tmp_path, "gpu.yaml", "- !!python/object/apply:os.system ['true']\n")
    with pytest.raises(CatalogError, match="not valid YAML"):
        load_catalog_file(path, "gpu")


def test_unknown_kind_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "gpus.yaml", GOOD_GPU)
    with pytest.raises(CatalogError, match=r"gpus\.yaml: unknown part kind 'gpus'"):
        load_catalog([tmp_path], include_user=False)


def test_duplicate_id_within_a_folder_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "gpu.yaml", GOOD_GPU + GOOD_GPU)
    with pytest.raises(CatalogError, match=r"id 'my-card' is already used by gpu.yaml entry 0"):
        load_catalog([tmp_path], include_user=False)


def test_user_folder_adds_and_overrides_by_id(tmp_path: Path) -> None:
    builtin = load_catalog(include_user=False)
    assert builtin.get("my-card") is None
    override = GOOD_GPU.replace("id: my-card", "id: rtx-3090").replace("model: Card 24GB", "model: My 3090")
    write(tmp_path, "gpu.yaml", GOOD_GPU + override)
    merged = load_catalog([tmp_path], include_user=False)
    assert isinstance(merged.get("my-card"), Gpu)
    assert merged.parts["rtx-3090"].model == "My 3090"
    assert merged.origins["rtx-3090"].path == tmp_path / "gpu.yaml"
    assert len(merged) == len(builtin) + 1


def test_user_catalog_folder_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "gpu.yaml", GOOD_GPU)
    monkeypatch.setenv("RACKPLANNER_USER_CATALOG", str(tmp_path))
    assert load_catalog().get("my-card") is not None


def test_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="catalog folder does not exist"):
        load_catalog([tmp_path / "nope"], include_user=False)
