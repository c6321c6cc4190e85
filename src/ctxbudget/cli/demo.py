"""``ctxbudget demo``: one scripted agent session living through its context window, offline.

The session (``ctxbudget.demo.script``) is logged into the SQLite ledger call by
call. Before each call the meter predicts the prompt and enforcement checks the
body; the simulated provider reports usage; when pressure reaches the
compaction threshold the compactor archives the oldest span and replaces it by
an extractive summary. Then an original is retrieved, a request that cannot fit
is refused, and the last request is shown as a ``/context`` breakdown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import click
from rich.console import Console
from rich.text import Text

from ctxbudget.archives import LedgerArchive
from ctxbudget.cli.context import breakdown_of
from ctxbudget.cli.inputs import check_writable, write_text
from ctxbudget.cli.options import ledger_option
from ctxbudget.cli.render import bar, context_view, pressure_text
from ctxbudget.compaction import Compacted, CompactionConfig, Compactor
from ctxbudget.demo.agent import ScriptedAgent, SimulatedProvider
from ctxbudget.demo.script import PASTED_LOG_TURN, SCRIPT, ModelCall
from ctxbudget.enforce import RANGES, BudgetConfig, enforce_budget
from ctxbudget.errors import BudgetExceeded
from ctxbudget.formats import input_cap, parse_request
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.meter import Measurement, TokenMeter
from ctxbudget.summaries import ExtractiveSummarizer, render_transcript
from ctxbudget.testing import RecordingSink
from ctxbudget.tokens import default_counter, get_counter

__all__ = ["DEMO_WINDOW", "PROVIDER_COUNTER", "demo"]

DEMO_WINDOW = 8_192
"""A small window, so the scripted session fills it within a few turns."""
_BAR = 24
PROVIDER_COUNTER = "calibrated:cl100k"
"""The tokenizer profile the simulated provider counts with (the meter uses its own)."""
_COMPACTION = CompactionConfig()
"""The compaction defaults (docs/compaction.md): compact at 80 % of the window, keep 16 % of it
verbatim."""


@dataclass
class _Run:
    """The demo's moving parts, built once."""

    console: Console
    ledger: Ledger
    agent: ScriptedAgent
    meter: TokenMeter
    provider: SimulatedProvider
    budget: BudgetConfig
    compactor: Compactor
    calls: int = 0
    enforced_unchanged: int = 0
    compactions: list[Compacted] = field(default_factory=list)
    last: Measurement | None = None
    """The meter's measurement after the last call (the last line of part 1)."""


def _new_session(ledger: Ledger) -> str:
    taken = set(ledger.sessions())
    number = 1
    while f"demo-{number}" in taken:
        number += 1
    return f"demo-{number}"


@click.command()
@ledger_option
@click.option(
    "--window",
    type=click.IntRange(min=2_048, max=int(RANGES["max_input_tokens"].high)),
    default=DEMO_WINDOW,
    show_default=True,
    metavar="N",
    help="Context window of the scripted session, tokens.",
)
@click.option(
    "--save-request",
    "save_path",
    default=None,
    metavar="FILE",
    help="Also write the session's last request body to FILE (to try context and fit on).",
)
def demo(ledger_url: str, window: int, save_path: str | None) -> None:
    """Replay a scripted agent session through the ledger, meter, enforcement and compaction."""
    console = Console(highlight=False)
    if save_path is not None:
        check_writable(save_path, "--save-request")
    with open_ledger(ledger_url) as ledger:
        session_id = _new_session(ledger)
        agent = ScriptedAgent(ledger, session_id)
        cap = input_cap(parse_request(agent.body()), window)
        meter = TokenMeter(ledger, context_window=window)
        compactor = Compactor(
            ledger, meter, ExtractiveSummarizer(), LedgerArchive.per_session(ledger), _COMPACTION
        )
        run = _Run(
            console=console,
            ledger=ledger,
            agent=agent,
            meter=meter,
            provider=SimulatedProvider(get_counter(PROVIDER_COUNTER)),
            budget=BudgetConfig(max_input_tokens=cap),
            compactor=compactor,
        )
        _intro(run, ledger_url, window, cap)
        _play(run)
        _retrieved(run)
        _refusal(run)
        _final_breakdown(run, window)
        if save_path is not None:
            body = json.dumps(agent.body(), ensure_ascii=False, indent=1)
            write_text(save_path, body + "\n")
            console.print(f"\nthe last request is in {save_path}", markup=False)
        if not ledger_url.startswith("memory:"):
            console.print(
                f"\nthe session stays in the ledger: ctxbudget session history {session_id} "
                f"--window {window} --ledger {ledger_url}",
                markup=False,
                soft_wrap=True,
            )


