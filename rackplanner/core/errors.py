"""Errors that reach the user as one clear sentence, never as a traceback."""

from __future__ import annotations

from pydantic import ValidationError


class InputError(Exception):
    """Bad input from a file or a command line: the message is for a person to read."""


def field_path(loc: tuple[int | str, ...]) -> str:
    """``('machines', 0, 'cards', 1, 'slot')`` -> ``machines[0].cards[1].slot``."""
    text = ""
    for item in loc:
        if isinstance(item, int):
            text += f"[{item}]"
        else:
            text += ("." if text else "") + str(item)
    return text or "(top level)"


def describe_validation_error(exc: ValidationError, *, limit: int = 3) -> str:
    """The first few problems of a pydantic error, each as ``field.path: what is wrong``."""
    problems = []
    for error in exc.errors()[:limit]:
        # Pydantic adds the tag of the failing type branch to loc; it means nothing to a user.
        loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        message = error["msg"].removeprefix("Value error, ")
        problem = f"{field_path(loc)}: {message}"
        if error["type"] not in ("missing", "value_error") and "input" in error:
            shown = repr(error["input"])
            if len(shown) > 60:
                shown = shown[:57] + "..."
            problem += f" (found {shown})"
        problems.append(problem)
    more = exc.error_count() - limit
    if more > 0:
        problems.append(f"and {more} more")
    return "; ".join(problems)
