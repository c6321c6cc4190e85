"""``check_session``: every event of a session's log the meter cannot fold, with seq and rule.

``TokenMeter.measure`` stops at the first event it cannot fold (``ReplayError``) and
keeps stopping there. A log the ledger accepted always folds; a log written
around the library may not. The check folds the whole session, skips each event
that does not fold (the fold never changes its state on a bad event), and reports
them all, so a repair can see everything at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ctxbudget.errors import CorruptEventError
from ctxbudget.ledger import Event, LedgerReader
from ctxbudget.meter.anchor_rule import AnchorRule
from ctxbudget.meter.fold import FoldError, FoldState, fold_event
from ctxbudget.meter.token_meter import _Pricing
from ctxbudget.tokens import SEED_OVERHEADS, Chars4Counter

__all__ = ["LogCheck", "LogProblem", "check_session"]


@dataclass(frozen=True, slots=True)
class LogProblem:
    """One event the meter cannot fold; ``rule`` is an id of ``docs/events.md``'s rule table."""

    seq: int
    type: str
    rule: str
    detail: str


@dataclass(frozen=True, slots=True)
class LogCheck:
    """What ``check_session`` found: ``events`` read, and the problems among them."""

    session_id: str
    events: int
    problems: tuple[LogProblem, ...]

    @property
    def ok(self) -> bool:
        """True when every event folds."""
        return not self.problems


def check_session(ledger: LedgerReader, session_id: str) -> LogCheck:
    """Fold every event of ``session_id``; report each one that does not fold.

    Prices do not matter here, so the fold runs with ``Chars4Counter``. A row the
    store cannot decode ends the check with a ``corrupt-row`` problem at its seq.
    """
    pricing = _Pricing(Chars4Counter(), SEED_OVERHEADS, AnchorRule(trust_lower_usage=False))
    state, problems = FoldState(), []
    known: dict[int, Event] = {}

    def lookup(seq: int) -> Event | None:
        return known.get(seq)

    try:
        for event in ledger.events(session_id):
            known[event.seq] = event
            try:
                state = fold_event(state, event, pricing, lookup)
            except FoldError as exc:
                problems.append(LogProblem(event.seq, event.type, exc.rule, str(exc)))
                state = replace(state, consumed=event.seq + 1)
    except CorruptEventError as exc:
        problems.append(LogProblem(exc.seq, "", "corrupt-row", str(exc)))
    return LogCheck(session_id, state.consumed, tuple(problems))
