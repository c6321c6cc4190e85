"""The per-session replay fold: one pure transition per logged event.

``fold_event(state, event, pricing)`` returns the next state or raises ``FoldError``;
it never changes ``state``, so a bad event leaves the fold exactly where it was.
State is immutable and shares structure with earlier states (``NodeVector``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol, TypeAlias

from ctxbudget.content import Message, ToolResultBlock, blocks_from_json
from ctxbudget.errors import ConfigError
from ctxbudget.ledger import SURFACE_TYPES, Event, ReplaceOp
from ctxbudget.ledger.surface import SpanError, resolve_span
from ctxbudget.ledger.vocabulary import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    REQUEST_HEADER,
    STEP_END,
    STEP_START,
    TOOL_RESULT,
)
from ctxbudget.meter.anchor_rule import AnchorRule, UsageVerdict, usage_trusted
from ctxbudget.meter.assembler import assemble_blocks
from ctxbudget.meter.headers import RequestHeader, canonical_header, headers_equal
from ctxbudget.meter.measurement import Baseline, Usage
from ctxbudget.meter.nodes import Node, NodeVector

__all__ = [
    "CALIBRATION_PRIOR_TOKENS",
    "MAX_ANSWER_RATIO",
    "MAX_DELTA_SCALE",
    "MAX_ENVELOPE_ANCHORS",
    "MIN_CALIBRATION_TOKENS",
    "MIN_DELTA_SCALE",
    "Anchor",
    "FoldError",
    "FoldState",
    "OpenStep",
    "PricedHeader",
    "Pricing",
    "UsageGrowth",
    "anchor_header",
    "fold_event",
]


EMPTY_NODES: Final = NodeVector()


class FoldError(Exception):
    """An event the fold cannot take; the message names its seq and the broken rule
    (an id of ``ledger.vocabulary.APPEND_RULES``: the rule the ledger checks at append)."""

    def __init__(self, message: str, rule: str) -> None:
        self.rule = rule
        super().__init__(f"{message} [rule: {rule}]")


class Pricing(Protocol):
    """How the fold prices messages and headers (the meter's counter and overheads),
    and which usage it lets anchor (``anchor_rule``)."""

    @property
    def anchor_rule(self) -> AnchorRule: ...

    def message(self, message: Message) -> int: ...

    def header(self, header: RequestHeader) -> int: ...


@dataclass(frozen=True, slots=True)
class PricedHeader:
    """A canonical header and its estimated price, priced once when folded."""

    header: RequestHeader
    tokens: int


@dataclass(frozen=True, slots=True)
class Anchor:
    """The latest successful call: its envelope, the surface it saw, its baseline, and
    what the anchor rule made of its usage."""

    header: PricedHeader | None
    surface_tokens: int
    baseline: Baseline
    verdict: UsageVerdict = "no-usage"


# A persistent list of the open step's chunks, newest first: O(1) to extend and share.
ChunkList: TypeAlias = "tuple[Event, ChunkList] | None"


@dataclass(frozen=True, slots=True)
class OpenStep:
    """A ``step/start`` without its ``step/end`` yet."""

    turn: int
    step: int
    surface_tokens: int
    chunks: ChunkList = None

    def chunk(self, seq: int) -> Event | None:
        """The chunk event ``seq`` logged in this step, if any."""
        link = self.chunks
        while link is not None:
            if link[0].seq == seq:
                return link[0]
            link = link[1]
        return None


@dataclass(frozen=True, slots=True)
class UsageGrowth:
    """What the provider counted for this session's text, against what the counter
    priced for it: the session's own correction for the counter's bias (a tokenizer
    nobody ships, a script it packs densely, tool output denser than prose), learned
    from usage and never from guesses. Two kinds of evidence:

    - growth (``actual``, ``priced``): between two calls with the same envelope the
      provider's prompt grew by ``new prompt - previous anchor``; the counter priced
      the same surface change at ``surface at the step start - surface at the
      previous anchor``. It covers what deltas are made of (tool output, user text)
      but also what the log never shows (reminders an agent injects), so it counts
      only once ``MIN_CALIBRATION_TOKENS`` of it have been seen;
    - answers (``answered_actual``, ``answered_priced``): a call that answered in
      plain text (no tool calls, no reasoning) reported ``output_tokens`` for exactly
      the text the counter priced: clean evidence of the session's language, weighed
      from the first answer against a prior of ``CALIBRATION_PRIOR_TOKENS`` at 1.
    """

    actual: int = 0
    priced: int = 0
    answered_actual: int = 0
    answered_priced: int = 0

    def scale(self) -> float:
        """The factor for priced deltas, within [MIN_DELTA_SCALE, MAX_DELTA_SCALE]:
        all evidence once there is enough growth, else the answers against the prior
        (1.0 with no evidence at all)."""
        if self.priced >= MIN_CALIBRATION_TOKENS:
            ratio = (self.actual + self.answered_actual) / (self.priced + self.answered_priced)
        else:
            prior = CALIBRATION_PRIOR_TOKENS
            ratio = (self.answered_actual + prior) / (self.answered_priced + prior)
        return min(MAX_DELTA_SCALE, max(MIN_DELTA_SCALE, ratio))

    def observed(self, actual: int, priced: int) -> UsageGrowth:
        """The evidence after one more pair of anchored calls."""
        return replace(self, actual=self.actual + actual, priced=self.priced + priced)

    def answered(self, actual: int, priced: int) -> UsageGrowth:
        """The evidence after one more plain-text answer."""
        return replace(
            self,
            answered_actual=self.answered_actual + actual,
            answered_priced=self.answered_priced + priced,
        )


MIN_CALIBRATION_TOKENS: Final = 5_000
"""Priced growth a session needs before its growth rescales the priced delta."""
MAX_ANSWER_RATIO: Final = 1.5
"""Reported over priced output beyond which (or below whose inverse) an answer is not
evidence of the tokenizer."""
CALIBRATION_PRIOR_TOKENS: Final = 300
"""The weight, in priced tokens, of the prior that the counter is right (ratio 1)
against which plain-text answers are weighed."""
MIN_DELTA_SCALE: Final = 0.5
MAX_DELTA_SCALE: Final = 2.0
MAX_ENVELOPE_ANCHORS: Final = 4
"""How many envelopes' latest anchors a fold keeps (the current one included)."""


@dataclass(frozen=True, slots=True)
class FoldState:
    """Everything the meter knows about a session after ``consumed`` events."""

    consumed: int = 0
    header: PricedHeader | None = None
    nodes: NodeVector = EMPTY_NODES
    surface_tokens: int = 0
    step: OpenStep | None = None
    anchor: Anchor | None = None
    growth: UsageGrowth = UsageGrowth()
    # The latest anchor of each other envelope seen lately, newest first (at most
    # MAX_ENVELOPE_ANCHORS - 1): a session that switches models and back can anchor
    # on its own earlier usage again (docs/meter.md, "Envelopes").
    other_anchors: tuple[Anchor, ...] = ()


Lookup = Callable[[int], Event | None]
"""Reads an earlier event of the session by seq (for provenance outside the open step)."""


def fold_event(state: FoldState, event: Event, pricing: Pricing, lookup: Lookup) -> FoldState:
    """The state after ``event``; ``FoldError`` if the event cannot be folded."""
    if event.seq != state.consumed:
        raise FoldError(
            f"expected seq {state.consumed} next, the log gave seq {event.seq}", "seq-order"
        )
    try:
        return _transition(state, event, pricing, lookup)
    except FoldError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, ConfigError) as exc:
        raise FoldError(
            f"{event.type} at seq {event.seq} is malformed ({exc!r})", "field-type"
        ) from None


