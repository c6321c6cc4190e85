"""The proxy's log mirrors what the model saw, whatever the agent re-sends."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.server.mirror import EMPTY_VIEW, Answer, SessionView, message_units, plan_events
from ctxbudget.server.sessions import derive_session_id

HEADER = {"config": {"provider": "openai", "model": "m"}, "system": "be terse"}


def text(role: str, value: str) -> Message:
    return Message(role, (TextBlock(value),))


def answer(value: str, usage: dict[str, int] | None = None) -> Answer:
    units = tuple(message_units([text("assistant", value)]))
    return Answer(units, usage, {"provider": "openai", "model": "m"})


def log_call(
    ledger: MemoryLedger, view: SessionView, request: list[Message], reply: Answer
) -> SessionView:
    events = plan_events(view, message_units(request), HEADER, reply)
    seqs = ledger.append_many("s", events, view.revision)
    for seq, event in zip(seqs, events, strict=True):
        stored = ledger.events("s", seq, seq + 1)[0]
        view = view.advanced(seq, event["type"], event["data"], stored.surface_op)
    return view


def visible_digests(view: SessionView) -> list[str]:
    return [digest for _, digest in view.surface if digest is not None]


def test_a_growing_conversation_logs_each_message_once() -> None:
    ledger = MemoryLedger()
    first = [text("user", "fix the test")]
    view = log_call(ledger, EMPTY_VIEW, first, answer("reading"))
    second = [*first, text("assistant", "reading"), text("user", "go on")]
    view = log_call(ledger, view, second, answer("done"))
    kinds = [e.type for e in ledger.events("s") if e.surface_op is not None]
    assert kinds == ["user/message", "assistant/message", "user/message", "assistant/message"]
    assert sum(e.type == "request/header" for e in ledger.events("s")) == 1


def test_tool_results_become_tool_result_events_beside_user_text() -> None:
    call = Message("assistant", (ToolCallBlock("c1", "read", "{}"),))
    results = Message("user", (ToolResultBlock("c1", (TextBlock("body"),)), TextBlock("thanks")))
    units = message_units([text("user", "read"), call, results])
    assert [u.type for u in units] == [
        "user/message",
        "assistant/message",
        "tool/result",
        "user/message",
    ]
    assert units[2].data["call_id"] == "c1"


def test_derived_session_is_stable_as_the_conversation_grows() -> None:
    opening = message_units([text("user", "task A")])
    later = message_units([text("user", "task A"), text("assistant", "ok"), text("user", "more")])
    other = message_units([text("user", "task B")])
    assert derive_session_id("openai", HEADER, opening) == derive_session_id(
        "openai", HEADER, later
    )
    assert derive_session_id("openai", HEADER, opening) != derive_session_id(
        "openai", HEADER, other
    )
    assert derive_session_id("openai", HEADER, opening) != derive_session_id(
        "anthropic", HEADER, opening
    )


words = st.sampled_from(["a", "b", "c"])
message = st.builds(text, st.sampled_from(["user", "assistant"]), words)


@st.composite
def calls(draw: Any) -> list[tuple[list[Message], str]]:
    """Requests of one session: most extend the last one, some rewrite it."""
    out: list[tuple[list[Message], str]] = []
    previous: list[Message] = []
    for _ in range(draw(st.integers(1, 6))):
        if previous and draw(st.booleans()):
            last_answer = text("assistant", out[-1][1])
            request = [*previous, last_answer, *draw(st.lists(message, max_size=2))]
        else:
            request = draw(st.lists(message, max_size=5))
        request.append(text("user", draw(words)))
        out.append((request, draw(words)))
        previous = request
    return out


@settings(max_examples=60, deadline=None)
@given(calls())
def test_the_log_always_mirrors_the_last_request_and_its_answer(
    session_calls: list[tuple[list[Message], str]],
) -> None:
    """Every planned event is accepted by the ledger and folded by the meter, the view
    read back from the ledger equals the one kept in memory, and the visible surface
    is exactly the last request followed by its answer."""
    ledger = MemoryLedger()
    view = EMPTY_VIEW
    for request, reply in session_calls:
        view = log_call(
            ledger, view, request, answer(reply, {"input_tokens": 9, "output_tokens": 1})
        )
    request, reply = session_calls[-1]
    expected = [u.digest for u in message_units([*request, text("assistant", reply)])]
    assert visible_digests(view) == expected
    assert EMPTY_VIEW.with_events(ledger.events("s")) == view
    measured = TokenMeter(ledger).measure("s")
    assert measured.log_revision == view.revision
    assert [n.seq for n in measured.nodes] == [seq for seq, _ in view.surface]
