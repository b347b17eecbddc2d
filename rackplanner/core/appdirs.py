"""Where rackplanner keeps its files on this platform (user catalog, parse cache, recovery copy)."""

from __future__ import annotations

import platformdirs

APP_NAME = "rackplanner"


def app_dirs() -> platformdirs.PlatformDirs:
    """The platform's folders for this application (XDG on Linux, Library on macOS, AppData on Windows).

    No author folder on Windows: the files go in ``%LOCALAPPDATA%\\rackplanner``.
    """
    return platformdirs.PlatformDirs(APP_NAME, appauthor=False)