def _on_header(state: FoldState, event: Event, pricing: Pricing) -> FoldState:
    canonical = canonical_header(event.data["header"])
    return replace(state, header=PricedHeader(canonical, pricing.header(canonical)))


def _on_step_start(state: FoldState, event: Event, pricing: Pricing) -> FoldState:
    step, data = state.step, event.data
    if step is not None:
        raise FoldError(
            f"step/start at seq {event.seq} arrived before turn {step.turn}/step {step.step} ended",
            "step-open",
        )
    return replace(
        state, step=OpenStep(_int(data, "turn"), _int(data, "step"), state.surface_tokens)
    )


def _on_step_end(state: FoldState, event: Event, pricing: Pricing) -> FoldState:
    if not _matches(state.step, event.data):
        # An aborted step/end with no step open is the documented crash recovery: a no-op.
        if state.step is None and event.data.get("aborted") is True:
            return state
        raise FoldError(
            f"step/end at seq {event.seq} has no matching step/start boundary", "step-end"
        )
    return replace(state, step=None)


def _on_chunk(state: FoldState, event: Event, pricing: Pricing) -> FoldState:
    step = state.step
    if step is None:
        return state
    return replace(state, step=replace(step, chunks=(event, step.chunks)))


_BOUNDARY_FOLDS: Final[Mapping[str, Callable[[FoldState, Event, Pricing], FoldState]]] = {
    REQUEST_HEADER.type: _on_header,
    STEP_START.type: _on_step_start,
    STEP_END.type: _on_step_end,
    ASSISTANT_CHUNK.type: _on_chunk,
}
"""The non-surface event types the fold reads (keys from the ledger's vocabulary);
every other type only advances the cursor, and every surface type is priced."""


