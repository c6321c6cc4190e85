"""The I/O a compaction asks for, as values: one core, driven sync or async.

The region transaction and the decision loop are generators that yield these
steps and receive each step's result (or its exception, thrown in). ``Compactor``
performs them with a sync ledger, archive and summarizer, ``AsyncCompactor``
with async ones, so both run exactly the same decisions in the same order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from ctxbudget.archives import Original
from ctxbudget.compaction.config import CompactionConfig
from ctxbudget.content import Message
from ctxbudget.kernel import Item, Plan
from ctxbudget.summaries import SummaryRequest

__all__ = [
    "AppendEvents",
    "ArchiveAndSummarize",
    "Context",
    "Measure",
    "ReadEvents",
    "Step",
    "Steps",
    "drive",
    "drive_async",
]


@dataclass(frozen=True, slots=True)
class Measure:
    """Measure the session now (result: ``Measurement``)."""


@dataclass(frozen=True, slots=True)
class ReadEvents:
    """Read events ``start`` up to ``stop`` (result: a sequence of ``Event``)."""

    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class AppendEvents:
    """Append a batch in one transaction at exactly ``expected_revision`` (result: seqs;
    ``ConflictError`` if the session moved on). ``None``: wherever the log is."""

    events: tuple[Mapping[str, Any], ...]
    expected_revision: int | None


@dataclass(frozen=True, slots=True)
class ArchiveAndSummarize:
    """Run the kernel's ``apply`` over this plan: archive ``original`` first, then ask
    for the summary (result: ``ApplyResult``)."""

    plan: Plan
    leading: tuple[Item, ...]
    tail: tuple[Item, ...]
    original: Original
    request: SummaryRequest


Step: TypeAlias = Measure | ReadEvents | AppendEvents | ArchiveAndSummarize
Steps: TypeAlias = Generator[Step, Any, Any]


@dataclass(frozen=True, slots=True)
class Context:
    """What the core needs besides I/O: settings, the window, pricing, ids, labels."""

    config: CompactionConfig
    context_window: int
    retain_tokens: int
    framing_tokens: int
    price: Callable[[Message], int]
    new_id: Callable[[], str]
    summarizer_labels: Mapping[str, str]


def drive(steps: Steps, perform: Callable[[Step], Any]) -> Any:
    """Run ``steps`` to completion with a sync ``perform``; its return value."""
    value: Any = None
    error: Exception | None = None
    while True:
        try:
            step = steps.throw(error) if error is not None else steps.send(value)
        except StopIteration as done:
            return done.value
        try:
            value, error = perform(step), None
        except Exception as exc:
            value, error = None, exc


async def drive_async(steps: Steps, perform: Callable[[Step], Awaitable[Any]]) -> Any:
    """``drive`` with an async ``perform``."""
    value: Any = None
    error: Exception | None = None
    while True:
        try:
            step = steps.throw(error) if error is not None else steps.send(value)
        except StopIteration as done:
            return done.value
        try:
            value, error = await perform(step), None
        except Exception as exc:
            value, error = None, exc
