"""Running the command line as a user does: ``python -m rackplanner ARGS``, output captured."""

from __future__ import annotations

import subprocess
import sys


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command's exit status, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, timeout=timeout)