def _transition(state: FoldState, event: Event, pricing: Pricing, lookup: Lookup) -> FoldState:
    boundary = _BOUNDARY_FOLDS.get(event.type)
    after = replace(state, consumed=event.seq + 1)
    if boundary is not None:
        after = boundary(after, event, pricing)
    if event.type in SURFACE_TYPES and event.surface_op is not None:
        return _fold_surface(after, event, pricing, lookup)
    return after


def _fold_surface(state: FoldState, event: Event, pricing: Pricing, lookup: Lookup) -> FoldState:
    # The step check comes first: an assistant message outside its step is the error to
    # report even when its replace range is bad too.
    step = _assistant_step(state, event) if event.type == ASSISTANT_MESSAGE.type else None
    price = _price_event(event, pricing)
    nodes, surface_tokens = _apply_op(state, event, price)
    if step is None:
        return replace(state, nodes=nodes, surface_tokens=surface_tokens)
    anchor = _anchor(state.header, step, event, price, pricing, lookup)
    previous = (state.anchor, *state.other_anchors)
    same = next((a for a in previous if a is not None and _same_envelope(a, anchor)), None)
    others = tuple(a for a in previous if a is not None and a is not same)
    return replace(
        state,
        nodes=nodes,
        surface_tokens=surface_tokens,
        anchor=anchor,
        growth=_answered(_grown(state.growth, same, anchor, step), anchor, step, event),
        other_anchors=others[: MAX_ENVELOPE_ANCHORS - 1],
    )


def anchor_header(anchor: Anchor) -> RequestHeader | None:
    """The envelope ``anchor`` was made in."""
    return anchor.header.header if anchor.header else None


def _same_envelope(a: Anchor, b: Anchor) -> bool:
    return a.header is b.header or headers_equal(anchor_header(a), anchor_header(b))


def _grown(
    growth: UsageGrowth, previous: Anchor | None, anchor: Anchor, step: OpenStep
) -> UsageGrowth:
    """Record how the prompt grew since the previous call, when both report usage for
    the same envelope (otherwise the two figures measure different requests)."""
    usage = anchor.baseline.usage
    if previous is None or usage is None or previous.baseline.kind != "usage":
        return growth
    before = previous.header.header if previous.header else None
    now = anchor.header.header if anchor.header else None
    priced = step.surface_tokens - previous.surface_tokens
    if priced <= 0 or not headers_equal(before, now):
        return growth
    return growth.observed(usage.prompt_tokens - previous.baseline.tokens, priced)


def _answered(growth: UsageGrowth, anchor: Anchor, step: OpenStep, event: Event) -> UsageGrowth:
    """Add a plain-text answer's reported output against its priced text. Answers with
    tool calls or reasoning are left out (providers count their framing and hidden
    reasoning apart from the text), and so is a ratio beyond ``MAX_ANSWER_RATIO``
    either way: tokenizers differ by less, so such a count holds more than the text
    (reasoning the log does not show)."""
    usage = anchor.baseline.usage
    content = event.data.get("content") or ()
    if anchor.baseline.kind != "usage" or usage is None or usage.reasoning_tokens:
        return growth
    if not content or any(block.get("type") != "text" for block in content):
        return growth
    priced = anchor.surface_tokens - step.surface_tokens
    if priced <= 0 or not 1 / MAX_ANSWER_RATIO <= usage.output_tokens / priced <= MAX_ANSWER_RATIO:
        return growth
    return growth.answered(usage.output_tokens, priced)


