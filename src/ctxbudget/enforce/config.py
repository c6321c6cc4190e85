"""Per-agent budget configuration: ``BudgetConfig``, in code or from TOML ``[budget]``.

Two conventions meet here on purpose (seed 003). Enforcement is *opt-in*: a
missing file, broken TOML or missing ``max_input_tokens`` turns it off. The cache
guard is *opt-out*: its keys fall back to the paper's thresholds, and only an
explicit ``cache_guard_min_eff = 0`` turns it off. Either way a file that cannot
be used as written emits a ``config_invalid`` event naming the file and the
problem, so a typo never silently disables a budget.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

from ctxbudget.enforce.events import CONFIG_INVALID, BudgetEvent, EventSink, LoggingSink
from ctxbudget.errors import ConfigError

__all__ = [
    "DEFAULT_NEVER_TRIM_HEADERS",
    "BudgetConfig",
    "load_budget_config",
]

DEFAULT_NEVER_TRIM_HEADERS: Final[tuple[str, ...]] = (
    "## Identity",
    "## 身分",
    "## 身份",
    "## Current Working State",
    "## Working State",
    "## 目前工作狀態",
    "## 當前工作狀態",
    "## 当前工作状态",
    "## Safety Boundaries",
    "## 安全邊界",
    "## 安全边界",
)
"""System-prompt headers whose sections no stage may alter: identity, the current
working state and the safety boundaries, in English and Chinese."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetConfig:
    """How one agent's requests are held to its input budget.

    ``max_input_tokens``: the budget; 0 turns enforcement off.
    ``cache_guard_min_eff`` / ``cache_guard_max_overshoot``: skip compression when
    the recent cache efficiency is above the first and the overshoot below the
    second (both strict); ``cache_guard_min_eff <= 0`` turns the guard off.
    ``turn_trim_chars`` (``turn_trim_chars_under_pressure``): history text longer
    than this keeps its first ``turn_trim_head_chars`` and last
    ``turn_trim_tail_chars`` characters; under cost pressure the threshold and
    the kept characters are the ``*_under_pressure`` ones (by default the same
    300 + 200 as the seed says: pressure lowers the threshold, so turns of 524
    characters and more are trimmed; a trim never makes a turn longer, so turns
    between the threshold and that length stay as they are).
    ``tool_outputs_kept``: the newest tool outputs never stubbed.
    ``never_trim_headers``: system-prompt section headers no stage may alter.
    ``summarize``: allow the summary stage when a summarizer is given.
    ``summary_keeps_recent_turns``: history messages kept verbatim after a summary.
    ``source``: the file this config was read from, for messages.
    """

    max_input_tokens: int = 0
    cache_guard_min_eff: float = 0.5
    cache_guard_max_overshoot: float = 0.15
    turn_trim_chars: int = 800
    turn_trim_chars_under_pressure: int = 200
    turn_trim_head_chars: int = 300
    turn_trim_tail_chars: int = 200
    turn_trim_head_chars_under_pressure: int = 300
    turn_trim_tail_chars_under_pressure: int = 200
    tool_outputs_kept: int = 3
    never_trim_headers: tuple[str, ...] = DEFAULT_NEVER_TRIM_HEADERS
    summarize: bool = True
    summary_keeps_recent_turns: int = 3
    source: str = ""

    def __post_init__(self) -> None:
        for name in _COUNT_KEYS:
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                raise ConfigError(f"BudgetConfig.{name} must be an integer >= 0, not {value!r}")
        for name in ("cache_guard_min_eff", "cache_guard_max_overshoot"):
            if not _is_number(getattr(self, name)):
                raise ConfigError(f"BudgetConfig.{name} must be a number")
        if isinstance(self.never_trim_headers, str):
            raise ConfigError("BudgetConfig.never_trim_headers must be a tuple of header lines")

    @property
    def enabled(self) -> bool:
        """True when a budget is set."""
        return self.max_input_tokens > 0

    @property
    def cache_guard_on(self) -> bool:
        """True unless ``cache_guard_min_eff`` is 0 or below."""
        return self.cache_guard_min_eff > 0

    def trim_limits(self, cost_pressure: bool) -> tuple[int, int, int]:
        """(threshold, head, tail) characters for ``turn_trim``."""
        if cost_pressure:
            return (
                self.turn_trim_chars_under_pressure,
                self.turn_trim_head_chars_under_pressure,
                self.turn_trim_tail_chars_under_pressure,
            )
        return self.turn_trim_chars, self.turn_trim_head_chars, self.turn_trim_tail_chars


