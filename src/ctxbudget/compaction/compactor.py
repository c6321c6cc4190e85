"""``Compactor`` and ``AsyncCompactor``: the compaction engine over a ledger and a meter.

Both run the same steps (``steps``, ``transaction``, ``decision``); they differ only
in how a step is performed. The kernel's ``apply`` / ``apply_async`` runs the
archive-then-summarize part through adapters from item ids to the span's content,
so the seed-000 checks and ordering hold here too.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from ctxbudget.archives import Archive, AsyncArchive, Original
from ctxbudget.compaction.config import CompactionConfig
from ctxbudget.compaction.decision import compact_if_needed_steps, select_range_steps
from ctxbudget.compaction.outcomes import Compacted, CompactionOutcome, CompactionRange, Trigger
from ctxbudget.compaction.steps import (
    AppendEvents,
    Context,
    Measure,
    ReadEvents,
    Step,
    Steps,
    drive,
    drive_async,
)
from ctxbudget.compaction.transaction import compact_region_steps
from ctxbudget.content import Message, TextBlock
from ctxbudget.errors import ConfigError
from ctxbudget.kernel import Item, Locator, Summary, apply, apply_async
from ctxbudget.ledger import AsyncLedger, Ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import AsyncSummarizer, Summarizer, SummaryRequest, frame_checkpoint

__all__ = ["ArchiveChoice", "AsyncArchiveChoice", "AsyncCompactor", "Compactor"]

ArchiveChoice: TypeAlias = Archive | Callable[[str], Archive]
"""One archive for every session, or a factory giving each session its own."""
AsyncArchiveChoice: TypeAlias = AsyncArchive | Callable[[str], AsyncArchive]

_TYPICAL_LOCATOR = "ctxbudget-archive:" + "0" * 20


class _Engine:
    """Settings and checks shared by the two compactors."""

    def __init__(
        self,
        meter: TokenMeter,
        summarizer: object,
        config: CompactionConfig | None,
        new_id: Callable[[], str] | None,
    ) -> None:
        if not isinstance(meter, TokenMeter):
            raise ConfigError(
                f"Compactor: meter is a {type(meter).__name__}; pass a ctxbudget.meter.TokenMeter"
            )
        if config is not None and not isinstance(config, CompactionConfig):
            raise ConfigError(
                f"Compactor: config is a {type(config).__name__}; pass a CompactionConfig "
                "(CompactionConfig.from_mapping reads one from a table) or None"
            )
        self.meter = meter
        self.config = config if config is not None else CompactionConfig()
        window = meter.context_window
        framing = meter.estimate_message(Message("user", frame_checkpoint("", _TYPICAL_LOCATOR)))
        self._ctx = Context(
            config=self.config,
            context_window=window,
            retain_tokens=self.config.retain_for(window),
            framing_tokens=framing,
            price=meter.estimate_message,
            new_id=new_id if new_id is not None else lambda: uuid.uuid4().hex,
            summarizer_labels=_labels(summarizer),
        )

    def _decide(self, session_id: str, trigger: str) -> Steps:
        if trigger not in ("pressure", "overflow"):
            raise ConfigError(
                f"compact_if_needed: trigger must be 'pressure' or 'overflow', not {trigger!r}"
            )
        checked: Trigger = "pressure" if trigger == "pressure" else "overflow"
        return compact_if_needed_steps(self._ctx, session_id, checked)

    def _select(self, retain_tokens: int | None) -> Steps:
        retain = self._ctx.retain_tokens if retain_tokens is None else retain_tokens
        if not isinstance(retain, int) or isinstance(retain, bool) or retain < 0:
            raise ConfigError(f"select_range: retain_tokens ({retain!r}) must be >= 0")
        return select_range_steps(self._ctx, retain)

    def _region(self, session_id: str, start_seq: int, end_seq: int, trigger: Trigger) -> Steps:
        return compact_region_steps(self._ctx, session_id, start_seq, end_seq, trigger)


class Compactor(_Engine):
    """Compacts sessions of a sync ``ledger``, measured by ``meter`` (over the same log).

    ``summarizer``: any ``Summarizer`` (``ExtractiveSummarizer`` offline,
    ``OpenAICompatibleSummarizer``). ``archive``: any ``Archive``, or a factory
    ``session_id -> Archive`` such as ``LedgerArchive.per_session(ledger)``.
    ``new_id``: makes compaction ids (default: random UUIDs).
    """

    def __init__(
        self,
        ledger: Ledger,
        meter: TokenMeter,
        summarizer: Summarizer,
        archive: ArchiveChoice,
        config: CompactionConfig | None = None,
        *,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(meter, summarizer, config, new_id)
        _check_archive(archive, Archive)
        self.ledger, self.summarizer, self.archive = ledger, summarizer, archive

    def __repr__(self) -> str:
        return f"Compactor({self.ledger!r}, {self.summarizer!r}, {self.archive!r})"

    def compact_if_needed(
        self, session_id: str, trigger: Literal["pressure", "overflow"] = "pressure"
    ) -> CompactionOutcome:
        """Compact when the session is at or above the threshold (``"pressure"``), or
        right away keeping only the last node's pair (``"overflow"``)."""
        outcome: CompactionOutcome = self._run(session_id, self._decide(session_id, trigger))
        return outcome

    def select_range(
        self, session_id: str, retain_tokens: int | None = None
    ) -> CompactionRange | None:
        """The span a compaction would replace now (``None`` if there is none)."""
        found = self._run(session_id, self._select(retain_tokens))
        return found if isinstance(found, CompactionRange) else None

    def compact_region(
        self, session_id: str, start_seq: int, end_seq: int, trigger: Trigger = "manual"
    ) -> Compacted:
        """Replace the surface span ``start_seq``..``end_seq`` by its summary."""
        compacted: Compacted = self._run(
            session_id, self._region(session_id, start_seq, end_seq, trigger)
        )
        return compacted

    def _run(self, session_id: str, steps: Steps) -> Any:
        return drive(steps, lambda step: self._perform(session_id, step))

    def _perform(self, session_id: str, step: Step) -> Any:
        if isinstance(step, Measure):
            return self.meter.measure(session_id)
        if isinstance(step, ReadEvents):
            return self.ledger.events(session_id, step.start, step.stop)
        if isinstance(step, AppendEvents):
            return self.ledger.append_many(session_id, step.events, step.expected_revision)
        archive: Archive = _for_session(self.archive, session_id, Archive)
        return apply(
            step.plan,
            step.leading,
            step.tail,
            _ItemArchive(archive, step.original),
            _ItemSummarizer(self.summarizer, step.request, self.meter),
        )


