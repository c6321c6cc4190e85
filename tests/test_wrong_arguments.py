"""Wrong-typed arguments at the library's public entry points raise a ``CtxBudgetError``
with a stable code that names the argument, never a raw TypeError or AttributeError
from deep inside the first use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxbudget.archives import LedgerArchive
from ctxbudget.compaction import CompactionConfig, Compactor
from ctxbudget.enforce import BudgetConfig, enforce_budget, load_budget_config
from ctxbudget.errors import CtxBudgetError, UnknownCounterError
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import ExtractiveSummarizer
from ctxbudget.tokens import Chars4Counter

BODY = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]}
CONFIG = BudgetConfig(max_input_tokens=1_000)


@pytest.fixture
def ledger() -> Iterator[Ledger]:
    with open_ledger("memory://") as store:
        yield store


def _enforce(**kwargs: Any) -> Callable[[Ledger], object]:
    return lambda _: enforce_budget(BODY, CONFIG, **kwargs)


# (what is called, the call, the code it must raise, a word the message must contain)
CASES: list[tuple[str, Callable[[Ledger], object], str, str]] = [
    ("enforce_budget counter='nosuch'", _enforce(counter="nosuch"), "unknown_counter", "nosuch"),
    ("enforce_budget counter=5", _enforce(counter=5), "config_invalid", "counter"),
    ("enforce_budget window='10'", _enforce(window="10"), "config_invalid", "window"),
    ("enforce_budget window=None", _enforce(window=None), "config_invalid", "window"),
    ("enforce_budget window=-5", _enforce(window=-5), "config_invalid", "window"),
    ("enforce_budget hard_cap='5'", _enforce(hard_cap="5"), "config_invalid", "hard_cap"),
    ("enforce_budget hard_cap=-5", _enforce(hard_cap=-5), "config_invalid", "hard_cap"),
    (
        "enforce_budget output_reserve='1'",
        _enforce(output_reserve="1"),
        "config_invalid",
        "output_reserve",
    ),
    (
        "enforce_budget price_tier_tokens='9'",
        _enforce(price_tier_tokens="9"),
        "config_invalid",
        "price_tier",
    ),
    (
        "enforce_budget cache_efficiency='hi'",
        _enforce(cache_efficiency="hi"),
        "config_invalid",
        "cache_efficiency",
    ),
    (
        "enforce_budget cache_efficiency=5.0",
        _enforce(cache_efficiency=5.0),
        "config_invalid",
        "cache_efficiency",
    ),
    (
        "enforce_budget cost_pressure='yes'",
        _enforce(cost_pressure="yes"),
        "config_invalid",
        "cost_pressure",
    ),
    ("enforce_budget sink=object()", _enforce(sink=object()), "config_invalid", "sink"),
    ("enforce_budget cache=object()", _enforce(cache=object()), "config_invalid", "cache"),
    ("enforce_budget summarizer='x'", _enforce(summarizer="x"), "config_invalid", "summarizer"),
    ("enforce_budget archive='dir'", _enforce(archive="dir"), "config_invalid", "archive"),
    ("load_budget_config(None)", lambda _: load_budget_config(None), "config_invalid", "path"),  # type: ignore[arg-type]
    ("load_budget_config(5)", lambda _: load_budget_config(5), "config_invalid", "path"),  # type: ignore[arg-type]
    (
        "load_budget_config sink=object()",
        lambda _: load_budget_config("agent.toml", sink=object()),  # type: ignore[arg-type]
        "config_invalid",
        "sink",
    ),
    (
        "BudgetConfig never_trim_headers=[1]",
        lambda _: BudgetConfig(never_trim_headers=[1]),
        "config_invalid",
        "never_trim_headers",
    ),  # type: ignore[arg-type]
    (
        "BudgetConfig summarize='x'",
        lambda _: BudgetConfig(summarize="x"),
        "config_invalid",
        "summarize",
    ),  # type: ignore[arg-type]
    ("BudgetConfig source=None", lambda _: BudgetConfig(source=None), "config_invalid", "source"),  # type: ignore[arg-type]
    ("TokenMeter(None)", lambda _: TokenMeter(None), "config_invalid", "ledger"),  # type: ignore[arg-type]
    ("TokenMeter('memory://')", lambda _: TokenMeter("memory://"), "config_invalid", "ledger"),  # type: ignore[arg-type]
    (
        "TokenMeter counter='nosuch'",
        lambda s: TokenMeter(s, counter="nosuch"),
        "unknown_counter",
        "nosuch",
    ),
    ("TokenMeter counter=5", lambda s: TokenMeter(s, counter=5), "config_invalid", "counter"),  # type: ignore[arg-type]
    (
        "TokenMeter overheads='x'",
        lambda s: TokenMeter(s, overheads="x"),
        "config_invalid",
        "overheads",
    ),  # type: ignore[arg-type]
    (
        "TokenMeter calibrate='x'",
        lambda s: TokenMeter(s, calibrate="x"),
        "config_invalid",
        "calibrate",
    ),  # type: ignore[arg-type]
    (
        "TokenMeter anchor_rule='x'",
        lambda s: TokenMeter(s, anchor_rule="x"),
        "config_invalid",
        "anchor_rule",
    ),  # type: ignore[arg-type]
    (
        "TokenMeter.measure(5)",
        lambda s: TokenMeter(s).measure(5),
        "invalid_session_id",
        "session_id",
    ),  # type: ignore[arg-type]
    (
        "TokenMeter.history(None)",
        lambda s: TokenMeter(s).history(None),
        "invalid_session_id",
        "session_id",
    ),  # type: ignore[arg-type]
    (
        "TokenMeter.estimate_message('x')",
        lambda s: TokenMeter(s).estimate_message("x"),
        "config_invalid",
        "message",
    ),  # type: ignore[arg-type]
    (
        "CompactionConfig.from_mapping(None)",
        lambda _: CompactionConfig.from_mapping(None),
        "config_invalid",
        "settings",
    ),  # type: ignore[arg-type]
    (
        "CompactionConfig.retain_for(None)",
        lambda _: CompactionConfig().retain_for(None),
        "config_invalid",
        "context_window",
    ),  # type: ignore[arg-type]
    (
        "CompactionConfig.threshold_tokens('x')",
        lambda _: CompactionConfig().threshold_tokens("x"),
        "config_invalid",
        "context_window",
    ),  # type: ignore[arg-type]
    (
        "Compactor meter='meter'",
        lambda s: Compactor(s, "meter", ExtractiveSummarizer(), LedgerArchive.per_session(s)),  # type: ignore[arg-type]
        "config_invalid",
        "meter",
    ),
    (
        "Compactor config=dict",
        lambda s: Compactor(
            s, TokenMeter(s), ExtractiveSummarizer(), LedgerArchive.per_session(s), {"auto": 1}
        ),  # type: ignore[arg-type]
        "config_invalid",
        "CompactionConfig",
    ),
]


@pytest.mark.parametrize(("what", "call", "code", "named"), CASES, ids=[c[0] for c in CASES])
def test_a_wrong_argument_raises_a_ctxbudget_error_naming_it(
    ledger: Ledger, what: str, call: Callable[[Ledger], object], code: str, named: str
) -> None:
    with pytest.raises(CtxBudgetError) as raised:
        call(ledger)
    assert raised.value.code == code, (what, raised.value)
    assert named in str(raised.value), (what, raised.value)


def test_enforce_budget_resolves_a_counter_spec_string_as_get_counter_does() -> None:
    """A spec string is the counter it names: the same estimate as passing that counter."""
    by_name = enforce_budget(BODY, CONFIG, counter="chars4")
    by_object = enforce_budget(BODY, CONFIG, counter=Chars4Counter())
    assert by_name.estimate_before == by_object.estimate_before


def test_token_meter_resolves_a_counter_spec_string(ledger: Ledger) -> None:
    assert TokenMeter(ledger, counter="chars4").counter.name == Chars4Counter().name


def test_an_unknown_counter_spec_is_still_an_unknown_counter_error() -> None:
    with pytest.raises(UnknownCounterError):
        enforce_budget(BODY, CONFIG, counter="x")


def test_load_budget_config_still_takes_a_path_object(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text("[budget]\nmax_input_tokens = 500\n", "utf-8")
    assert load_budget_config(path).max_input_tokens == 500


def test_enforce_budget_async_checks_its_arguments_the_same_way() -> None:
    import asyncio

    from ctxbudget.enforce import enforce_budget_async

    with pytest.raises(UnknownCounterError):
        asyncio.run(enforce_budget_async(BODY, CONFIG, counter="nosuch"))
    with pytest.raises(CtxBudgetError) as raised:
        asyncio.run(enforce_budget_async(BODY, CONFIG, window="10"))  # type: ignore[arg-type]
    assert raised.value.code == "config_invalid"
    done = asyncio.run(enforce_budget_async(BODY, CONFIG, counter="chars4"))
    assert done.estimate_before == enforce_budget(BODY, CONFIG, counter="chars4").estimate_before