_COUNT_KEYS: Final = (
    "max_input_tokens",
    "turn_trim_chars",
    "turn_trim_chars_under_pressure",
    "turn_trim_head_chars",
    "turn_trim_tail_chars",
    "turn_trim_head_chars_under_pressure",
    "turn_trim_tail_chars_under_pressure",
    "tool_outputs_kept",
    "summary_keeps_recent_turns",
)


def _is_int(value: object) -> bool:
    # TOML booleans must not pass as integers; Python's bool is an int subclass.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and not (
        isinstance(value, float) and math.isnan(value)
    )


def _is_count(value: object) -> bool:
    return _is_int(value) and value >= 0  # type: ignore[operator]


def _is_headers(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(h, str) for h in value)


_OPTIONAL_KEYS: Final[dict[str, tuple[Callable[[object], bool], str]]] = {
    "cache_guard_min_eff": (_is_number, "a number"),
    "cache_guard_max_overshoot": (_is_number, "a number"),
    "turn_trim_chars": (_is_count, "an integer >= 0"),
    "turn_trim_chars_under_pressure": (_is_count, "an integer >= 0"),
    "turn_trim_head_chars": (_is_count, "an integer >= 0"),
    "turn_trim_tail_chars": (_is_count, "an integer >= 0"),
    "turn_trim_head_chars_under_pressure": (_is_count, "an integer >= 0"),
    "turn_trim_tail_chars_under_pressure": (_is_count, "an integer >= 0"),
    "tool_outputs_kept": (_is_count, "an integer >= 0"),
    "never_trim_headers": (_is_headers, "a list of strings"),
    "summarize": (lambda v: isinstance(v, bool), "true or false"),
    "summary_keeps_recent_turns": (_is_count, "an integer >= 0"),
}
_KNOWN_KEYS: Final = frozenset(f.name for f in fields(BudgetConfig)) - {"source"}


def load_budget_config(path: str | Path, *, sink: EventSink | None = None) -> BudgetConfig:
    """Read ``[budget]`` from an agent's TOML file; never raises for a bad file.

    A file that cannot be read or parsed, or that has no usable
    ``max_input_tokens``, gives a disabled config and a ``config_invalid`` event.
    A bad optional key falls back to its default, with an event naming it.
    """
    report = _Reporter(str(path), sink or LoggingSink())
    table = _read_budget_table(Path(path), report)
    if table is None:
        return BudgetConfig(source=str(path))
    values: dict[str, Any] = {"source": str(path)}
    for key in sorted(set(table) - _KNOWN_KEYS):
        report(f"unknown key [budget] {key} is ignored; check its spelling")
    for key, (valid, expected) in _OPTIONAL_KEYS.items():
        if key not in table:
            continue
        if valid(table[key]):
            values[key] = tuple(table[key]) if key == "never_trim_headers" else table[key]
        else:
            report(f"[budget] {key} = {table[key]!r} is not {expected}; using the default")
    values["max_input_tokens"] = _budget_tokens(table, report)
    return BudgetConfig(**values)


def _read_budget_table(path: Path, report: _Reporter) -> Mapping[str, Any] | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        report("file not found; budget enforcement is off")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        report(f"cannot read the file ({exc}); budget enforcement is off")
        return None
    except tomllib.TOMLDecodeError as exc:
        report(f"not valid TOML ({exc}); budget enforcement is off")
        return None
    table = data.get("budget")
    if not isinstance(table, Mapping):
        report("no [budget] table; budget enforcement is off")
        return None
    return table


def _budget_tokens(table: Mapping[str, Any], report: _Reporter) -> int:
    if "max_input_tokens" not in table:
        report("[budget] max_input_tokens is missing; budget enforcement is off")
        return 0
    value = table["max_input_tokens"]
    if not _is_count(value):
        report(
            f"[budget] max_input_tokens = {value!r} is not an integer >= 0; "
            "budget enforcement is off"
        )
        return 0
    return int(value)


@dataclass(frozen=True, slots=True)
class _Reporter:
    path: str
    sink: EventSink

    def __call__(self, problem: str) -> None:
        self.sink.emit(
            BudgetEvent(
                CONFIG_INVALID,
                f"budget config {self.path}: {problem}",
                {"path": self.path, "problem": problem},
            )
        )
