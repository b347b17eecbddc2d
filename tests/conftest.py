"""Shared fixtures. Qt runs offscreen so the suite needs no screen."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep a developer's own catalog folder out of the tests.
os.environ["RACKPLANNER_USER_CATALOG"] = str(Path(__file__).parent / "data" / "no-user-catalog")
# And the parsed-catalog cache out of the user's cache folder (one folder for the whole run).
os.environ["RACKPLANNER_CACHE_DIR"] = tempfile.mkdtemp(prefix="rackplanner-test-cache-")

from hypothesis import settings

from rackplanner.core.catalog.loading import Catalog, load_catalog

# Property tests run the same examples every time, so a failure in CI can be reproduced;
# `pytest --hypothesis-seed=N` explores others.
settings.register_profile("rackplanner", derandomize=True, database=None)
settings.load_profile("rackplanner")

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "resources" / "examples"
SEEDS = REPO.parent / "shared" / "seeds"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def calibration_catalog() -> Catalog:
    """The built-in catalog with the hardware figures it lacks for the measured points
    (tests/data/calibration-catalog/*.yaml)."""
    return load_catalog([REPO / "tests" / "data" / "calibration-catalog"], include_user=False)


@pytest.fixture(scope="session")
def example_paths() -> list[Path]:
    paths = sorted(EXAMPLES.glob("*.json"))
    assert paths, "resources/examples holds no plans"
    return paths