def _intro(run: _Run, ledger_url: str, window: int, cap: int) -> None:
    run.console.rule("ctxbudget demo")
    run.console.print(
        f"A scripted coding-agent session (English and Chinese, with tool calls), replayed "
        f"offline as session {run.agent.session_id!r} in {ledger_url}.\n"
        f"Window {window:,} tokens, output reserve {window - cap:,}, so every request is "
        f"held to {cap:,} input tokens. The provider is simulated: it reports usage by "
        f"counting with {PROVIDER_COUNTER}; the meter predicts with its own counter, "
        f"{run.meter.counter.name}; enforcement guards the budget with the conservative "
        f"{default_counter().name}.",
        markup=False,
    )


def _play(run: _Run) -> None:
    run.console.rule("1. Pressure, call by call")
    run.console.print(
        f"predicted: the meter's prompt before the call ({run.meter.counter.name}); reported: "
        f"the provider's prompt ({PROVIDER_COUNTER}); pressure: the meter after the call "
        f"(prompt and answer) as a share of the whole {run.meter.context_window:,}-token window",
        style="dim",
        markup=False,
    )
    run.agent.start()
    for turn in SCRIPT:
        run.agent.user_turn(turn.user)
        user = Text(f"user: {turn.user.splitlines()[0]}", style="bold")
        run.console.print(user, no_wrap=True, overflow="ellipsis")
        run.console.print("call  predicted  reported  pressure after the call", style="dim")
        for call in turn.calls:
            _one_call(run, call)
    run.agent.finish()
    run.console.print(
        f"{run.calls} calls; enforcement checked every request against the budget of "
        f"{run.budget.max_input_tokens:,} tokens (counted with {default_counter().name}) and "
        f"sent {run.enforced_unchanged} unchanged."
    )


def _one_call(run: _Run, call: ModelCall) -> None:
    run.agent.begin_call()
    predicted = run.meter.measure(run.agent.session_id)
    body = run.agent.body()
    sent = enforce_budget(body, run.budget, counter=default_counter(), sink=RecordingSink())
    run.enforced_unchanged += sent.body is body
    usage = run.provider.usage(sent.body, call)
    run.agent.finish_call(call, usage)
    run.calls += 1
    after = run.meter.measure(run.agent.session_id)
    run.last = after
    reported = sum(v for k, v in usage.items() if k != "output_tokens")
    line = Text(f"{run.calls:>4}  {predicted.total_tokens:>9,}  {reported:>8,}  ")
    chart = bar(after.total_tokens, after.capacity, "cyan", width=_BAR)
    line.append_text(chart)
    line.append(" " * (_BAR + 1 - len(chart)))
    line.append(f"{100 * after.total_tokens / after.capacity:3.0f}% ")
    line.append_text(pressure_text(after.pressure))
    if call.tools:
        line.append(f" {call.tools[0].name}", style="dim")
    run.console.print(line, no_wrap=True, overflow="ellipsis")
    _compact_if_needed(run)