class AsyncCompactor(_Engine):
    """``Compactor`` for async hosts: an ``AsyncLedger``, async summarizer and archive.

    ``meter`` reads the same log through a sync reader (e.g. the ``.sync`` store of a
    ``ThreadedAsyncLedger``); it is called in a worker thread.
    """

    def __init__(
        self,
        ledger: AsyncLedger,
        meter: TokenMeter,
        summarizer: AsyncSummarizer,
        archive: AsyncArchiveChoice,
        config: CompactionConfig | None = None,
        *,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(meter, summarizer, config, new_id)
        _check_archive(archive, AsyncArchive)
        self.ledger, self.summarizer, self.archive = ledger, summarizer, archive

    def __repr__(self) -> str:
        return f"AsyncCompactor({self.ledger!r}, {self.summarizer!r}, {self.archive!r})"

    async def compact_if_needed(
        self, session_id: str, trigger: Literal["pressure", "overflow"] = "pressure"
    ) -> CompactionOutcome:
        """Same as ``Compactor.compact_if_needed``."""
        outcome: CompactionOutcome = await self._run(session_id, self._decide(session_id, trigger))
        return outcome

    async def select_range(
        self, session_id: str, retain_tokens: int | None = None
    ) -> CompactionRange | None:
        """Same as ``Compactor.select_range``."""
        found = await self._run(session_id, self._select(retain_tokens))
        return found if isinstance(found, CompactionRange) else None

    async def compact_region(
        self, session_id: str, start_seq: int, end_seq: int, trigger: Trigger = "manual"
    ) -> Compacted:
        """Same as ``Compactor.compact_region``."""
        compacted: Compacted = await self._run(
            session_id, self._region(session_id, start_seq, end_seq, trigger)
        )
        return compacted

    async def _run(self, session_id: str, steps: Steps) -> Any:
        async def perform(step: Step) -> Any:
            return await self._perform(session_id, step)

        return await drive_async(steps, perform)

    async def _perform(self, session_id: str, step: Step) -> Any:
        if isinstance(step, Measure):
            return await asyncio.to_thread(self.meter.measure, session_id)
        if isinstance(step, ReadEvents):
            return await self.ledger.events(session_id, step.start, step.stop)
        if isinstance(step, AppendEvents):
            return await self.ledger.append_many(session_id, step.events, step.expected_revision)
        archive: AsyncArchive = _for_session(self.archive, session_id, AsyncArchive)
        return await apply_async(
            step.plan,
            step.leading,
            step.tail,
            _AsyncItemArchive(archive, step.original),
            _AsyncItemSummarizer(self.summarizer, step.request, self.meter),
        )


def _check_archive(choice: object, protocol: Any) -> None:
    if not isinstance(choice, protocol) and not callable(choice):
        raise ConfigError(
            f"archive {choice!r} is not an {protocol.__name__} (store and retrieve) nor a "
            "factory session_id -> archive"
        )


def _for_session(choice: Any, session_id: str, protocol: Any) -> Any:
    """``choice`` itself if it is an archive, else what the factory gives for the session."""
    if isinstance(choice, protocol):
        return choice
    archive = choice(session_id)
    if not isinstance(archive, protocol):
        raise ConfigError(
            f"the archive factory gave {archive!r} for session {session_id!r}, "
            f"which is not an {protocol.__name__}"
        )
    return archive


def _labels(summarizer: object) -> Mapping[str, str]:
    """``provider`` / ``model`` for ``compaction/summary``, when the summarizer names them."""
    labels = {}
    for key in ("provider", "model"):
        value = getattr(summarizer, key, None)
        if isinstance(value, str) and value:
            labels[key] = value
    return labels


class _ItemArchive:
    """The kernel's ``ItemArchive`` over an ``Archive``: the items are the span's seqs."""

    def __init__(self, archive: Archive, original: Original) -> None:
        self.target, self.original = archive, original

    def archive(self, items: Sequence[Item]) -> Locator:
        _check_items(items, self.original)
        return Locator(self.target.store(self.original))


class _AsyncItemArchive:
    def __init__(self, archive: AsyncArchive, original: Original) -> None:
        self.target, self.original = archive, original

    async def archive(self, items: Sequence[Item]) -> Locator:
        _check_items(items, self.original)
        return Locator(await self.target.store(self.original))


class _ItemSummarizer:
    """The kernel's ``ItemSummarizer`` over a ``Summarizer``."""

    def __init__(self, summarizer: Summarizer, request: SummaryRequest, meter: TokenMeter) -> None:
        self.summarizer, self.request, self.meter = summarizer, request, meter

    def summarize(self, leading: Sequence[Item]) -> Summary:
        text = self.summarizer.summarize(self.request)
        return Summary(text, self.meter.estimate_message(Message("user", (TextBlock(text),))))


class _AsyncItemSummarizer:
    def __init__(
        self, summarizer: AsyncSummarizer, request: SummaryRequest, meter: TokenMeter
    ) -> None:
        self.summarizer, self.request, self.meter = summarizer, request, meter

    async def summarize(self, leading: Sequence[Item]) -> Summary:
        text = await self.summarizer.summarize(self.request)
        return Summary(text, self.meter.estimate_message(Message("user", (TextBlock(text),))))


def _check_items(items: Sequence[Item], original: Original) -> None:
    if tuple(int(item.id) for item in items) != original.seqs:
        raise ConfigError("internal: the plan's items are not the span being archived")
