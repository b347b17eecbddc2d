"""Typed reads of config.json values; a bad one is an InputError naming the file and key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rackplanner.core.errors import InputError, show_value
from rackplanner.core.files import shown as shown_path


class ConfigValues:
    """One settings object of a config.json (the top level or its ``text_config``)."""

    def __init__(self, data: dict[str, Any], path: Path, prefix: str = "") -> None:
        self.data = data
        self.path = path
        self.prefix = prefix  # "text_config." when reading the nested text model

    def key(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def error(self, key: str, what: str) -> InputError:
        return InputError(f"{shown_path(self.path)}: {self.key(key)} {what}")

    def put(self, key: str, value: Any) -> None:
        """Set ``key`` as if the file had it (a default filled in, a key read under its usual name)."""
        self.data = {**self.data, key: value}

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def integer(self, key: str, *, zero_ok: bool = False) -> int:
        if key not in self.data:
            raise self.error(key, "is missing")
        value = self.data.get(key)
        low = 0 if zero_ok else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            kind = "a whole number, 0 or more" if zero_ok else "a positive whole number"
            raise self.error(key, f"must be {kind} (found {show_value(value, 40)})")
        return value

    def opt_int(self, *keys: str) -> int | None:
        for key in keys:
            if self.has(key):
                return self.integer(key)
        return None

    def ratio(self, key: str, *, below: float) -> float | None:
        """A positive number under ``below`` (mlp_ratio, a width multiplier); None when absent."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < below:
            raise self.error(key, f"must be a positive number (found {show_value(value, 40)})")
        return float(value)

    def count_or_none(self, key: str) -> int | None:
        """A count where 0 means none (DeepSeek writes first_k_dense_replace: 0)."""
        return None if self.data.get(key) in (None, 0) else self.integer(key)

    def flag(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false (found {show_value(value, 40)})")
        return value

    def string(self, key: str) -> str | None:
        """A text value; None when absent or empty, an error when it is not text."""
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.error(key, f"must be a string (found {show_value(value, 40)})")
        return value or None

    def obj(self, key: str) -> ConfigValues | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.error(key, f"must be an object of settings (found {show_value(value, 40)})")
        return ConfigValues(value, self.path, f"{self.key(key)}.")

    def layer_indexes(self, key: str, layers: int, *, first: int = 0) -> list[int] | None:
        """A list of distinct layer numbers of ``layers`` layers numbered from ``first``
        (moe_layers, mlp_only_layers; Kimi Linear's kda_layers count from 1)."""
        value = self.data.get(key)
        if value is None:
            return None
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        last = first + layers - 1
        if not ok or len(set(value)) != len(value) or any(not first <= v <= last for v in value):
            raise self.error(
                key, f"must list distinct layer numbers from {first} to {last} (found {show_value(value, 40)})"
            )
        return value

    def layer_flags(self, key: str, layers: int) -> list[int]:
        """One 0 or 1 per layer (MiMo-V2's hybrid_layer_pattern and moe_layer_freq)."""
        value = self.data.get(key)
        flags = value if isinstance(value, list) else []
        if len(flags) != layers or any(flag not in (0, 1) or isinstance(flag, bool) for flag in flags):
            raise self.error(key, f"must give 0 or 1 for each of the {layers} layers")
        return flags

    def str_list(self, key: str) -> list[str] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"must be a list of names (found {show_value(value, 40)})")
        return value
