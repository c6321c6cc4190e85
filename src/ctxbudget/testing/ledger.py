"""The ledger conformance suite: one set of tests every store must pass.

Subclass ``LedgerConformance`` in a pytest module and give it a ``make_ledger``
fixture that returns a factory; each call of the factory opens a new handle on
the *same*, initially empty store (an in-memory store may return one shared
object). The suite closes what it opens::

    class TestMyLedger(LedgerConformance):
        @pytest.fixture
        def make_ledger(self, tmp_path):
            return lambda: MyLedger(tmp_path / "events.db")

The memory, SQLite and PostgreSQL stores of ctxbudget run exactly this suite.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ctxbudget.errors import (
    ConfigError,
    ConflictError,
    EventTooLargeError,
    InvalidEventError,
    InvalidSessionIdError,
)
from ctxbudget.ledger import MAX_EVENT_BYTES, Ledger, ReplaceOp
from ctxbudget.ledger.rules import MAX_NESTING

__all__ = [
    "BRICKS",
    "LedgerConformance",
    "LedgerFactory",
    "assert_measurable",
    "assistant",
    "assistant_message",
    "chunk_event",
    "header_event",
    "replace_event",
    "step_event",
    "tool_result",
    "user",
]

LedgerFactory = Callable[[], Ledger]


def user(text: str) -> dict[str, Any]:
    """An appendable ``user/message`` with one text block."""
    return {
        "type": "user/message",
        "data": {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}},
        "surface_op": "append",
    }


def assistant_message(text: str, turn: int = 1, step: int = 1, **extra: Any) -> dict[str, Any]:
    """An appendable ``assistant/message`` with one text block; append it inside its step
    (``step/start`` with the same turn and step before it), or use ``assistant``."""
    data = {
        "turn": turn,
        "step": step,
        "content": [{"type": "text", "text": text}],
        "provenance": {"provider": "p", "model": "m"},
    }
    return {"type": "assistant/message", "data": data, "surface_op": "append", **extra}


def assistant(text: str, turn: int = 1, step: int = 1, **extra: Any) -> list[dict[str, Any]]:
    """A batch for ``append_many``: ``step/start``, the ``assistant/message``, ``step/end``.

    The ledger refuses an assistant message outside its step, so a reply always comes
    with the step it belongs to.
    """
    bounds = {"turn": turn, "step": step}
    return [
        {"type": "step/start", "data": bounds},
        assistant_message(text, turn, step, **extra),
        {"type": "step/end", "data": bounds},
    ]


def tool_result(call_id: str, text: str, **extra: Any) -> dict[str, Any]:
    """An appendable ``tool/result`` with one text block."""
    data = {
        "turn": 1,
        "step": 1,
        "call_id": call_id,
        "content": [{"type": "text", "text": text}],
        "is_error": False,
    }
    return {"type": "tool/result", "data": data, "surface_op": "append", **extra}


def replace_event(
    event: dict[str, Any], start: int, end: int, sources: list[int]
) -> dict[str, Any]:
    """``event`` as a replace of the surface span ``start``..``end``, citing ``sources``."""
    return {
        **event,
        "surface_op": {"op": "replace", "start": start, "end": end},
        "source_seqs": sources,
    }


def step_event(edge: str, turn: int, step: int, **extra: Any) -> dict[str, Any]:
    """An appendable ``step/start`` or ``step/end`` (``edge`` is ``"start"`` or ``"end"``)."""
    return {"type": f"step/{edge}", "data": {"turn": turn, "step": step, **extra}}


def chunk_event(chunk: dict[str, Any], turn: int = 1, step: int = 1) -> dict[str, Any]:
    """An appendable ``assistant/chunk``."""
    return {"type": "assistant/chunk", "data": {"turn": turn, "step": step, "chunk": chunk}}


def header_event(**header: Any) -> dict[str, Any]:
    """An appendable ``request/header``; ``config`` defaults to provider p, model m."""
    header.setdefault("config", {"provider": "p", "model": "m"})
    return {"type": "request/header", "data": {"header": header}}


def _with_usage(usage: Any, sources: list[int] | None = None) -> dict[str, Any]:
    message = assistant_message("x")
    if sources is not None:
        message["source_seqs"] = sources
    return {**message, "data": {**message["data"], "usage": usage}}


_OPEN = [user("go"), step_event("start", 1, 1)]
_USAGE = {"input_tokens": 5, "output_tokens": 1}

BRICKS: list[tuple[str, list[Any], Any, str]] = [
    ("step restarted after a crash", _OPEN, step_event("start", 1, 1), "step-open"),
    ("assistant without its step", [user("go")], assistant_message("x"), "assistant-step"),
    ("assistant of another step", _OPEN, assistant_message("x", 1, 2), "assistant-step"),
    ("step/end of another step", _OPEN, step_event("end", 1, 2), "step-end"),
    ("step/end with no open step", [user("go")], step_event("end", 1, 1), "step-end"),
    (
        "text block with a number",
        [],
        {"type": "user/message", "data": {"content": [{"type": "text", "text": 5}]}},
        "block-shape",
    ),
    (
        "tool-result block with bad content",
        [],
        {
            "type": "user/message",
            "data": {"content": [{"type": "tool-result", "tool_call_id": "c", "content": 5}]},
        },
        "block-shape",
    ),
    (
        "header stop is a number",
        [],
        header_event(config={"provider": "p", "model": "m", "stop": 5}),
        "field-type",
    ),
    (
        "header stop lists numbers",
        [],
        header_event(config={"provider": "p", "model": "m", "stop": [5]}),
        "header-shape",
    ),
    ("header prefix of strings", [], header_event(message_prefix=["hi"]), "header-shape"),
    (
        "header prefix content is an object",
        [],
        header_event(message_prefix=[{"role": "user", "content": {"a": 1}}]),
        "field-type",
    ),
    ("header tools of strings", [], header_event(tools=["read"]), "header-shape"),
    (
        "usage with a string count",
        _OPEN,
        _with_usage({"input_tokens": "5", "output_tokens": 1}),
        "field-type",
    ),
    ("usage without output", _OPEN, _with_usage({"input_tokens": 5}), "field-missing"),
    ("usage citing a user message", _OPEN, _with_usage(_USAGE, [0]), "assistant-sources"),
    (
        "chunk index out of order",
        [*_OPEN, chunk_event({"type": "text-delta", "index": 1, "text": "b"})],
        chunk_event({"type": "text-delta", "index": 0, "text": "a"}),
        "chunk-order",
    ),
    (
        "chunk index an object",
        _OPEN,
        chunk_event({"type": "text-delta", "index": {"a": 1}}),
        "field-type",
    ),
    (
        "chunk block-end with a bad block",
        _OPEN,
        chunk_event({"type": "block-end", "index": 0, "block": {"type": "text", "text": 5}}),
        "block-shape",
    ),
]
"""Logs that once bricked a session: (name, events before, the bad event, the rule)."""


def assert_measurable(ledger: Ledger, session_id: str) -> None:
    """``TokenMeter.measure`` succeeds on the session and equals a fresh replay."""
    from ctxbudget.meter import TokenMeter
    from ctxbudget.tokens import Chars4Counter

    measured = TokenMeter(ledger, Chars4Counter()).measure(session_id)
    assert measured.log_revision == ledger.revision(session_id)


class LedgerConformance:
    """Behaviour every ``Ledger`` store must show. Subclass it; provide ``make_ledger``."""

    @pytest.fixture
    def open_ledger(self, make_ledger: LedgerFactory) -> Iterator[LedgerFactory]:
        """Opens handles on the store under test and closes them after the test."""
        opened: list[Ledger] = []

        def factory() -> Ledger:
            opened.append(make_ledger())
            return opened[-1]

        yield factory
        for ledger in reversed(opened):
            ledger.close()

    @pytest.fixture
    def ledger(self, open_ledger: LedgerFactory) -> Ledger:
        """One handle on a fresh store."""
        return open_ledger()

    # -- appending and reading ---------------------------------------------------------------

    def test_a_fresh_store_is_empty(self, ledger: Ledger) -> None:
        """No sessions, revision 0, no events."""
        assert ledger.sessions() == []
        assert ledger.revision("s") == 0
        assert list(ledger.events("s")) == []

    def test_seqs_count_from_zero_per_session(self, ledger: Ledger) -> None:
        """Each session numbers its events 0, 1, 2, … on its own."""
        assert ledger.append("a", user("one")) == 0
        assert ledger.append("a", user("two")) == 1
        assert ledger.append("b", user("three")) == 0
        assert ledger.append_many("a", [user("x"), user("y")]) == [2, 3]
        assert (ledger.revision("a"), ledger.revision("b")) == (4, 1)
        assert [e.seq for e in ledger.events("a")] == [0, 1, 2, 3]
        assert ledger.sessions() == ["a", "b"]

    def test_events_round_trip_exactly(self, ledger: Ledger) -> None:
        """Type, data (key order, unicode, numbers), surface_op and sources come back as sent."""
        data = {
            "z": 1,
            "a": [1.5, -2, True, None, "你好 😀"],
            "nested": {"b": {"c": []}, "a": {}},
            "big": 2**60,
        }
        ledger.append("s", {"type": "custom/thing", "data": data})
        ledger.append_many("s", assistant("hi", source_seqs=[0]))
        first, second = ledger.events("s")[0], ledger.events("s")[2]
        assert first.type == "custom/thing"
        assert first.to_new() == {"type": "custom/thing", "data": data}
        assert list(first.data) == ["z", "a", "nested", "big"]
        assert list(first.data["nested"]) == ["b", "a"]
        assert (first.surface_op, first.source_seqs) == (None, None)
        assert (second.surface_op, second.source_seqs) == ("append", (0,))
        assert isinstance(first.time, int)
        assert first.time >= 0

    def test_stored_events_are_read_only(self, ledger: Ledger) -> None:
        """Readers cannot change what other readers see."""
        ledger.append("s", user("hi"))
        event = ledger.events("s")[0]
        with pytest.raises(TypeError):
            event.data["content"] = []  # type: ignore[index]
        with pytest.raises(AttributeError):
            event.seq = 5  # type: ignore[misc]
        assert ledger.events("s")[0].data["content"][0]["text"] == "hi"

    def test_events_reads_a_range(self, ledger: Ledger) -> None:
        """``start`` and ``stop`` select seqs; out-of-range bounds give fewer events."""
        ledger.append_many("s", [user(str(i)) for i in range(5)])
        assert [e.seq for e in ledger.events("s", 2)] == [2, 3, 4]
        assert [e.seq for e in ledger.events("s", 1, 3)] == [1, 2]
        assert list(ledger.events("s", 9)) == []

    def test_unknown_types_and_blocks_are_kept(self, ledger: Ledger) -> None:
        """The ledger stores event types and content blocks it does not know."""
        block = {"type": "future-block", "payload": {"x": 1}}
        ledger.append("s", {"type": "plugin/custom", "data": {"anything": [1, 2]}})
        ledger.append(
            "s", {"type": "user/message", "data": {"content": [block]}, "surface_op": "append"}
        )
        assert ledger.events("s")[1].to_new()["data"]["content"] == [block]

    # -- optimistic concurrency ---------------------------------------------------------------

    def test_expected_revision_guards_the_append(self, ledger: Ledger) -> None:
        """A matching revision writes; a stale one raises ConflictError and writes nothing."""
        assert ledger.append("s", user("a"), expected_revision=0) == 0
        assert ledger.append_many("s", [user("b"), user("c")], expected_revision=1) == [1, 2]
        with pytest.raises(ConflictError) as caught:
            ledger.append_many("s", [user("late"), user("later")], expected_revision=1)
        assert (caught.value.expected, caught.value.actual) == (1, 3)
        assert ledger.revision("s") == 3

    def test_two_handles_cannot_both_win(self, open_ledger: LedgerFactory) -> None:
        """Writers that read the same revision: the first wins, the second conflicts."""
        first, second = open_ledger(), open_ledger()
        first.append("s", user("base"))
        seen = second.revision("s")
        first.append("s", user("winner"), expected_revision=seen)
        with pytest.raises(ConflictError):
            second.append("s", user("loser"), expected_revision=seen)
        assert [e.data["content"][0]["text"] for e in second.events("s")] == ["base", "winner"]

    def test_a_second_handle_checks_against_the_current_surface(
        self, open_ledger: LedgerFactory
    ) -> None:
        """Surface rules hold across handles: a replace sees what another handle appended."""
        first, second = open_ledger(), open_ledger()
        second.append("s", user("zero"))
        first.append_many("s", [user("one"), user("two")])
        second.append("s", replace_event(user("sum"), 1, 2, [1, 2]))
        with pytest.raises(InvalidEventError):
            first.append("s", replace_event(user("again"), 1, 2, [1, 2]))
        assert first.revision("s") == 4

    @pytest.mark.parametrize("expected", [-1, "0", 1.0, True])
    def test_expected_revision_is_a_count(self, ledger: Ledger, expected: Any) -> None:
        """Anything but a non-negative integer (or None) is refused before any write."""
        with pytest.raises(InvalidEventError, match="expected_revision"):
            ledger.append("s", user("a"), expected_revision=expected)
        assert ledger.sessions() == []

    def test_sessions_sort_by_code_point(self, ledger: Ledger) -> None:
        """The same order on every store, whatever the database collation."""
        ids = ["b", "B", "a", "_x", "Ä", "a b", "ab"]
        for session_id in ids:
            ledger.append(session_id, user("x"))
        assert ledger.sessions() == sorted(ids)

    def test_empty_batch_writes_nothing(self, ledger: Ledger) -> None:
        """An empty batch returns no seqs, creates no session, but still checks the revision."""
        assert ledger.append_many("s", []) == []
        assert ledger.sessions() == []
        with pytest.raises(ConflictError):
            ledger.append_many("s", [], expected_revision=3)

    # -- surface rules -------------------------------------------------------------------------

    def test_replace_names_a_positional_span(self, ledger: Ledger) -> None:
        """A replace covers the span between two current seqs, then sits in its place."""
        ledger.append_many("s", [user("a"), user("b"), user("c"), user("d")])
        assert ledger.append("s", replace_event(user("bc"), 1, 2, [1, 2])) == 4
        # 4 now sits at position 1, so 0..4 is a valid span while 4..0 is reversed.
        assert ledger.append("s", replace_event(user("head"), 0, 4, [0, 4, 1, 2])) == 5
        with pytest.raises(InvalidEventError, match="reversed"):
            ledger.append("s", replace_event(user("x"), 3, 5, [3, 5]))
        assert ledger.events("s")[5].surface_op == ReplaceOp(0, 4)

    @pytest.mark.parametrize(
        ("bad", "match"),
        [
            ({"type": "user/message", "data": {"content": []}}, "must carry surface_op"),
            ({"type": "turn/start", "data": {"turn": 1}, "surface_op": "append"}, "neither"),
            ({"type": "turn/start", "data": {"turn": 1}, "source_seqs": [0]}, "neither"),
            ({**user("x"), "source_seqs": [5]}, "not earlier"),
            ({**user("x"), "source_seqs": [0, 0]}, "repeat"),
            ({**user("x"), "source_seqs": []}, "empty only on assistant"),
            ({**user("x"), "source_seqs": [-1]}, "non-negative"),
            (replace_event(user("x"), 0, 9, [0]), "not on the current surface"),
            (replace_event(user("x"), 1, 0, [0, 1]), "reversed"),
            (replace_event(user("x"), 0, 1, [0]), "do not list"),
            ({**user("x"), "surface_op": "prepend"}, "surface_op must be"),
            ({**user("x"), "seq": 3}, "unknown keys"),
            ({"type": "", "data": {}}, "type must be"),
            ({"type": "user/message", "data": [], "surface_op": "append"}, "JSON object"),
            ({"type": "x", "data": {"v": {1, 2}}}, "not JSON"),
            ({"type": "x", "data": {"v": math.nan}}, "JSON cannot represent"),
            ({"type": "x", "data": {1: "v"}}, "non-string key"),
            ({"type": "x", "data": {"v": "\ud800"}}, "lone surrogate"),
            ({"type": "step/start", "data": {"turn": "1", "step": 1}}, "data.turn must be integer"),
            (
                {"type": "user/message", "data": {"content": ["hi"]}, "surface_op": "append"},
                "block object",
            ),
            (
                {
                    **assistant_message("x"),
                    "data": {
                        **assistant_message("x")["data"],
                        "usage": {"input_tokens": -1, "output_tokens": 0},
                    },
                },
                "usage.input_tokens",
            ),
            ({"type": "request/header", "data": {"header": {"config": {}}}}, "provider"),
        ],
    )
    def test_invalid_events_are_refused(self, ledger: Ledger, bad: Any, match: str) -> None:
        """Each append-time rule gives a clear InvalidEventError, and nothing is stored."""
        ledger.append_many("s", [user("a"), user("b")])
        with pytest.raises(InvalidEventError, match=match):
            ledger.append("s", bad)
        assert ledger.revision("s") == 2

    def test_a_bad_event_spoils_its_whole_batch(self, ledger: Ledger) -> None:
        """A batch is stored completely or not at all."""
        batch = [user("fine"), replace_event(user("bad"), 0, 7, [0, 7]), user("also fine")]
        with pytest.raises(InvalidEventError):
            ledger.append_many("s", batch)
        assert ledger.revision("s") == 0
        assert ledger.sessions() == []

    def test_tool_result_replacement_changes_only_content(self, ledger: Ledger) -> None:
        """A tool/result replace shadows exactly one tool/result and keeps its other fields."""
        ledger.append_many("s", [user("go"), tool_result("c1", "long output"), user("next")])
        pruned = replace_event(tool_result("c1", "short"), 1, 1, [1])
        assert ledger.append("s", pruned) == 3
        with pytest.raises(InvalidEventError, match="only content"):
            ledger.append("s", replace_event(tool_result("c2", "x"), 3, 3, [3]))
        with pytest.raises(InvalidEventError, match="exactly one tool/result"):
            ledger.append("s", replace_event(tool_result("c1", "x"), 0, 3, [0, 3]))
        assert ledger.revision("s") == 4

    def test_a_batch_may_replace_what_it_appended(self, ledger: Ledger) -> None:
        """Rules apply event by event inside a batch."""
        batch = [tool_result("c", "big"), replace_event(tool_result("c", "small"), 0, 0, [0])]
        assert ledger.append_many("s", batch) == [0, 1]

    # -- what cannot be stored -------------------------------------------------------------

    @pytest.mark.parametrize("session_id", ["", "x" * 257, "a\x00b", "tab\tbed", "\ud800", 7])
    def test_unstorable_session_ids_are_refused(self, ledger: Ledger, session_id: Any) -> None:
        """Ids that some store could not keep are refused everywhere, before any write."""
        with pytest.raises(InvalidSessionIdError):
            ledger.append(session_id, user("hi"))
        assert ledger.sessions() == []

    def test_session_ids_are_data(self, ledger: Ledger) -> None:
        """Quotes, unicode and SQL in an id are stored as given and kept apart."""
        ids = ["x'; DROP TABLE ctxbudget_events; --", "会话/1", "a b", "%", "_"]
        for session_id in ids:
            ledger.append(session_id, user(session_id))
        assert ledger.sessions() == sorted(ids)
        for session_id in ids:
            assert ledger.events(session_id)[0].data["content"][0]["text"] == session_id

    def test_oversized_events_are_refused(self, ledger: Ledger) -> None:
        """One event over the size limit raises EventTooLargeError; nothing is written."""
        with pytest.raises(EventTooLargeError):
            ledger.append("s", user("x" * (MAX_EVENT_BYTES + 1)))
        assert ledger.revision("s") == 0

    # -- durability -------------------------------------------------------------------------

    def test_another_handle_sees_committed_events(self, open_ledger: LedgerFactory) -> None:
        """What one handle committed, a handle opened later reads back."""
        writer = open_ledger()
        writer.append_many("s", [user("a"), *assistant("b")])
        reader = open_ledger()
        assert [e.type for e in reader.events("s")] == [
            "user/message",
            "step/start",
            "assistant/message",
            "step/end",
        ]
        assert reader.sessions() == ["s"]

    # -- what the ledger accepts, the meter can replay ----------------------------------------

    @pytest.mark.parametrize(("name", "prefix", "bad", "rule"), BRICKS, ids=[b[0] for b in BRICKS])
    def test_events_the_meter_cannot_fold_are_refused(
        self, ledger: Ledger, name: str, prefix: list[Any], bad: Any, rule: str
    ) -> None:
        """Each log that would make the session unmeasurable is refused at append, naming
        the rule; nothing of it is stored and the session still measures."""
        ledger.append_many("s", prefix)
        with pytest.raises(InvalidEventError) as caught:
            ledger.append_many("s", [user("fine"), bad])
        assert caught.value.rule == rule, str(caught.value)
        assert ledger.revision("s") == len(prefix)
        assert_measurable(ledger, "s")

    def test_a_long_stream_is_cited_whole(self, ledger: Ledger) -> None:
        """An assistant/message citing thousands of chunks, and a replace hiding thousands of
        seqs, are checked and stored (no store limit on how many seqs one event names)."""
        chunks = [chunk_event({"type": "text-delta", "index": 0, "text": "t"})] * 2_000
        ledger.append_many("s", [step_event("start", 1, 1), *chunks])
        reply = _with_usage(_USAGE, list(range(1, 2_001)))
        ledger.append_many("s", [reply, step_event("end", 1, 1)])
        ledger.append_many("s", [user(str(n)) for n in range(1_500)])
        hidden = list(range(2_003, 3_503))
        assert ledger.append("s", replace_event(user("sum"), 2_003, 3_502, hidden)) == 3_503
        assert_measurable(ledger, "s")

    def test_a_crashed_step_is_closed_with_an_aborted_step_end(self, ledger: Ledger) -> None:
        """step/end with aborted: true closes the open step; with none open it is a no-op."""
        ledger.append_many("s", [user("go"), step_event("start", 1, 1)])
        # The agent crashed mid-step and restarts: it does not know whether the step closed.
        ledger.append("s", step_event("end", 1, 1, aborted=True))
        ledger.append("s", step_event("end", 1, 1, aborted=True))
        ledger.append_many("s", assistant("retry"))
        assert_measurable(ledger, "s")
        assert ledger.revision("s") == 7

    # -- the stores agree on edge cases ---------------------------------------------------------

    @pytest.mark.parametrize("kind", ["a\x00b", "bad\ud800", "tab\there", ""])
    def test_unstorable_event_types_are_refused(self, ledger: Ledger, kind: str) -> None:
        """NUL, control characters and lone surrogates in type: refused on every store."""
        with pytest.raises(InvalidEventError) as caught:
            ledger.append("s", {"type": kind, "data": {}})
        assert caught.value.rule == "event-type"
        assert ledger.sessions() == []

    def test_nul_and_odd_text_in_data_round_trip(self, ledger: Ledger) -> None:
        """NUL and other control characters inside data strings come back as sent."""
        data = {"nul": "a\x00b", "ctl": "\x01\x1f\x7f", "key\x00": 1, "max": 2**63 - 1}
        ledger.append("s", {"type": "x", "data": data})
        assert ledger.events("s")[0].to_new()["data"] == data

    @pytest.mark.parametrize(
        ("data", "rule"),
        [
            ({"v": "\udfff"}, "json-value"),
            ({"\ud800": 1}, "json-value"),
            ({"v": 2**63}, "json-value"),
            ({"v": -(2**63) - 1}, "json-value"),
            ({"v": 10**5000}, "json-value"),
        ],
    )
    def test_unstorable_data_is_refused(self, ledger: Ledger, data: Any, rule: str) -> None:
        """Lone surrogates and integers beyond 64 bits: the same typed error everywhere."""
        with pytest.raises(InvalidEventError) as caught:
            ledger.append("s", {"type": "x", "data": data})
        assert caught.value.rule == rule
        assert ledger.sessions() == []

    @pytest.mark.parametrize("depth", [MAX_NESTING + 1, 100_000])
    def test_nesting_beyond_the_limit_is_refused(self, ledger: Ledger, depth: int) -> None:
        """Data nested deeper than MAX_NESTING is a typed error, never RecursionError."""
        deep: dict[str, Any] = {}
        inner = deep
        for _ in range(depth):
            inner["a"] = {}
            inner = inner["a"]
        with pytest.raises(InvalidEventError) as caught:
            ledger.append("s", {"type": "x", "data": deep})
        assert caught.value.rule == "json-depth"

    def test_nesting_at_the_limit_round_trips(self, ledger: Ledger) -> None:
        """MAX_NESTING levels are stored and read back."""
        deep: dict[str, Any] = {}
        inner = deep
        for _ in range(MAX_NESTING):
            inner["a"] = {}
            inner = inner["a"]
        ledger.append("s", {"type": "x", "data": deep})
        assert ledger.events("s")[0].to_new()["data"] == deep

    @pytest.mark.parametrize(
        ("start", "stop", "seqs"),
        [
            (0, -1, []),
            (-5, None, [0, 1, 2]),
            (-5, 2, [0, 1]),
            (2**63, None, []),
            (2**70, 2**80, []),
            (1, 2**64, [1, 2]),
            (2, 1, []),
        ],
    )
    def test_read_bounds_are_seqs_on_every_store(
        self, ledger: Ledger, start: int, stop: int | None, seqs: list[int]
    ) -> None:
        """Out-of-range start/stop are clamped the same way everywhere (no slice semantics)."""
        ledger.append_many("s", [user("a"), user("b"), user("c")])
        assert [e.seq for e in ledger.events("s", start, stop)] == seqs

    @pytest.mark.parametrize(("start", "stop"), [("0", None), (0, 1.5), (True, None)])
    def test_read_bounds_must_be_integers(self, ledger: Ledger, start: Any, stop: Any) -> None:
        """A bound that is not an integer is a ConfigError on every store."""
        with pytest.raises(ConfigError):
            ledger.events("s", start, stop)
