"""Every error ctxbudget raises, in one tree.

Each error has a stable machine-readable ``code`` and an English message that
says what went wrong and what to do about it (class, then ``code``)::

    CtxBudgetError                      ctxbudget_error
    ├── ConfigError                     config_invalid
    │   ├── UnknownCounterError         unknown_counter
    │   ├── ProfileError                profile_invalid
    │   ├── InputUnreadableError        input_unreadable    (a file or stream that cannot be read)
    │   ├── OutputUnwritableError       output_unwritable   (a file that cannot be written)
    │   ├── MissingExtraError           missing_extra       (also an ImportError)
    │   ├── UnknownModelError           unknown_model
    │   └── ModelFactMissingError       model_fact_missing  (a known model, a fact not known)
    ├── PlanRefusedError                plan_refused
    │   ├── TooFewItemsError            too_few_items
    │   ├── CutoffTooLowError           cutoff_too_low
    │   └── TooFewToSummarizeError      too_few_to_summarize
    ├── ApplyRefusedError               apply_refused
    │   ├── EmptyPlanError              empty_plan
    │   ├── PlanInconsistentError       plan_inconsistent
    │   ├── PlanMismatchError           plan_mismatch
    │   └── NotWiredError               not_wired
    ├── CompactionFailedError           compaction_failed
    │   ├── ArchiveFailedError          archive_failed
    │   ├── SummarizeFailedError        summarize_failed    (carries the archive locator)
    │   ├── CompactionConflictError     compaction_conflict (the surface changed meanwhile)
    │   └── SummaryNotSmallerError      summary_not_smaller
    ├── CompactionRangeError            compaction_range_invalid (nothing was appended)
    ├── SummarizerError                 summarizer_failed   (no usable summary; ``reason``)
    ├── ArchiveError                    archive_error
    │   └── LocatorError                locator_invalid     (malformed, unknown or foreign)
    ├── LedgerError                     ledger_error
    │   ├── ConflictError               conflict
    │   ├── InvalidEventError           invalid_event
    │   ├── EventTooLargeError          event_too_large
    │   ├── InvalidSessionIdError       invalid_session_id
    │   ├── CorruptEventError           corrupt_event
    │   └── StoreError                  store_error
    │       └── StoreUnavailableError   store_unavailable
    ├── ReplayError                     replay_error        (a logged event the meter cannot fold)
    ├── FormatError                     format_error        (a request body that is not valid)
    ├── TranscriptError                 transcript_invalid  (an agent transcript it cannot read)
    ├── BudgetExceeded                  budget_exceeded     (nothing can make the prompt fit)
    └── ServerError                     server_error        (the HTTP service and proxy)
        ├── UnauthorizedError           unauthorized
        ├── RequestTooLargeError        request_too_large
        ├── SessionNotFoundError        session_not_found
        ├── RouteNotConfiguredError     route_not_configured
        └── UpstreamError               upstream_error      (the provider behind the proxy)
            ├── UpstreamUnavailableError upstream_unavailable
            ├── UpstreamTimeoutError    upstream_timeout
            └── UpstreamBadResponseError upstream_bad_response

Catch ``CtxBudgetError`` to handle all of them; match on ``code`` in logs and
telemetry, since class names may gain intermediate bases over time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

__all__ = [
    "ApplyRefusedError",
    "ArchiveError",
    "ArchiveFailedError",
    "BudgetExceeded",
    "CompactionConflictError",
    "CompactionFailedError",
    "CompactionRangeError",
    "ConfigError",
    "ConflictError",
    "CorruptEventError",
    "CtxBudgetError",
    "CutoffTooLowError",
    "EmptyPlanError",
    "EventTooLargeError",
    "FormatError",
    "InputUnreadableError",
    "InvalidEventError",
    "InvalidSessionIdError",
    "LedgerError",
    "LocatorError",
    "MissingExtraError",
    "ModelFactMissingError",
    "NotWiredError",
    "OutputUnwritableError",
    "PlanInconsistentError",
    "PlanMismatchError",
    "PlanRefusedError",
    "ProfileError",
    "ReplayError",
    "RequestTooLargeError",
    "RouteNotConfiguredError",
    "ServerError",
    "SessionNotFoundError",
    "StoreError",
    "StoreUnavailableError",
    "SummarizeFailedError",
    "SummarizerError",
    "SummaryNotSmallerError",
    "TooFewItemsError",
    "TooFewToSummarizeError",
    "TranscriptError",
    "UnauthorizedError",
    "UnknownCounterError",
    "UnknownModelError",
    "UpstreamBadResponseError",
    "UpstreamError",
    "UpstreamTimeoutError",
    "UpstreamUnavailableError",
]


class CtxBudgetError(Exception):
    """Root of every error raised by ctxbudget."""

    code: ClassVar[str] = "ctxbudget_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# -- configuration --------------------------------------------------------------------------


class ConfigError(CtxBudgetError):
    """A setting, file or argument that cannot be used as given."""

    code = "config_invalid"


class UnknownCounterError(ConfigError):
    """A token counter spec that names no known counter."""

    code = "unknown_counter"


class ProfileError(ConfigError):
    """A calibration profile that is missing, malformed or cannot be fitted."""

    code = "profile_invalid"


class InputUnreadableError(ConfigError):
    """A file or stream named as input that cannot be read or decoded; names it."""

    code = "input_unreadable"


class OutputUnwritableError(ConfigError):
    """A file named as output that cannot be written; names it and says why."""

    code = "output_unwritable"


class MissingExtraError(ConfigError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    code = "missing_extra"

    def __init__(self, *, feature: str, extra: str, module: str) -> None:
        self.feature = feature
        self.extra = extra
        self.module = module
        super().__init__(
            f"{feature} needs the optional module {module!r}, which is not installed; "
            f"install it with: pip install 'ctxbudget[{extra}]'"
        )


class UnknownModelError(ConfigError):
    """A model name the model database does not know; nothing is guessed for it."""

    code = "unknown_model"

    def __init__(self, model: str, *, source: str, suggestions: Sequence[str] = ()) -> None:
        self.model = model
        self.suggestions = tuple(suggestions)
        hint = f" (did you mean {', '.join(map(repr, self.suggestions))}?)" if suggestions else ""
        super().__init__(
            f"unknown model {model!r}: {source} has no context window or prices for it{hint}; "
            "check the spelling, upgrade genai-prices for newer models, or give the window "
            "and counter yourself (e.g. --window and --counter)"
        )


class ModelFactMissingError(ConfigError):
    """A known model whose database entry lacks a figure a caller asked for."""

    code = "model_fact_missing"

    def __init__(self, model: str, fact: str, remedy: str) -> None:
        self.model = model
        self.fact = fact
        super().__init__(f"the model database does not give the {fact} of {model!r}; {remedy}")


# -- compaction planning (kernel) ------------------------------------------------------------


class PlanRefusedError(CtxBudgetError):
    """``build_plan`` refused: compacting here would do nothing useful."""

    code = "plan_refused"


class TooFewItemsError(PlanRefusedError):
    """The conversation has fewer items than a compaction needs."""

    code = "too_few_items"

    def __init__(self, items: int, minimum: int) -> None:
        self.items = items
        self.minimum = minimum
        super().__init__(
            f"compaction refused: {items} items is below the {minimum} a compaction needs; "
            "wait until the conversation has grown before compacting"
        )


class CutoffTooLowError(PlanRefusedError):
    """The kept tail would swallow the whole conversation."""

    code = "cutoff_too_low"

    def __init__(self, items: int, keep_tail: int) -> None:
        self.items = items
        self.keep_tail = keep_tail
        super().__init__(
            f"compaction refused: keeping a tail of {keep_tail} items out of {items} "
            "leaves nothing to summarize; keep a shorter tail"
        )


class TooFewToSummarizeError(PlanRefusedError):
    """Fewer items would be summarized than a summary is worth."""

    code = "too_few_to_summarize"

    def __init__(self, summarize_items: int, minimum: int) -> None:
        self.summarize_items = summarize_items
        self.minimum = minimum
        super().__init__(
            f"compaction refused: only {summarize_items} item(s) would be summarized, "
            f"fewer than the {minimum} a summary is worth; keep a shorter tail or wait a turn"
        )


# -- compaction apply (kernel) ---------------------------------------------------------------


class ApplyRefusedError(CtxBudgetError):
    """``apply`` refused before any side effect: nothing was archived or summarized."""

    code = "apply_refused"


class EmptyPlanError(ApplyRefusedError):
    """The plan names nothing to summarize (an empty or zero-valued plan)."""

    code = "empty_plan"

    def __init__(self) -> None:
        super().__init__(
            "compaction refused: the plan names no items to summarize; "
            "build one with build_plan() and handle its refusal instead of applying an empty plan"
        )


class PlanInconsistentError(ApplyRefusedError):
    """The plan's fields contradict each other."""

    code = "plan_inconsistent"

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"compaction refused: the plan contradicts itself ({detail}); "
            "use the plan build_plan() returned, unmodified"
        )


