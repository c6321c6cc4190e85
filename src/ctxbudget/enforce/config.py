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
from pathlib import Path, PurePath
from typing import Any, Final

from ctxbudget.enforce.events import CONFIG_INVALID, BudgetEvent, EventSink, LoggingSink
from ctxbudget.errors import ConfigError

__all__ = [
    "DEFAULT_NEVER_TRIM_HEADERS",
    "RANGES",
    "SUMMARIZERS",
    "BudgetConfig",
    "Range",
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


@dataclass(frozen=True, slots=True)
class Range:
    """The values a numeric key may take (both ends included)."""

    low: float
    high: float
    integer: bool = True

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.integer and not isinstance(value, int):
            return False
        return not math.isnan(value) and self.low <= value <= self.high

    def __str__(self) -> str:
        kind = "an integer" if self.integer else "a number"
        high = f"{self.high:,.0f}" if self.integer else f"{self.high:g}"
        low = f"{self.low:,.0f}" if self.integer else f"{self.low:g}"
        return f"{kind} in [{low}, {high}]"


_CHARS: Final = Range(1, 10_000_000)
_KEPT_CHARS: Final = Range(0, 10_000_000)
_COUNT: Final = Range(0, 100_000)
RANGES: Final[dict[str, Range]] = {
    "max_input_tokens": Range(0, 100_000_000),
    "cache_guard_min_eff": Range(0.0, 1.0, integer=False),
    "cache_guard_max_overshoot": Range(0.0, 1.0, integer=False),
    "turn_trim_chars": _CHARS,
    "turn_trim_chars_under_pressure": _CHARS,
    "turn_trim_head_chars": _KEPT_CHARS,
    "turn_trim_tail_chars": _KEPT_CHARS,
    "turn_trim_head_chars_under_pressure": _KEPT_CHARS,
    "turn_trim_tail_chars_under_pressure": _KEPT_CHARS,
    "tool_outputs_kept": _COUNT,
    "summary_keeps_recent_turns": _COUNT,
}
"""Every numeric key and the values it may take (see ``docs/enforce.md``).

The two cache-guard keys are fractions: ``cache_guard_max_overshoot = 15`` meant
as 15 % would let a request 15 times over budget through a hot cache."""

SUMMARIZERS: Final = ("", "extractive")
"""``[budget] summarizer``: none (the host may pass one) or the offline extractive one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetConfig:
    """How one agent's requests are held to its input budget.

    ``max_input_tokens``: the budget; 0 turns enforcement off.
    ``cache_guard_min_eff`` / ``cache_guard_max_overshoot``: fractions in [0, 1];
    skip compression when the recent cache efficiency is above the first and the
    overshoot below the second (both strict); ``cache_guard_min_eff = 0`` turns
    the guard off.
    ``turn_trim_chars``: history text longer than this keeps its first
    ``turn_trim_head_chars`` and last ``turn_trim_tail_chars`` characters around
    the trim marker. Under cost pressure a text longer than
    ``turn_trim_chars_under_pressure`` is cut so that the whole trimmed text
    (head, marker and tail) fits within that many characters, head and tail in
    the proportion of ``turn_trim_head_chars_under_pressure`` to
    ``turn_trim_tail_chars_under_pressure`` (300:200, the seed's 3:2).
    ``tool_outputs_kept``: the newest tool outputs never stubbed.
    ``never_trim_headers``: system-prompt section headers no stage may alter.
    ``summarize``: allow the summary stage when a summarizer is given (or named).
    ``summarizer``: ``"extractive"`` runs the offline ``ExtractiveSummarizer``
    when the host passes none; ``""``: only the host's.
    ``summary_keeps_recent_turns``: history messages kept verbatim after a summary.
    ``source``: the file this config was read from, for messages.

    Every numeric value must lie in its range (``RANGES``); ``ConfigError`` otherwise.
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
    summarizer: str = ""
    summary_keeps_recent_turns: int = 3
    source: str = ""

    def __post_init__(self) -> None:
        for name, allowed in RANGES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ConfigError(f"BudgetConfig.{name} must be {allowed}, not {value!r}")
        headers = self.never_trim_headers
        if not isinstance(headers, tuple) or not all(isinstance(h, str) for h in headers):
            raise ConfigError(
                f"BudgetConfig.never_trim_headers must be a tuple of header lines, not {headers!r}"
            )
        if not isinstance(self.summarize, bool):
            raise ConfigError(
                f"BudgetConfig.summarize must be True or False, not {self.summarize!r}"
            )
        if not isinstance(self.source, str):
            raise ConfigError(f"BudgetConfig.source must be a string, not {self.source!r}")
        if self.summarizer not in SUMMARIZERS:
            raise ConfigError(
                f"BudgetConfig.summarizer must be one of {list(SUMMARIZERS)}, not "
                f"{self.summarizer!r}"
            )

    @property
    def enabled(self) -> bool:
        """True when a budget is set."""
        return self.max_input_tokens > 0

    @property
    def cache_guard_on(self) -> bool:
        """True unless ``cache_guard_min_eff`` is 0."""
        return self.cache_guard_min_eff > 0


def _default(name: str) -> Any:
    return next(f.default for f in fields(BudgetConfig) if f.name == name)


def _is_headers(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(h, str) for h in value)


_OTHER_KEYS: Final[dict[str, tuple[Callable[[object], bool], str]]] = {
    "never_trim_headers": (_is_headers, "a list of strings"),
    "summarize": (lambda v: isinstance(v, bool), "true or false"),
    "summarizer": (lambda v: v in SUMMARIZERS, "one of " + ", ".join(map(repr, SUMMARIZERS))),
}
_KNOWN_KEYS: Final = frozenset(f.name for f in fields(BudgetConfig)) - {"source"}


def load_budget_config(path: str | Path, *, sink: EventSink | None = None) -> BudgetConfig:
    """Read ``[budget]`` from an agent's TOML file; never raises for a bad file.

    A file that cannot be read or parsed, or that has no usable
    ``max_input_tokens``, gives a disabled config and a ``config_invalid`` event.
    A bad optional key falls back to its default, with an event naming it.
    A ``path`` that is not a path (``None``, a number) or a ``sink`` without
    ``emit`` is a mistake in the calling code, not a bad file: ``ConfigError``.
    """
    _check_arguments(path, sink)
    report = _Reporter(str(path), sink or LoggingSink())
    table = _read_budget_table(Path(path), report)
    if table is None:
        return BudgetConfig(source=str(path))
    values: dict[str, Any] = {"source": str(path)}
    for key in sorted(set(table) - _KNOWN_KEYS):
        report(f"unknown key [budget] {key} is ignored; check its spelling")
    for key, allowed in RANGES.items():
        if key in table and key != "max_input_tokens":
            value = table[key]
            if value in allowed:
                values[key] = value
            else:
                report(
                    f"[budget] {key} = {value!r} is outside its range ({allowed}); "
                    f"using the default {_default(key)!r}",
                    key=key,
                    value=value,
                    allowed=str(allowed),
                )
    for key, (valid, expected) in _OTHER_KEYS.items():
        if key not in table:
            continue
        if valid(table[key]):
            values[key] = tuple(table[key]) if key == "never_trim_headers" else table[key]
        else:
            report(f"[budget] {key} = {table[key]!r} is not {expected}; using the default", key=key)
    values["max_input_tokens"] = _budget_tokens(table, report)
    return BudgetConfig(**values)


def _check_arguments(path: object, sink: object) -> None:
    if not isinstance(path, str | PurePath) or not str(path):
        raise ConfigError(
            f"load_budget_config: path is {path!r}; pass the agent TOML file's path "
            "(a str or pathlib.Path)"
        )
    if sink is not None and not callable(getattr(sink, "emit", None)):
        raise ConfigError(
            f"load_budget_config: sink is a {type(sink).__name__}, not an EventSink; pass one "
            "with an emit(event) method, or None for the ctxbudget logger"
        )


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
    allowed = RANGES["max_input_tokens"]
    if value not in allowed:
        report(
            f"[budget] max_input_tokens = {value!r} is not {allowed}; budget enforcement is off",
            key="max_input_tokens",
            value=value,
            allowed=str(allowed),
        )
        return 0
    return int(value)


@dataclass(frozen=True, slots=True)
class _Reporter:
    path: str
    sink: EventSink

    def __call__(self, problem: str, **details: object) -> None:
        self.sink.emit(
            BudgetEvent(
                CONFIG_INVALID,
                f"budget config {self.path}: {problem}",
                {"path": self.path, "problem": problem, **details},
            )
        )
