"""Carrying out a compaction plan: archive the originals, then summarize, then splice.

The order is fixed. Summaries are lossy; the archive is the only way back when a
summary turns out to have dropped something, so the originals land first. If the
summarizer then fails, the originals are safe and the summary can simply be
retried; the reverse order could lose both.

Every check runs before the archive is called: a refused ``apply`` has no side
effects. The kernel orchestrates; producing the summary and storing originals are
capabilities the host plugs in (``ItemSummarizer``, ``ItemArchive``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NewType, Protocol, runtime_checkable

from ctxbudget.errors import (
    ArchiveFailedError,
    EmptyPlanError,
    NotWiredError,
    PlanInconsistentError,
    PlanMismatchError,
    SummarizeFailedError,
)
from ctxbudget.kernel.plan import Plan

__all__ = [
    "SUMMARY_ITEM_ID",
    "ApplyResult",
    "AsyncItemArchive",
    "AsyncItemSummarizer",
    "Item",
    "ItemArchive",
    "ItemSummarizer",
    "Locator",
    "Summary",
    "apply",
    "apply_async",
    "net_removed_tokens",
]

Locator = NewType("Locator", str)
"""Where an archive put the originals; its format is the archive's own business."""

SUMMARY_ITEM_ID: Final = "summary"
"""The id of the summary item in a compacted conversation."""


@dataclass(frozen=True, slots=True)
class Item:
    """A reference to one conversation item: an id the host can resolve, and its size.

    The kernel never carries content; choosing where content lives is the host's call.
    """

    id: str
    tokens: int


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary and its token count, as the host measured it (taken on trust)."""

    text: str
    tokens: int


@runtime_checkable
class ItemArchive(Protocol):
    """Stores the originals of item references before they are summarized away.

    Item-level: it receives ids and sizes, never content (the host resolves ids).
    Content-level archives are ``ctxbudget.archives.Archive``; adapt one to this
    protocol to use it with ``apply``.
    """

    def archive(self, items: Sequence[Item]) -> Locator:
        """Store ``items`` durably and return a locator to get them back."""
        ...


@runtime_checkable
class ItemSummarizer(Protocol):
    """Turns the leading item references into one summary.

    Item-level, like ``ItemArchive``; the content-level summarizer is
    ``ctxbudget.summaries.Summarizer``.
    """

    def summarize(self, leading: Sequence[Item]) -> Summary:
        """Summarize ``leading`` (already checked against the plan)."""
        ...


@runtime_checkable
class AsyncItemArchive(Protocol):
    """``ItemArchive`` for async hosts."""

    async def archive(self, items: Sequence[Item]) -> Locator:
        """Store ``items`` durably and return a locator to get them back."""
        ...


@runtime_checkable
class AsyncItemSummarizer(Protocol):
    """``ItemSummarizer`` for async hosts."""

    async def summarize(self, leading: Sequence[Item]) -> Summary:
        """Summarize ``leading`` (already checked against the plan)."""
        ...


def net_removed_tokens(gross: int, summary_tokens: int) -> int:
    """Tokens a compaction really saved: ``max(0, gross - summary_tokens)``.

    Clamped at 0: a summary longer than its originals saves nothing, and a
    negative figure would make callers add tokens that do not exist.
    """
    return max(0, gross - summary_tokens)


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """A compacted conversation: the summary item followed by the verbatim tail."""

    segment: tuple[Item, ...]
    summary: Summary
    locator: Locator
    gross_removed_tokens: int

    def snapshot_delta(self) -> int:
        """Signed correction to add to a recorded conversation figure.

        Positive when the summary is longer than what it replaced. To shrink a meter
        use ``meter.shrink(CONVERSATION, net_removed_tokens(gross, summary.tokens))``.
        """
        return self.summary.tokens - self.gross_removed_tokens


def apply(
    plan: Plan,
    leading: Sequence[Item],
    tail: Sequence[Item],
    archive: ItemArchive | None,
    summarizer: ItemSummarizer | None,
) -> ApplyResult:
    """Compact: check, archive ``leading``, summarize it, then splice summary + ``tail``.

    Raises ``EmptyPlanError``, ``PlanInconsistentError``, ``PlanMismatchError`` or
    ``NotWiredError`` before anything is archived; ``ArchiveFailedError`` if the
    archive fails; ``SummarizeFailedError`` (carrying the locator) if the summarizer
    fails after the archive succeeded.
    """
    _check(plan, leading, tail, archive, summarizer)
    assert archive is not None
    assert summarizer is not None
    try:
        locator = archive.archive(tuple(leading))
    except Exception as exc:
        raise ArchiveFailedError(exc) from exc
    try:
        summary = summarizer.summarize(tuple(leading))
    except Exception as exc:
        raise SummarizeFailedError(exc, locator) from exc
    return _result(plan, tail, summary, locator)


async def apply_async(
    plan: Plan,
    leading: Sequence[Item],
    tail: Sequence[Item],
    archive: AsyncItemArchive | None,
    summarizer: AsyncItemSummarizer | None,
) -> ApplyResult:
    """``apply`` for async archives and summarizers; same checks, same order."""
    _check(plan, leading, tail, archive, summarizer)
    assert archive is not None
    assert summarizer is not None
    try:
        locator = await archive.archive(tuple(leading))
    except Exception as exc:
        raise ArchiveFailedError(exc) from exc
    try:
        summary = await summarizer.summarize(tuple(leading))
    except Exception as exc:
        raise SummarizeFailedError(exc, locator) from exc
    return _result(plan, tail, summary, locator)


def _check(
    plan: Plan,
    leading: Sequence[Item],
    tail: Sequence[Item],
    archive: object | None,
    summarizer: object | None,
) -> None:
    # A zero-valued plan would pass the count check (0 == 0) and report a success
    # that changed nothing, so emptiness is its own refusal, checked first.
    if plan.summarize_items <= 0 or plan.cutoff <= 0:
        raise EmptyPlanError()
    if plan.cutoff != plan.summarize_items:
        raise PlanInconsistentError(
            f"cutoff {plan.cutoff} != summarize_items {plan.summarize_items}"
        )
    if plan.keep_tail_items < 0 or plan.summarize_items + plan.keep_tail_items != plan.items:
        raise PlanInconsistentError(
            f"summarize_items {plan.summarize_items} + keep_tail_items "
            f"{plan.keep_tail_items} != items {plan.items}"
        )
    if len(leading) != plan.summarize_items:
        raise PlanMismatchError(
            f"{len(leading)} leading items given, the plan summarizes {plan.summarize_items}"
        )
    if len(tail) != plan.keep_tail_items:
        raise PlanMismatchError(
            f"{len(tail)} tail items given, the plan keeps {plan.keep_tail_items}"
        )
    missing = [
        name for name, part in (("archive", archive), ("summarizer", summarizer)) if part is None
    ]
    if missing:
        raise NotWiredError(missing)


def _result(plan: Plan, tail: Sequence[Item], summary: Summary, locator: Locator) -> ApplyResult:
    return ApplyResult(
        segment=(Item(SUMMARY_ITEM_ID, summary.tokens), *tail),
        summary=summary,
        locator=locator,
        gross_removed_tokens=plan.gross_removed_tokens,
    )