def _assistant_step(state: FoldState, event: Event) -> OpenStep:
    step = state.step
    if step is None or not _matches(step, event.data):
        raise FoldError(
            f"assistant/message at seq {event.seq} has no matching step/start boundary",
            "assistant-step",
        )
    return step


def _apply_op(state: FoldState, event: Event, price: int) -> tuple[NodeVector, int]:
    node, op = Node(event.seq, price), event.surface_op
    if not isinstance(op, ReplaceOp):
        return state.nodes.appended(node), state.surface_tokens + price
    positions = {n.seq: i for i, n in enumerate(state.nodes) if n.seq in (op.start, op.end)}
    try:
        first, last = resolve_span(positions.get, op)
    except SpanError as exc:
        raise FoldError(
            f"replace at seq {event.seq} has invalid current range {op.start}-{op.end} ({exc})",
            "replace-range",
        ) from None
    removed = sum(n.tokens for n in state.nodes[first : last + 1])
    return state.nodes.replaced(first, last, node), state.surface_tokens + price - removed


def _anchor(
    header: PricedHeader | None,
    step: OpenStep,
    event: Event,
    price: int,
    pricing: Pricing,
    lookup: Lookup,
) -> Anchor:
    """The anchor a successful call leaves (``price``: the durable message's price)."""
    header_tokens = header.tokens if header else 0
    usage_json = event.data.get("usage")
    if usage_json is None or header is None:
        surface = step.surface_tokens + price
        return Anchor(header, surface, Baseline("estimated", header_tokens + surface))
    usage = Usage.from_json(usage_json)
    surface = step.surface_tokens + _provider_output_tokens(event, step, price, pricing, lookup)
    estimated = header_tokens + surface
    verdict = pricing.anchor_rule.judge(usage.total_tokens, estimated)
    if usage_trusted(verdict):
        return Anchor(header, surface, Baseline("usage", usage.total_tokens, usage), verdict)
    return Anchor(header, surface, Baseline("estimated", estimated), verdict)


def _provider_output_tokens(
    event: Event, step: OpenStep, durable_price: int, pricing: Pricing, lookup: Lookup
) -> int:
    """The price of what the provider emitted, rebuilt from the cited chunks."""
    if event.source_seqs is None:
        return durable_price  # legacy log: assume the durable message is the provider's
    where = f"assistant/message at seq {event.seq}"
    seen: set[int] = set()
    chunks = []
    for source in event.source_seqs:
        if source >= event.seq:
            raise FoldError(f"{where}: source seq {source} is not earlier", "source-seqs")
        if source in seen:
            raise FoldError(f"{where} repeats source seq {source}", "source-seqs")
        seen.add(source)
        cited = step.chunk(source) or lookup(source)
        if cited is None or cited.type != ASSISTANT_CHUNK.type:
            raise FoldError(
                f"{where}: source seq {source} is not assistant/chunk", "assistant-sources"
            )
        if not _same_step(cited.data, event.data):
            raise FoldError(
                f"{where}: source seq {source} belongs to another step", "assistant-sources"
            )
        chunks.append(cited.data["chunk"])
    blocks = assemble_blocks(chunks)
    return pricing.message(Message("assistant", blocks)) if blocks else 0


def _price_event(event: Event, pricing: Pricing) -> int:
    data = event.data
    content = blocks_from_json(data["content"])
    if event.type == ASSISTANT_MESSAGE.type:
        return pricing.message(Message("assistant", content)) if content else 0
    if event.type == TOOL_RESULT.type:
        block = ToolResultBlock(str(data["call_id"]), content, bool(data.get("is_error", False)))
        return pricing.message(Message("user", (block,)))
    return pricing.message(Message("user", content))


def _matches(step: OpenStep | None, data: Mapping[str, Any]) -> bool:
    return step is not None and (step.turn, step.step) == (data.get("turn"), data.get("step"))


def _same_step(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return (a.get("turn"), a.get("step")) == (b.get("turn"), b.get("step"))


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{key} must be an integer, not {value!r}")
    return value