class PlanMismatchError(ApplyRefusedError):
    """The items passed do not match the plan (the plan is stale)."""

    code = "plan_mismatch"

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"compaction refused: the items do not match the plan ({detail}); "
            "the conversation changed since the plan was built, build a new plan"
        )


class NotWiredError(ApplyRefusedError):
    """The archive or the summarizer is missing."""

    code = "not_wired"

    def __init__(self, missing: Sequence[str]) -> None:
        self.missing = tuple(missing)
        super().__init__(
            f"compaction refused: no {' and no '.join(self.missing)} was given; "
            "pass both an archive and a summarizer (see ctxbudget.testing for fakes)"
        )


class CompactionFailedError(CtxBudgetError):
    """The archive or the summarizer failed while a compaction ran."""

    code = "compaction_failed"


class ArchiveFailedError(CompactionFailedError):
    """The archive failed; nothing was summarized and nothing was lost."""

    code = "archive_failed"

    def __init__(self, cause: BaseException) -> None:
        super().__init__(
            f"compaction failed: the archive raised {type(cause).__name__}: {cause}; "
            "nothing was summarized, the conversation is unchanged, try again"
        )


class SummarizeFailedError(CompactionFailedError):
    """The summarizer failed after the originals were archived; ``locator`` finds them."""

    code = "summarize_failed"

    def __init__(self, cause: BaseException, locator: str) -> None:
        self.locator = locator
        super().__init__(
            f"compaction failed: the summarizer raised {type(cause).__name__}: {cause}; "
            f"the originals are archived at {locator!r} and the conversation is unchanged, "
            "retry the summary"
        )


