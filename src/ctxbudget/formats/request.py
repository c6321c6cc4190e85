"""The internal request model both provider formats parse into.

A request has the kernel's segments: the ``system`` prompt, the ``tools``
declarations, the ``conversation`` (history the model has already answered) and
the ``pending`` turn (what the model is asked to answer now: the last user
message, or the tool results of its last call).

Every turn keeps the provider object it came from. Rendering an untouched turn
copies that object, so an unchanged request renders back to an equal body; an
edited turn is rendered from its blocks over its source, so fields this library
does not model (``cache_control``, ``name``, citations …) survive edits too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ctxbudget.content import Message, TextBlock
from ctxbudget.content.pairing import check_pairs
from ctxbudget.errors import FormatError

__all__ = [
    "FormatName",
    "Request",
    "Turn",
    "check_request_pairs",
    "json_copy",
    "split_pending",
]

FormatName: TypeAlias = Literal["openai", "anthropic", "openai-responses"]
"""``"openai"`` (Chat Completions), ``"anthropic"`` (Messages), ``"openai-responses"``."""

_PENDING_ROLES = frozenset({"user", "tool", "function"})


@dataclass(frozen=True, slots=True)
class Turn:
    """One provider message in the content model, with the provider object it came from.

    ``parts[i]`` is the provider object block ``i`` came from (``None`` for text
    that came as a plain string, or for blocks this library added).
    ``parsed`` is the message as parsed; a stage that edits the turn replaces
    ``message`` only, which is how rendering knows the turn was touched.
    """

    message: Message
    source: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple[Mapping[str, Any] | None, ...] = ()
    parsed: Message | None = None

    @classmethod
    def parsed_from(
        cls, message: Message, source: Mapping[str, Any], parts: Sequence[Mapping[str, Any] | None]
    ) -> Turn:
        """A turn exactly as parsed from ``source``."""
        return cls(message, source, tuple(parts), message)

    @classmethod
    def new_text(cls, role: str, text: str) -> Turn:
        """A turn this library adds (a summary section), rendered as plain text."""
        return cls(Message(role, (TextBlock(text),)), {"role": role, "content": text}, (None,))

    @property
    def untouched(self) -> bool:
        """True when no stage has edited the turn since it was parsed."""
        return self.message is self.parsed

    def edited(self, message: Message) -> Turn:
        """The same turn carrying ``message``; rendering will rebuild it over its source."""
        # Direct construction: dataclasses.replace() costs several times more, and
        # a stage may edit hundreds of turns per request.
        return Turn(message, self.source, self.parts, self.parsed)

    def part(self, index: int) -> Mapping[str, Any] | None:
        """The provider object of block ``index``, if it came from one."""
        return self.parts[index] if index < len(self.parts) else None

    def block_untouched(self, index: int) -> bool:
        """True when block ``index`` is the very block that was parsed."""
        parsed = self.parsed
        return (
            parsed is not None
            and index < len(parsed.content)
            and self.message.content[index] is parsed.content[index]
        )


@dataclass(frozen=True, slots=True)
class Request:
    """A provider request in the kernel's segments; ``body`` is the body it was parsed from.

    Top-level keys other than the messages, ``system`` and ``tools`` are read from
    ``body`` when rendering, so they come back as they were, in their order.
    """

    format: FormatName
    system: tuple[Turn, ...]
    tools: tuple[Mapping[str, Any], ...]
    conversation: tuple[Turn, ...]
    pending: tuple[Turn, ...]
    body: Mapping[str, Any]

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Conversation and pending turns, in order: the messages list without the system."""
        return self.conversation + self.pending

    def with_system(self, system: tuple[Turn, ...]) -> Request:
        """The same request with another system prompt."""
        return Request(self.format, system, self.tools, self.conversation, self.pending, self.body)

    def with_conversation(self, conversation: tuple[Turn, ...]) -> Request:
        """The same request with other history turns."""
        return Request(self.format, self.system, self.tools, conversation, self.pending, self.body)

    def messages(self) -> tuple[Message, ...]:
        """Every message the model sees after the system prompt."""
        return tuple(t.message for t in self.turns)


def split_pending(turns: Sequence[Turn]) -> tuple[tuple[Turn, ...], tuple[Turn, ...]]:
    """Split turns into (conversation, pending).

    Pending is the last run of user/tool messages plus anything after it (an
    assistant prefill): what the model has not answered yet. It is never trimmed.
    """
    last = max((i for i, t in enumerate(turns) if t.message.role in _PENDING_ROLES), default=-1)
    if last < 0:
        return tuple(turns), ()
    start = last
    while start > 0 and turns[start - 1].message.role in _PENDING_ROLES:
        start -= 1
    return tuple(turns[:start]), tuple(turns[start:])


def check_request_pairs(messages: Sequence[Message], format_label: str) -> None:
    """Raise ``FormatError`` when a tool result has no call or a call has no result."""
    report = check_pairs(messages)
    if report.orphan_results:
        raise FormatError(
            f"{format_label} request: tool result(s) {list(report.orphan_results)} answer no "
            "earlier tool call; send each tool result after the assistant message that made "
            "the call, or drop the result"
        )
    if report.unanswered_calls:
        raise FormatError(
            f"{format_label} request: tool call(s) {list(report.unanswered_calls)} have no "
            "tool result; add a result for each call after the assistant message, or drop "
            "the call"
        )


def json_copy(value: Any) -> Any:
    """A copy of the JSON containers in ``value`` (dicts and lists); leaves are shared.

    Strings and numbers are immutable, so sharing them is safe and keeps the copy
    cheap; containers are copied so a caller editing our output never edits its input.
    """
    kind = type(value)
    # Exact type checks first: this runs for every value of every rendered message,
    # and isinstance() against the Mapping ABC costs several times more.
    if kind is str or value is None or kind is int or kind is float or kind is bool:
        return value
    if kind is dict:
        return {key: json_copy(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [json_copy(item) for item in value]
    if isinstance(value, Mapping):
        return {key: json_copy(item) for key, item in value.items()}
    return value
