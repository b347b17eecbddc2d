"""The user catalog, cache and recovery folders are where each platform keeps an application's files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from platformdirs.macos import MacOS

from rackplanner.core.catalog import loading, parsecache


def test_linux_folders_follow_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG folders are Linux's")
    monkeypatch.delenv("RACKPLANNER_USER_CATALOG", raising=False)
    monkeypatch.delenv("RACKPLANNER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert loading.user_catalog_dir() == tmp_path / "config" / "rackplanner" / "catalog"
    assert parsecache.cache_dir() == tmp_path / "cache" / "rackplanner"
    # Without XDG variables: ~/.config and ~/.cache, where earlier versions kept them.
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert loading.user_catalog_dir() == tmp_path / "home" / ".config" / "rackplanner" / "catalog"
    assert parsecache.cache_dir() == tmp_path / "home" / ".cache" / "rackplanner"


def test_macos_folders_are_under_library(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RACKPLANNER_USER_CATALOG", raising=False)
    monkeypatch.delenv("RACKPLANNER_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    mac = MacOS("rackplanner", appauthor=False)
    monkeypatch.setattr(loading, "app_dirs", lambda: mac)
    monkeypatch.setattr(parsecache, "app_dirs", lambda: mac)
    catalog = loading.user_catalog_dir().as_posix()
    assert catalog.endswith("Library/Application Support/rackplanner/catalog")
    assert parsecache.cache_dir().as_posix().endswith("Library/Caches/rackplanner")


def test_the_override_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RACKPLANNER_USER_CATALOG", str(tmp_path / "mine"))
    monkeypatch.setenv("RACKPLANNER_CACHE_DIR", str(tmp_path / "c"))
    assert loading.user_catalog_dir() == tmp_path / "mine" and parsecache.cache_dir() == tmp_path / "c"
