"""``TokenMeter``: how much of the context window the next request of a session takes.

Every ``measure`` first catches the session's fold up to the log tail, so the
answer never depends on who read the log before. Provider usage anchors the
answer only while the request envelope is unchanged; everything the surface
gained or lost since is priced by the counter and added as a signed delta.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ctxbudget.content import Message, message_from_json
from ctxbudget.errors import ConfigError, InvalidSessionIdError, ReplayError
from ctxbudget.kernel import classify
from ctxbudget.ledger import Event, LedgerReader
from ctxbudget.meter.anchor_rule import (
    DEFAULT_ANCHOR_RULE,
    SEED_ANCHOR_RULE,
    AnchorRule,
    UsageVerdict,
)
from ctxbudget.meter.fold import FoldError, FoldState, anchor_header, fold_event
from ctxbudget.meter.fold_cache import DEFAULT_FOLD_CACHE_BYTES, FoldCache
from ctxbudget.meter.headers import RequestHeader, canonical_header, headers_equal
from ctxbudget.meter.history import CallPrediction, PrefixReader, call_points
from ctxbudget.meter.measurement import NO_BASELINE, Baseline, Measurement, Usage
from ctxbudget.tokens import (
    DEFAULT_OVERHEADS,
    SEED_OVERHEADS,
    Overheads,
    TokenCounter,
    central_counter,
    price_message,
    price_tools,
)
from ctxbudget.tokens.arguments import counter_argument

__all__ = ["DEFAULT_CONTEXT_WINDOW", "TokenMeter"]

DEFAULT_CONTEXT_WINDOW: Final = 128_000


@dataclass(frozen=True, slots=True)
class _Pricing:
    counter: TokenCounter
    overheads: Overheads
    anchor_rule: AnchorRule

    def message(self, message: Message) -> int:
        return price_message(message, self.counter, self.overheads)

    def header(self, header: RequestHeader) -> int:
        prefix = sum(self.message(message_from_json(m)) for m in header.message_prefix)
        system = 0
        if header.system is not None:
            system = self.counter.count(header.system) + self.overheads.block
        return prefix + system + price_tools(header.tools, self.counter, self.overheads)


class TokenMeter:
    """Replays each session's ledger into a running estimate of its context pressure.

    ``counter`` defaults to ``central_counter()``, the calibrated profile in the middle
    of the known tokenizers: the meter predicts what the provider will report, so it
    wants an unbiased count, not the conservative one budgets are guarded with
    (``default_counter()``). A spec string (``"chars4"``) is resolved with
    ``ctxbudget.tokens.get_counter``. ``Chars4Counter()`` with
    ``SEED_OVERHEADS`` reproduces the reference meter exactly. One meter can serve
    many sessions and threads; each session's fold is kept and advanced on read.

    ``overheads``: ``None`` takes ``DEFAULT_OVERHEADS`` (images at ``IMAGE_TOKENS``)
    with the default counter and the seed's 4/4 with a counter you pass.

    ``calibrate``: scale the delta priced on top of a usage anchor by how this
    session's prompts really grew between earlier anchored calls (see
    ``Measurement.delta_scale``). ``None`` turns it on for the default counter and
    off when you pass a counter, so a counter you chose prices exactly as it counts.

    ``anchor_rule``: which usage anchors (``docs/meter.md``, the anchor rule;
    ``Measurement.usage_verdict`` says what happened). ``None`` takes
    ``DEFAULT_ANCHOR_RULE`` with the default counter (usage below the meter's estimate
    is trusted unless implausibly low; each envelope keeps its latest anchor) and
    ``SEED_ANCHOR_RULE`` when you pass a counter (lower usage is never trusted; one
    anchor, the latest call's), so the seed's vectors hold exactly.

    ``fold_cache_bytes``: how much the meter keeps of its sessions' folds (an
    estimate, see ``ctxbudget.meter.fold_cache``); the least recently measured
    sessions are dropped first and folded again from the ledger when measured.
    """

    def __init__(
        self,
        ledger: LedgerReader,
        counter: TokenCounter | str | None = None,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        overheads: Overheads | None = None,
        *,
        calibrate: bool | None = None,
        anchor_rule: AnchorRule | None = None,
        fold_cache_bytes: int = DEFAULT_FOLD_CACHE_BYTES,
    ) -> None:
        if (
            not isinstance(context_window, int)
            or isinstance(context_window, bool)
            or context_window <= 0
        ):
            raise ConfigError(
                f"TokenMeter: context_window ({context_window!r}) must be a positive integer"
            )
        _check_arguments(ledger, overheads, calibrate, anchor_rule)
        if counter is not None:
            counter = counter_argument(counter, "TokenMeter")
        self._ledger = ledger
        if overheads is None:
            overheads = DEFAULT_OVERHEADS if counter is None else SEED_OVERHEADS
        if anchor_rule is None:
            anchor_rule = DEFAULT_ANCHOR_RULE if counter is None else SEED_ANCHOR_RULE
        self._pricing = _Pricing(
            counter if counter is not None else central_counter(), overheads, anchor_rule
        )
        self._context_window = context_window
        # A counter the caller chose prices exactly as it counts; the default one
        # learns each session's correction from the provider's usage.
        self._calibrate = calibrate if calibrate is not None else counter is None
        self._folds = FoldCache(fold_cache_bytes)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        counter, window = self._pricing.counter, self.context_window
        return f"TokenMeter({self._ledger!r}, counter={counter!r}, context_window={window})"

    @property
    def context_window(self) -> int:
        """The capacity every measurement is classified against."""
        return self._context_window

    @property
    def counter(self) -> TokenCounter:
        """The counter that prices messages and headers."""
        return self._pricing.counter

    @property
    def anchor_rule(self) -> AnchorRule:
        """Which usage anchors this meter's measurements."""
        return self._pricing.anchor_rule

    @property
    def fold_cache_bytes(self) -> int:
        """The budget, in estimated bytes, for the folds the meter keeps."""
        return self._folds.max_bytes

    @property
    def cached_sessions(self) -> int:
        """How many sessions' folds the meter holds now."""
        with self._lock:
            return len(self._folds)

    @property
    def cached_bytes(self) -> int:
        """The estimated size of the folds held (at most ``fold_cache_bytes``, except
        that the session measured last is always kept)."""
        with self._lock:
            return self._folds.bytes

    def estimate_message(self, message: Message | Mapping[str, Any]) -> int:
        """The estimated tokens of one message (no session state involved)."""
        if not isinstance(message, Message):
            if not isinstance(message, Mapping):
                raise ConfigError(
                    f"TokenMeter.estimate_message: message is a {type(message).__name__}; pass "
                    "a ctxbudget.content.Message or a message as a dict"
                )
            message = message_from_json(message)
        return self._pricing.message(message)

    def measure(
        self, session_id: str, request_header: Mapping[str, Any] | RequestHeader | None = None
    ) -> Measurement:
        """Pressure of the session's next request, folded up to the current log tail.

        ``request_header`` prices a different envelope (e.g. another model) without
        changing what the surface fields describe. ``ReplayError`` if a logged event
        cannot be folded; it stays unread, so every later call raises it again.
        """
        _check_session_id(session_id, "measure")
        state = self._sync(session_id)
        if request_header is None:
            priced = state.header
            header, header_tokens = (priced.header, priced.tokens) if priced else (None, 0)
        else:
            header = canonical_header(request_header)
            header_tokens = self._pricing.header(header)
        baseline, delta, verdict = _baseline(
            state, header, header_tokens, self._pricing.anchor_rule.per_envelope
        )
        scale = 1.0
        if self._calibrate and baseline.kind == "usage":
            scale = state.growth.scale()
            delta = round(delta * scale)
        total = max(0, baseline.tokens + delta)
        return Measurement(
            log_revision=state.consumed,
            baseline=baseline,
            surface_delta_tokens=delta,
            total_tokens=total,
            surface_tokens=state.surface_tokens,
            nodes=state.nodes,
            capacity=self._context_window,
            pressure=classify(total, self._context_window),
            delta_scale=scale,
            usage_verdict=verdict,
        )

    def history(self, session_id: str) -> tuple[CallPrediction, ...]:
        """Every call of the session: the measurement before its request went out
        (with this meter's counter and rules) beside the usage it reported.

        Replays the log once from seq 0 with a meter of its own, so it neither reads
        nor changes this meter's folds. ``ReplayError`` as ``measure`` raises it.
        """
        _check_session_id(session_id, "history")
        events = self._ledger.events(session_id, 0)
        prefix = PrefixReader(session_id, events)
        pricing = self._pricing
        replay = TokenMeter(
            prefix,
            pricing.counter,
            self._context_window,
            pricing.overheads,
            calibrate=self._calibrate,
            anchor_rule=pricing.anchor_rule,
            fold_cache_bytes=self._folds.max_bytes,
        )
        calls = []
        for sent, message in call_points(events):
            prefix.limit = sent
            usage = message.data.get("usage")
            try:
                parsed = Usage.from_json(usage) if usage is not None else None
            except (KeyError, TypeError, ValueError):
                parsed = None  # the fold reports a malformed usage when it reaches it
            calls.append(CallPrediction(message.seq, replay.measure(session_id), parsed))
        prefix.limit = len(events)
        replay.measure(session_id)  # a log the meter cannot fold raises here too
        return tuple(calls)

    def _sync(self, session_id: str) -> FoldState:
        with self._lock:
            state = self._folds.get(session_id) or FoldState()
            try:
                for event in self._ledger.events(session_id, state.consumed):
                    state = fold_event(state, event, self._pricing, self._lookup(session_id))
            except FoldError as exc:
                raise ReplayError(session_id, state.consumed, str(exc)) from None
            finally:
                # Keep every event that folded; the failing one stays unread.
                self._folds.put(session_id, state)
            return state

    def _lookup(self, session_id: str) -> Any:
        def lookup(seq: int) -> Event | None:
            found = self._ledger.events(session_id, seq, seq + 1)
            return found[0] if found else None

        return lookup


