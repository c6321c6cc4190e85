"""``LedgerArchive``: the originals stay where they already are, in the ledger.

The ledger never changes or drops an event, so a replaced span is still there
under its seqs: this archive stores nothing new. ``store`` checks that the
original is exactly what the session's events at its seqs say (so ``retrieve``
can give it back exactly) and returns a locator naming the kind and the seqs.

One archive serves one session, and its locators carry no session id: whatever a
locator says, ``retrieve`` reads only that session's events, so a crafted
locator cannot reach another session. Give the compactor a factory
(``LedgerArchive.per_session(ledger)``) to serve many sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Literal

from ctxbudget.archives.projection import event_messages
from ctxbudget.archives.protocol import Original
from ctxbudget.errors import ArchiveError, LocatorError
from ctxbudget.ledger import AsyncLedger, Event, LedgerReader

__all__ = ["LEDGER_LOCATOR_PREFIX", "AsyncLedgerArchive", "LedgerArchive"]

LEDGER_LOCATOR_PREFIX: Final = "ledger:"
"""Locators look like ``ledger:turns:4,8,10`` or ``ledger:tool_output:7``."""
MAX_LOCATOR_SEQS: Final = 100_000
"""Most seqs one locator may name; a longer one is refused before anything is read."""
_KINDS: Final = ("turns", "tool_output")


class LedgerArchive:
    """An ``Archive`` whose originals are the events of one session of ``ledger``."""

    def __init__(self, ledger: LedgerReader, session_id: str) -> None:
        self.ledger = ledger
        self.session_id = session_id

    def __repr__(self) -> str:
        return f"LedgerArchive({self.ledger!r}, {self.session_id!r})"

    @classmethod
    def per_session(cls, ledger: LedgerReader) -> Callable[[str], LedgerArchive]:
        """A factory giving each session its own archive (what ``Compactor`` takes)."""
        return lambda session_id: cls(ledger, session_id)

    def store(self, original: Original) -> str:
        """The locator of ``original``, after checking the ledger holds exactly it."""
        locator = _locator(original, self.session_id)
        if self.retrieve(locator) != original:
            raise ArchiveError(
                f"the events at seqs {list(original.seqs)} of session {self.session_id!r} are "
                "not this original; LedgerArchive keeps only spans as logged (use FileArchive "
                "for content that is not in the ledger)"
            )
        return locator

    def retrieve(self, locator: str) -> Original:
        """The original named by ``locator``, rebuilt from this session's events."""
        kind, seqs = _parse(locator)
        events = self.ledger.events(self.session_id, min(seqs), max(seqs) + 1)
        return _rebuild(self.session_id, kind, seqs, events, locator, self._tool_name)

    def _tool_name(self, result: Event) -> str:
        return _call_name(self.ledger.events(self.session_id, 0, result.seq), result)


class AsyncLedgerArchive:
    """``LedgerArchive`` over an ``AsyncLedger``."""

    def __init__(self, ledger: AsyncLedger, session_id: str) -> None:
        self.ledger = ledger
        self.session_id = session_id

    def __repr__(self) -> str:
        return f"AsyncLedgerArchive({self.ledger!r}, {self.session_id!r})"

    @classmethod
    def per_session(cls, ledger: AsyncLedger) -> Callable[[str], AsyncLedgerArchive]:
        """A factory giving each session its own archive (what ``AsyncCompactor`` takes)."""
        return lambda session_id: cls(ledger, session_id)

    async def store(self, original: Original) -> str:
        """Same as ``LedgerArchive.store``."""
        locator = _locator(original, self.session_id)
        if await self.retrieve(locator) != original:
            raise ArchiveError(
                f"the events at seqs {list(original.seqs)} of session {self.session_id!r} are "
                "not this original; LedgerArchive keeps only spans as logged (use FileArchive "
                "for content that is not in the ledger)"
            )
        return locator

    async def retrieve(self, locator: str) -> Original:
        """Same as ``LedgerArchive.retrieve``."""
        kind, seqs = _parse(locator)
        events = await self.ledger.events(self.session_id, min(seqs), max(seqs) + 1)
        name = ""
        if kind == "tool_output" and events:
            before = await self.ledger.events(self.session_id, 0, seqs[0])
            name = _call_name(before, events[0])
        return _rebuild(self.session_id, kind, seqs, events, locator, lambda _: name)


def _locator(original: Original, session_id: str) -> str:
    if original.session_id != session_id:
        raise ArchiveError(
            f"this LedgerArchive serves session {session_id!r}, not {original.session_id!r}; "
            "use one archive per session (LedgerArchive.per_session)"
        )
    if not original.seqs:
        raise ArchiveError(
            "LedgerArchive needs the seqs the original sits at in the ledger; this one has "
            "none (use FileArchive for content that is not in the ledger)"
        )
    return f"{LEDGER_LOCATOR_PREFIX}{original.kind}:{','.join(map(str, original.seqs))}"


def _parse(locator: object) -> tuple[Literal["turns", "tool_output"], tuple[int, ...]]:
    shape = f"they look like {LEDGER_LOCATOR_PREFIX}turns:4,8,10"
    if not isinstance(locator, str) or not locator.startswith(LEDGER_LOCATOR_PREFIX):
        raise LocatorError(f"{locator!r} is not a ledger archive locator; {shape}")
    kind, _, listed = locator.removeprefix(LEDGER_LOCATOR_PREFIX).partition(":")
    parts = listed.split(",")
    if (
        kind not in _KINDS
        or not listed
        or len(parts) > MAX_LOCATOR_SEQS
        or not all(p.isascii() and p.isdigit() and len(p) <= 15 for p in parts)
    ):
        raise LocatorError(f"{locator!r} is not a ledger archive locator; {shape}")
    seqs = tuple(int(p) for p in parts)
    if len(set(seqs)) != len(seqs):
        raise LocatorError(f"{locator!r} names a seq twice")
    return ("turns" if kind == "turns" else "tool_output"), seqs


def _rebuild(
    session_id: str,
    kind: Literal["turns", "tool_output"],
    seqs: tuple[int, ...],
    events: Sequence[Event],
    locator: str,
    tool_name: Callable[[Event], str],
) -> Original:
    by_seq = {e.seq: e for e in events}
    picked = [by_seq.get(seq) for seq in seqs]
    chosen = [e for e in picked if e is not None]
    if len(chosen) != len(seqs):
        raise LocatorError(f"session {session_id!r} has no event at some seq of {locator!r}")
    try:
        messages = event_messages(chosen)
    except ValueError as exc:
        raise LocatorError(f"{locator!r} does not name surface messages: {exc}") from None
    call_id, name = "", ""
    if kind == "tool_output":
        if len(chosen) != 1 or chosen[0].type != "tool/result":
            raise LocatorError(f"{locator!r} does not name exactly one tool/result")
        call_id, name = str(chosen[0].data.get("call_id", "")), tool_name(chosen[0])
    return Original(kind, messages, session_id, seqs, call_id, name)


def _call_name(before: Sequence[Event], result: Event) -> str:
    call_id = result.data.get("call_id")
    for event in reversed(before):
        if event.type == "tool/call" and event.data.get("call_id") == call_id:
            return str(event.data.get("name", ""))
    return ""