def _compact_if_needed(run: _Run) -> None:
    outcome = run.compactor.compact_if_needed(run.agent.session_id)
    if not isinstance(outcome, Compacted):
        return
    run.compactions.append(outcome)
    run.agent.compacted(outcome.shadowed_seqs, outcome.message_seq)
    run.provider.forget_cache()
    window = run.meter.context_window
    before = 100 * outcome.total_tokens_before / window
    after = 100 * outcome.total_tokens_after / window
    threshold = _COMPACTION.threshold_ratio
    run.console.print(
        f"  ↳ compaction: {before:.0f}% of the window reached the {threshold:.0%} threshold; "
        f"{len(outcome.shadowed_seqs)} messages ({outcome.shadowed_tokens:,} tokens) became a "
        f"{outcome.summary_tokens:,}-token extractive summary; now {after:.0f}%",
        style="bold magenta",
        highlight=False,
    )
    run.console.print(
        f"    originals archived at {_short(outcome.locator)}",
        style="magenta",
        markup=False,
        no_wrap=True,
        overflow="ellipsis",
    )


def _short(locator: str, keep: int = 40) -> str:
    """A long locator shown by its ends (the full one is printed where it is to be copied)."""
    return locator if len(locator) <= keep else f"{locator[: keep - 12]}…{locator[-10:]}"


def _retrieved(run: _Run) -> None:
    run.console.rule("2. An original, retrieved from the archive")
    if not run.compactions:
        run.console.print("no compaction ran, so nothing was archived")
        return
    first = run.compactions[0]
    archive = LedgerArchive(run.ledger, run.agent.session_id)
    original = archive.retrieve(first.locator)
    text = render_transcript(original.messages).splitlines()
    run.console.print(
        f"{_short(first.locator)} gives back the {len(original.messages)} messages exactly "
        f"as logged; the first lines of {len(text):,}:",
        markup=False,
    )
    for line in text[:6]:
        run.console.print(f"  {line}", markup=False, no_wrap=True, overflow="ellipsis")
    run.console.print(
        f"all of it: ctxbudget archive '{first.locator}' --session {run.agent.session_id}",
        markup=False,
        style="dim",
        soft_wrap=True,
    )


def _refusal(run: _Run) -> None:
    run.console.rule("3. A request that cannot fit")
    body = run.agent.body(extra_user=PASTED_LOG_TURN)
    try:
        enforce_budget(body, run.budget, counter=default_counter(), sink=RecordingSink())
    except BudgetExceeded as refusal:
        run.console.print("the user pastes a whole CI log; the request is refused, not sent:")
        run.console.print(f"  [{refusal.code}] {refusal}", markup=False)
    else:  # pragma: no cover - the pasted log is larger than any demo budget
        run.console.print("the pasted log fitted after all")


def _final_breakdown(run: _Run, window: int) -> None:
    run.console.rule("4. The last request, as /context shows it")
    request = parse_request(run.agent.body())
    breakdown = breakdown_of(request, default_counter(), window, run.agent.session_id)
    run.console.print(context_view(breakdown))
    if run.last is not None:
        figures = _two_figures(
            run.last, run.meter.counter.name, breakdown.input_tokens, breakdown.cap
        )
        run.console.print(figures, style="dim", markup=False)


def _two_figures(meter: Measurement, meter_counter: str, guarded: int, cap: int) -> str:
    """Why this view reads higher than the meter's last line: another counter, another limit."""
    return (
        f"This view counts with {default_counter().name}, the conservative counter budgets are "
        f"guarded with, and holds the request against the input cap ({guarded:,} of {cap:,} "
        f"tokens = {100 * guarded / cap:.0f}%: the window minus the output reserve). The "
        f"meter's last line above counts with {meter_counter}, which predicts what "
        f"the provider reports, against the whole window ({meter.total_tokens:,} of "
        f"{meter.capacity:,} = {100 * meter.total_tokens / meter.capacity:.0f}%), so it reads "
        "lower for the same session."
    )