def _check_arguments(
    ledger: object, overheads: object, calibrate: object, anchor_rule: object
) -> None:
    """Wrong-typed arguments are named here, not met as an AttributeError at the first read."""
    if not callable(getattr(ledger, "events", None)):
        raise ConfigError(
            f"TokenMeter: ledger is a {type(ledger).__name__}, not a ledger; pass one opened "
            "with ctxbudget.ledger.open_ledger(url)"
        )
    if overheads is not None and not isinstance(overheads, Overheads):
        raise ConfigError(
            f"TokenMeter: overheads is a {type(overheads).__name__}; pass a "
            "ctxbudget.tokens.Overheads or None"
        )
    if calibrate is not None and not isinstance(calibrate, bool):
        raise ConfigError(f"TokenMeter: calibrate ({calibrate!r}) must be True, False or None")
    if anchor_rule is not None and not isinstance(anchor_rule, AnchorRule):
        raise ConfigError(
            f"TokenMeter: anchor_rule is a {type(anchor_rule).__name__}; pass an AnchorRule "
            "(ctxbudget.meter.DEFAULT_ANCHOR_RULE or SEED_ANCHOR_RULE) or None"
        )


def _check_session_id(session_id: object, method: str) -> None:
    if not isinstance(session_id, str):
        raise InvalidSessionIdError(
            f"TokenMeter.{method}: session_id is a {type(session_id).__name__} "
            f"({session_id!r}); pass the session id as a string"
        )


def _baseline(
    state: FoldState, header: RequestHeader | None, header_tokens: int, per_envelope: bool
) -> tuple[Baseline, int, UsageVerdict]:
    candidates = (state.anchor, *state.other_anchors) if per_envelope else (state.anchor,)
    for anchor in candidates:
        if anchor is not None and headers_equal(anchor_header(anchor), header):
            delta = state.surface_tokens - anchor.surface_tokens
            return anchor.baseline, delta, anchor.verdict
    if header is None and state.surface_tokens == 0:
        return NO_BASELINE, 0, "no-usage"
    return Baseline("estimated", header_tokens + state.surface_tokens), 0, "no-usage"
