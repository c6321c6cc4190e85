"""A fake for the request path's last extension point, the event sink.

The archive and summarizer the enforcement stages take are the library's one
``Archive`` and ``Summarizer``: their fakes are ``FakeArchive`` and
``FakeSummarizer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxbudget.enforce import BudgetEvent

__all__ = ["RecordingSink"]


@dataclass
class RecordingSink:
    """An event sink that keeps every event, for assertions."""

    events: list[BudgetEvent] = field(default_factory=list)

    def emit(self, event: BudgetEvent) -> None:
        """Keep ``event``."""
        self.events.append(event)

    def names(self) -> list[str]:
        """The names of the events so far, in order."""
        return [event.name for event in self.events]