class CompactionConflictError(CompactionFailedError):
    """The session's surface changed while a compaction ran; nothing was replaced."""

    code = "compaction_conflict"

    def __init__(self, session_id: str, detail: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"compaction of session {session_id!r} did not land: {detail}; nothing was "
            "replaced (another writer got there first): measure again and retry if still needed"
        )


class SummaryNotSmallerError(CompactionFailedError):
    """The summary would not take fewer tokens than the span it replaces."""

    code = "summary_not_smaller"

    def __init__(self, summary_tokens: int, shadowed_tokens: int) -> None:
        self.summary_tokens = summary_tokens
        self.shadowed_tokens = shadowed_tokens
        super().__init__(
            f"summary is not smaller than what it replaces ({summary_tokens} estimated "
            f"tokens with its framing >= {shadowed_tokens}); nothing was replaced: compact a "
            "longer span or give the summarizer a smaller max_tokens"
        )


class CompactionRangeError(CtxBudgetError):
    """A span that cannot be compacted as given; nothing was appended."""

    code = "compaction_range_invalid"


class SummarizerError(CtxBudgetError):
    """The summarizer produced no usable summary.

    ``reason``: ``"http_status"``, ``"timeout"``, ``"unreachable"``, ``"truncated"``,
    ``"empty"``, ``"bad_response"`` or ``"too_large"``.
    """

    code = "summarizer_failed"

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(f"summarizer failed ({reason}): {detail}")


class ArchiveError(CtxBudgetError):
    """An archive cannot store or give back an original."""

    code = "archive_error"


class LocatorError(ArchiveError):
    """A locator that is malformed, unknown to this archive, or points outside it."""

    code = "locator_invalid"


# -- ledger ----------------------------------------------------------------------------------


class LedgerError(CtxBudgetError):
    """A problem reading or writing the session ledger."""

    code = "ledger_error"


class ConflictError(LedgerError):
    """Another writer appended first: the expected revision is stale. Nothing was written."""

    code = "conflict"

    def __init__(self, session_id: str, expected: int, actual: int) -> None:
        self.session_id = session_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"session {session_id!r} is at revision {actual}, not the expected {expected}; "
            "nothing was written: re-read the session and retry the append"
        )


class InvalidEventError(LedgerError):
    """An event that breaks the ledger's append rules. Nothing was written.

    ``rule`` names the broken rule (a stable id listed in ``docs/events.md``, e.g.
    ``"step-open"``); the message says what to send instead.
    """

    code = "invalid_event"

    def __init__(self, message: str, rule: str = "event-shape") -> None:
        self.rule = rule
        super().__init__(f"{message} [rule: {rule}]")


