"""A broken catalog entry is described naming the file, the entry and the field.

In the built-in catalog that is an error; in a user's folder the entry is skipped, the
problem is listed in ``Catalog.problems`` and the rest of the catalog loads.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rackplanner.core.catalog import loading as catalog_module
from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, CatalogError, load_catalog, load_catalog_file
from rackplanner.core.catalog.parts import Gpu

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


def test_unknown_kind_file_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "gpus.yaml", GOOD_GPU)
    loaded = load_catalog([tmp_path], include_user=False)
    assert loaded.get("my-card") is None
    assert len(loaded.problems) == 1
    assert loaded.problems[0].startswith(f"{path}: unknown part kind 'gpus' (file names: ")
    assert loaded.problems[0].endswith("(file skipped)")


def test_duplicate_id_within_a_folder_keeps_the_first(tmp_path: Path) -> None:
    second = GOOD_GPU.replace("model: Card 24GB", "model: Card 48GB")
    path = write(tmp_path, "gpu.yaml", GOOD_GPU + second)
    loaded = load_catalog([tmp_path], include_user=False)
    assert loaded.parts["my-card"].model == "Card 24GB"
    assert loaded.problems == [
        f"{path}: entry 1 (my-card): id: 'my-card' is already used by gpu.yaml entry 0 (entry skipped)"
    ]


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


BROKEN_GPU = GOOD_GPU.replace("id: my-card", "id: my-broken-card").replace("tdp_w: 350", "tdp_w: -5")


def test_broken_user_entry_is_skipped_and_the_rest_loads(tmp_path: Path) -> None:
    builtin = load_catalog(include_user=False)
    gpu = write(tmp_path, "gpu.yaml", BROKEN_GPU + GOOD_GPU + "- just a string\n")
    cpu = write(tmp_path, "cpu.yaml", "- id: [unclosed\n")
    loaded = load_catalog([tmp_path], include_user=False)
    # The good entry and every built-in part are there; the broken ones are not.
    assert isinstance(loaded.get("my-card"), Gpu)
    assert loaded.get("my-broken-card") is None
    assert len(loaded) == len(builtin) + 1
    assert loaded.problems[0].startswith(f"{cpu}: not valid YAML (")
    assert loaded.problems[0].endswith("(file skipped)")
    assert loaded.problems[1:] == [
        f"{gpu}: entry 0 (my-broken-card): tdp_w: Input should be greater than 0 (found -5) (entry skipped)",
        f"{gpu}: entry 2: expected a mapping of fields, found str (entry skipped)",
    ]
    assert builtin.problems == []


def test_user_catalog_problems_from_the_per_user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "gpu.yaml", BROKEN_GPU)
    monkeypatch.setenv("RACKPLANNER_USER_CATALOG", str(tmp_path))
    loaded = load_catalog()
    assert [p.split(": ")[1] for p in loaded.problems] == ["entry 0 (my-broken-card)"]


def test_broken_builtin_entry_is_still_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A broken file in the built-in catalog is a bug in rackplanner, never skipped quietly.
    write(tmp_path, "gpu.yaml", BROKEN_GPU)
    monkeypatch.setattr(catalog_module, "BUILTIN_CATALOG_DIR", tmp_path)
    with pytest.raises(CatalogError, match=r"entry 0 \(my-broken-card\): tdp_w: Input should be greater than 0"):
        load_catalog(include_user=False)
    write(tmp_path, "gpus.yaml", GOOD_GPU)
    (tmp_path / "gpu.yaml").unlink()
    with pytest.raises(CatalogError, match="unknown part kind 'gpus'"):
        load_catalog(include_user=False)


def test_builtin_catalog_has_no_problems() -> None:
    assert load_catalog(include_user=False).problems == []
    assert BUILTIN_CATALOG_DIR.is_dir()


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """A "billion laughs" file: nine levels of nine aliases stand for 9^9 strings."""
    text = "- id: x\n  vendor: v\n  model: m\n  source: [s]\n  notes: &a [" + ", ".join(["lol"] * 9) + "]\n"
    previous = "a"
    for name in "bcdefghi":
        text += f"  x{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    path = write(tmp_path, "gpu.yaml", text)
    started = time.monotonic()
    with pytest.raises(CatalogError, match=r"refused: more than 100,000 values once aliases are expanded"):
        load_catalog_file(path, "gpu")
    # Refused at once (about 0.06 s): expanding it would not finish. The bound only catches a hang.
    assert time.monotonic() - started < 20.0
    loaded = load_catalog([tmp_path], include_user=False)
    assert loaded.get("x") is None and len(loaded.problems) == 1


def test_small_aliases_are_fine(tmp_path: Path) -> None:
    text = GOOD_GPU.replace("  source: my own measurement\n", "  source: &src [my own measurement]\n")
    text += GOOD_GPU.replace("id: my-card", "id: my-card-2").replace(
        "  source: my own measurement\n", "  source: *src\n"
    )
    path = write(tmp_path, "gpu.yaml", text)
    assert [p.id for _, p in load_catalog_file(path, "gpu")] == ["my-card", "my-card-2"]


def test_deep_nesting_is_refused_without_crashing(tmp_path: Path) -> None:
    # libyaml would recurse on the C stack until the process dies; users' files are read
    # by the bounded pure-Python loader.
    path = write(tmp_path, "gpu.yaml", "- " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(CatalogError, match="refused: nested more than 64 levels deep"):
        load_catalog_file(path, "gpu")


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    with path.open("wb") as handle:
        handle.truncate(catalog_module.MAX_CATALOG_FILE_BYTES + 1)
    with pytest.raises(CatalogError, match="is more than a catalog file may be"):
        load_catalog_file(path, "gpu")
