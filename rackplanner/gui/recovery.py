"""The recovery file: the plan as it was at the last autosave, offered again after a crash.

It lives in the user's data folder (``$RACKPLANNER_RECOVERY_DIR`` overrides it), holds the
plan in the normal plan format plus the file it came from, and is removed on a clean save
or exit; finding it at start-up means the app did not close cleanly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QStandardPaths

from rackplanner.core.appdirs import app_dirs
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError
from rackplanner.core.files import read_json, write_atomic
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.core.plan.model import Plan

PLAN_NAME = "recovery.json"
META_NAME = "recovery-meta.json"


def recovery_dir() -> Path:
    override = os.environ.get("RACKPLANNER_RECOVERY_DIR")
    if override:
        return Path(override)
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base) if base else app_dirs().user_data_path


def write(plan: Plan, original: Path | None) -> Path:
    """Write the recovery file atomically (a crash mid-write leaves the previous one whole)."""
    folder = recovery_dir()
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / PLAN_NAME, plan_to_json(plan).encode("utf-8"))
    meta = {"original": str(original) if original else None}
    write_atomic(folder / META_NAME, json.dumps(meta).encode("utf-8"))
    return folder / PLAN_NAME


def pending(catalog: Catalog) -> tuple[Plan, Path | None] | None:
    """The plan a crashed session left behind, with the file it belonged to; None if there is none."""
    folder = recovery_dir()
    path = folder / PLAN_NAME
    if not path.exists():
        return None
    try:
        plan = load_plan(path, catalog)
        meta = read_json(folder / META_NAME, what="recovery note", max_bytes=64 * 1024)
    except (InputError, OSError, ValueError):
        return None
    original = meta.get("original") if isinstance(meta, dict) else None
    return plan, Path(original) if isinstance(original, str) else None


def clear() -> None:
    folder = recovery_dir()
    for name in (PLAN_NAME, META_NAME):
        (folder / name).unlink(missing_ok=True)