class EventTooLargeError(InvalidEventError):
    """One event's payload is over the size limit. Nothing was written."""

    code = "event_too_large"

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"event is {size} bytes of JSON, over the limit of {limit}; nothing was written: "
            "archive the large content elsewhere and log a reference to it",
            rule="event-size",
        )


class InvalidSessionIdError(LedgerError):
    """A session id that cannot be stored."""

    code = "invalid_session_id"


class CorruptEventError(LedgerError):
    """A stored event that cannot be decoded; names the session and seq."""

    code = "corrupt_event"

    def __init__(self, session_id: str, seq: int, detail: str) -> None:
        self.session_id = session_id
        self.seq = seq
        super().__init__(
            f"stored event {seq} of session {session_id!r} is corrupt ({detail}); "
            "restore the store from a backup or export the events before it"
        )


class StoreError(LedgerError):
    """The storage backend failed."""

    code = "store_error"


class StoreUnavailableError(StoreError):
    """The storage backend cannot be reached or opened."""

    code = "store_unavailable"


# -- meter, formats, enforcement -------------------------------------------------------------


class ReplayError(CtxBudgetError):
    """A logged event the replay meter cannot fold; it stays unread until fixed."""

    code = "replay_error"

    def __init__(self, session_id: str, seq: int, detail: str) -> None:
        self.session_id = session_id
        self.seq = seq
        self.detail = detail
        super().__init__(f"token meter: session {session_id!r}: {detail}")


class FormatError(CtxBudgetError):
    """A provider request body that is not valid for its format."""

    code = "format_error"


class TranscriptError(CtxBudgetError):
    """An agent transcript that cannot be read; ``path`` and ``line`` say where
    (``line`` is 1-based, ``None`` when the problem is the file as a whole)."""

    code = "transcript_invalid"

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {problem}")


class BudgetExceeded(CtxBudgetError):
    """Nothing can make the prompt fit the budget; the request must not be sent as is."""

    code = "budget_exceeded"

    def __init__(
        self,
        *,
        estimated_tokens: int,
        budget_tokens: int,
        stages_tried: Sequence[str],
        protected_tokens: int,
        largest_segment: str,
        largest_segment_tokens: int = 0,
    ) -> None:
        self.estimated_tokens = estimated_tokens
        self.budget_tokens = budget_tokens
        self.stages_tried = tuple(stages_tried)
        self.protected_tokens = protected_tokens
        self.largest_segment = largest_segment
        self.largest_segment_tokens = largest_segment_tokens
        tried = ", ".join(self.stages_tried) or "none"
        remedies = "shorten it or raise max_input_tokens"
        if "summarize" not in self.stages_tried:
            remedies = "shorten it, raise max_input_tokens, or give a summarizer"
        super().__init__(
            f"prompt needs about {estimated_tokens} tokens, over the budget of {budget_tokens} "
            f"(stages tried: {tried}; {protected_tokens} tokens are protected); the largest "
            f"part is the {largest_segment} segment with about {largest_segment_tokens} tokens: "
            f"{remedies}"
        )


# -- the HTTP service and the proxy ----------------------------------------------------------


class ServerError(CtxBudgetError):
    """A request the HTTP service or the proxy cannot serve."""

    code = "server_error"


class UnauthorizedError(ServerError):
    """A request without the token the service was started with."""

    code = "unauthorized"


class RequestTooLargeError(ServerError):
    """A request body over the service's size limit."""

    code = "request_too_large"

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        super().__init__(
            f"the request body is over the limit of {limit_bytes} bytes; send a smaller "
            "body or start the server with a larger max_body_bytes"
        )


class SessionNotFoundError(ServerError):
    """A session id with no events in the ledger."""

    code = "session_not_found"

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"session {session_id!r} has no events; check the id (GET /sessions lists them)"
        )


class RouteNotConfiguredError(ServerError):
    """A proxy route whose upstream (or request format) this server does not have."""

    code = "route_not_configured"


class UpstreamError(ServerError):
    """The provider behind the proxy failed; nothing was recorded for the call."""

    code = "upstream_error"


class UpstreamUnavailableError(UpstreamError):
    """The upstream refused the connection or could not be reached."""

    code = "upstream_unavailable"


class UpstreamTimeoutError(UpstreamError):
    """The upstream did not answer in time."""

    code = "upstream_timeout"


class UpstreamBadResponseError(UpstreamError):
    """The upstream answered with a server error or a body that is not valid JSON."""

    code = "upstream_bad_response"
