"""Running the ``rackplanner`` command on hostile input and judging how it ended.

A run fails when it raises anything (a traceback), takes longer than its time limit (a hang),
writes an error of more than one line, prints a non-finite number (inf, nan, Infinity), prints
``--json`` output that a strict parser refuses, or ends with an exit status other than 0 (done),
1 (the environment failed) or 2 (bad input).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rackplanner import cli

# How Python writes a non-finite float in text ("inf GB", "nan A"); JSON output is parsed strictly instead.
NONFINITE = re.compile(r"""(?<![\w.'"])-?(inf|nan)(?![\w'"])""")
CORPUS = Path(__file__).parent / "data" / "fuzz"


class Hang(Exception):
    """The run took longer than its limit."""


@dataclass
class Outcome:
    args: list[str]
    status: int | None
    stdout: str
    stderr: str
    crash: str = ""  # the traceback's last lines, when the run raised
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def expired(_signum: int, _frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _strict(constant: str) -> object:
    raise ValueError(f"{constant} in JSON output")


def run(args: Sequence[str], *, seconds: int = 20) -> Outcome:
    """``rackplanner ARGS`` in this process, judged (``Outcome.problems`` lists what went wrong)."""
    out, err = io.StringIO(), io.StringIO()
    crash = ""
    status: int | None = None
    try:
        with time_limit(seconds), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(list(args))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    except Hang as exc:
        crash = str(exc)
    except BaseException as exc:  # anything at all is a failure of the run
        lines = traceback.format_exc().strip().splitlines()
        crash = f"{type(exc).__name__}: {exc} | " + " | ".join(line.strip() for line in lines[-5:-1])
    outcome = Outcome(list(args), status, out.getvalue(), err.getvalue(), crash)
    outcome.problems = judge(outcome)
    return outcome


def judge(outcome: Outcome) -> list[str]:
    problems = []
    if outcome.crash:
        problems.append(f"crashed or hung: {outcome.crash[:300]}")
    elif outcome.status not in (0, 1, 2):
        problems.append(f"exit status {outcome.status}")
    errors = [line for line in outcome.stderr.splitlines() if line.strip() and ": warning: " not in line]
    if len(errors) > 1:
        problems.append("error of more than one line: " + " / ".join(errors[:3])[:300])
    if errors and not errors[0].startswith("rackplanner"):
        problems.append(f"error not in the rackplanner format: {errors[0][:200]}")
    found = NONFINITE.search(outcome.stdout)
    if found:
        start = max(0, found.start() - 60)
        problems.append(f"non-finite number in the output: {outcome.stdout[start : found.end() + 20]!r}")
    if "--json" in outcome.args and outcome.stdout.strip():
        try:
            json.loads(outcome.stdout, parse_constant=_strict)
        except ValueError as exc:
            problems.append(f"--json output is not strict JSON: {str(exc)[:200]}")
    return problems


def describe(outcomes: Sequence[Outcome]) -> str:
    """The failed runs, one per line, for an assertion message."""
    return "\n".join(f"rackplanner {' '.join(o.args)}: {'; '.join(o.problems)}" for o in outcomes if o.problems)
