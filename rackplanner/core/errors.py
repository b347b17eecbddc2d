"""Errors that reach the user as one clear sentence, never as a traceback."""

from __future__ import annotations

from pydantic import ValidationError


class InputError(Exception):
    """Bad input from a file or a command line: the message is for a person to read."""


def show_value(value: object, limit: int = 60) -> str:
    """A value from a file as a message quotes it: short, one line, and infinity or NaN said in words."""
    if isinstance(value, float) and value != value:
        return "NaN (not a number)"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "infinity" if value > 0 else "minus infinity"
    try:
        shown = repr(value)
    except ValueError:  # an int too long to print
        return "a number of thousands of digits"
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def field_path(loc: tuple[int | str, ...]) -> str:
    """``('machines', 0, 'cards', 1, 'slot')`` -> ``machines[0].cards[1].slot``."""
    text = ""
    for item in loc:
        if isinstance(item, int):
            text += f"[{item}]"
        elif _plain_key(item):
            text += ("." if text else "") + item
        else:
            # A key from a damaged file (empty, control characters, very long) is quoted and cut,
            # so a message stays one readable line.
            shown = repr(item)
            text += f"[{shown if len(shown) <= 40 else shown[:37] + '...'}]"
    return text or "(top level)"


def _plain_key(key: str) -> bool:
    return 0 < len(key) <= 60 and key.isprintable() and not any(ch in key for ch in " .[]")


def describe_validation_error(exc: ValidationError, *, limit: int = 3) -> str:
    """The first few problems of a pydantic error, each as ``field.path: what is wrong``."""
    problems = []
    for error in exc.errors()[:limit]:
        # Pydantic adds the tag of the failing type branch to loc; it means nothing to a user.
        loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        message = error["msg"].removeprefix("Value error, ")
        # A check of the whole entry (no field) says which fields it is about itself.
        problem = f"{field_path(loc)}: {message}" if loc else message
        if error["type"] not in ("missing", "value_error") and "input" in error:
            problem += f" (found {show_value(error['input'])})"
        problems.append(problem)
    more = exc.error_count() - limit
    if more > 0:
        problems.append(f"and {more} more")
    return "; ".join(problems)


class PlanFileError(InputError):
    """A plan file that cannot be opened; the message names the file, field and problem."""


class OutputError(Exception):
    """A file could not be written (a folder, a full disk, no permission): the environment, not the input."""


def closest_ids(value: str, known: list[str], n: int = 3) -> list[str]:
    """The known ids nearest ``value``: those sharing the most of its dash-separated words
    ("apple-m2-max-38c" -> "mac-studio-m2-max-96gb"), else the closest spellings ("rtx4090")."""
    from difflib import SequenceMatcher, get_close_matches

    wanted = value.strip().lower()
    words = set(wanted.split("-"))
    shared = {part: len(words & set(part.split("-"))) for part in known}
    best = max(shared.values(), default=0)
    if best >= 2:
        tied = [part for part in known if shared[part] == best]
        return sorted(tied, key=lambda part: -SequenceMatcher(None, wanted, part).ratio())[:n]
    return get_close_matches(wanted, known, n=n, cutoff=0.6)


def unknown(what: str, value: str, known: list[str], where: str) -> InputError:
    """``unknown GPU 'rtx4090'; did you mean rtx-4090? ...``: one short line, however long the list of known ones."""
    close = closest_ids(value, known)
    shown = repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    if len(known) <= 12:
        return InputError(f"unknown {what} {shown}; {hint}known: {', '.join(known)}")
    return InputError(f"unknown {what} {shown}; {hint}{where} lists them")
