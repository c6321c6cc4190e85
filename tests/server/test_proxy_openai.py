"""The proxy seen through the official openai SDK: OpenAI Chat Completions."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest

from ctxbudget.enforce import BudgetConfig
from ctxbudget.testing.provider import OUTPUT_TOKENS, StubProvider, free_port, prompt_tokens
from tests.server.conftest import SHORT_UPSTREAM_TIMEOUT_S, MakeProxy, Proxy, sdk_connector

KEY = "sk-test-secret-key-0123456789"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


Connect = Callable[..., openai.OpenAI]


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[Any]:
    """One HTTP client for every SDK client of the module (building one costs ~0.1 s)."""
    with openai.DefaultHttpxClient(timeout=10) as shared:
        yield shared


@pytest.fixture
def client(sdk_http: Any) -> Connect:
    """Opens SDK clients on a proxy (``client(proxy, session)``) over the module's HTTP client."""
    return sdk_connector(openai.OpenAI, KEY, sdk_http, "/v1")


def conversation(*turns: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    for index, text in enumerate(turns):
        messages.append({"role": "user" if index % 2 == 0 else "assistant", "content": text})
    return messages


def test_plain_answer_passes_through_byte_for_byte(
    proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    body = {"model": "gpt-test", "messages": conversation("hello")}
    raw = json.dumps(body).encode()
    headers = {"authorization": f"Bearer {KEY}", "content-type": "application/json"}
    direct = httpx.post(stub[1] + "/v1/chat/completions", content=raw, headers=headers)
    proxied = httpx.post(proxy.url + "/v1/chat/completions", content=raw, headers=headers)
    assert proxied.status_code == direct.status_code == 200
    assert proxied.content == direct.content
    assert stub[0].calls[-1].body == raw  # the request went upstream byte for byte too


def test_client_auth_reaches_upstream_and_is_never_stored_or_logged(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answer = client(proxy, "auth-check").chat.completions.create(
        model="gpt-test",
        messages=conversation("hi"),
        extra_headers={"OpenAI-Organization": "org-1"},
    )
    assert answer.choices[0].message.content.startswith("stub answer")
    received = stub[0].calls[-1].headers
    assert received["authorization"] == f"Bearer {KEY}"
    assert received["openai-organization"] == "org-1"
    assert "x-ctxbudget-session" not in received
    stored = json.dumps(proxy.session("auth-check"))
    assert KEY not in stored
    assert KEY not in caplog.text


def test_usage_is_recorded_and_anchors_the_next_measurement(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    sdk = client(proxy, "anchored")
    messages = conversation("what is 2+2?")
    first = sdk.chat.completions.create(model="gpt-test", messages=messages)
    sent = stub[0].calls[-1].body
    measured = proxy.session("anchored")["measurement"]
    assert measured["baseline"]["kind"] == "usage"
    assert measured["total_tokens"] == prompt_tokens(sent) + OUTPUT_TOKENS
    # The next call re-sends the history plus one user turn: the log gains only that.
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "and 3+3?"},
    ]
    sdk.chat.completions.create(model="gpt-test", messages=messages)
    session = proxy.session("anchored")
    surface = [e for e in session["history"] if "surface_op" in e]
    assert [e["type"] for e in surface] == [
        "user/message",
        "assistant/message",
        "user/message",
        "assistant/message",
    ]
    assert session["measurement"]["total_tokens"] == (
        prompt_tokens(stub[0].calls[-1].body) + OUTPUT_TOKENS
    )
    headers = [e for e in session["history"] if e["type"] == "request/header"]
    assert len(headers) == 1  # the envelope did not change
    assert headers[0]["data"]["header"]["system"] == "You are terse."


def test_streamed_answer_is_passed_on_and_logged_with_its_usage(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    stream = client(proxy, "streamed").chat.completions.create(
        model="gpt-test",
        messages=conversation("stream please"),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("stub answer")
    assert chunks[-1].usage is not None
    session = proxy.session("streamed")
    answer = [e for e in session["history"] if e["type"] == "assistant/message"][-1]
    assert answer["data"]["content"] == [{"type": "text", "text": text}]
    assert answer["data"]["usage"]["input_tokens"] == prompt_tokens(stub[0].calls[-1].body)
    assert session["measurement"]["baseline"]["kind"] == "usage"


def test_stream_first_event_arrives_before_the_upstream_finishes(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    """The stub holds its stream after the first event until the client has it: a proxy
    that buffered would deliver nothing until the stub gave up waiting."""
    gate = threading.Event()
    stub[0].gate = gate
    try:
        stream = client(proxy, "gated").chat.completions.create(
            model="gpt-test", messages=conversation("hi"), stream=True
        )
        first = next(iter(stream))
        released_by_us = not gate.is_set()
        gate.set()
        rest = list(stream)
    finally:
        stub[0].gate = None
    assert first.choices[0].delta.role == "assistant"
    assert released_by_us
    assert rest


def test_tool_call_round_trip_is_logged_as_call_and_result(
    client: Connect,
    proxy: Proxy,
) -> None:
    sdk = client(proxy, "tools")
    messages = conversation("read a.py")
    first = sdk.chat.completions.create(model="stub-tool", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    assert call.function.name == "read_file"
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "print('a')"},
    ]
    sdk.chat.completions.create(model="gpt-test", messages=messages, tools=TOOLS)
    history = proxy.session("tools")["history"]
    surface = [e for e in history if "surface_op" in e]
    assert [e["type"] for e in surface] == [
        "user/message",
        "assistant/message",
        "tool/result",
        "assistant/message",
    ]
    assert surface[1]["data"]["content"][0]["type"] == "tool-call"
    assert surface[2]["data"]["call_id"] == call.id


def test_streamed_tool_call_is_assembled_from_its_deltas(client: Connect, proxy: Proxy) -> None:
    stream = client(proxy, "streamed-tool").chat.completions.create(
        model="stub-tool", messages=conversation("read"), tools=TOOLS, stream=True
    )
    arguments = "".join(
        c.choices[0].delta.tool_calls[0].function.arguments or ""
        for c in stream
        if c.choices and c.choices[0].delta.tool_calls
    )
    answer = [
        e for e in proxy.session("streamed-tool")["history"] if e["type"] == "assistant/message"
    ][-1]
    block = answer["data"]["content"][0]
    assert block["type"] == "tool-call"
    assert block["arguments"] == arguments
    assert "usage" not in answer["data"]  # the stream reported none (no include_usage)


def test_over_budget_request_is_refused_in_openai_shape_without_calling_upstream(
    client: Connect, make_proxy: MakeProxy, stub: tuple[StubProvider, str]
) -> None:
    proxy = make_proxy(budget=BudgetConfig(max_input_tokens=50))
    before = len(stub[0].calls)
    with pytest.raises(openai.BadRequestError) as refused:
        client(proxy, "refused").chat.completions.create(
            model="gpt-test", messages=conversation("x " * 400)
        )
    assert refused.value.status_code == 400
    assert refused.value.code == "context_length_exceeded"
    assert "pending segment" in refused.value.message
    assert len(stub[0].calls) == before
    assert proxy.get("/sessions/refused").status_code == 404


@pytest.mark.parametrize(
    ("model", "status", "code"),
    [
        ("stub-500-html", 502, "upstream_bad_response"),
        ("stub-malformed", 502, "upstream_bad_response"),
        ("stub-slow", 504, "upstream_timeout"),
    ],
)
def test_upstream_failure_is_a_clean_openai_error_and_nothing_is_logged(
    client: Connect, proxy: Proxy, make_proxy: MakeProxy, model: str, status: int, code: str
) -> None:
    if model == "stub-slow":
        proxy = make_proxy(upstream_timeout_s=SHORT_UPSTREAM_TIMEOUT_S)
    with pytest.raises(openai.APIStatusError) as failed:
        client(proxy, f"failing-{status}").chat.completions.create(
            model=model, messages=conversation("hi")
        )
    assert failed.value.status_code == status
    assert failed.value.body["code"] == code  # type: ignore[index]
    assert proxy.get(f"/sessions/failing-{status}").status_code == 404


def test_upstream_errors_in_provider_shape_pass_through(client: Connect, proxy: Proxy) -> None:
    with pytest.raises(openai.AuthenticationError) as denied:
        client(proxy, "denied").chat.completions.create(
            model="stub-401", messages=conversation("hi")
        )
    assert denied.value.message.endswith("bad key")
    with pytest.raises(openai.InternalServerError) as overloaded:
        client(proxy, "denied").chat.completions.create(
            model="stub-500-json", messages=conversation("hi")
        )
    assert "stub overloaded" in overloaded.value.message
    assert proxy.get("/sessions/denied").status_code == 404


def test_refused_connection_is_a_502_in_openai_shape(
    client: Connect, make_proxy: MakeProxy
) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    proxy = make_proxy(upstreams={"openai": closed})
    with pytest.raises(openai.APIStatusError) as failed:
        client(proxy, "refused-conn").chat.completions.create(
            model="gpt-test", messages=conversation("hi")
        )
    assert failed.value.status_code == 502
    assert failed.value.body["code"] == "upstream_unavailable"  # type: ignore[index]
    assert proxy.get("/sessions/refused-conn").status_code == 404


def test_stream_that_breaks_off_ends_with_an_error_event_and_is_not_logged(
    client: Connect, proxy: Proxy
) -> None:
    stream = client(proxy, "broken").chat.completions.create(
        model="stub-break", messages=conversation("hi"), stream=True
    )
    with pytest.raises(openai.APIError, match="broke off"):
        list(stream)
    assert proxy.get("/sessions/broken").status_code == 404


def test_session_is_derived_stably_from_the_conversation(client: Connect, proxy: Proxy) -> None:
    sdk = client(proxy)
    messages = conversation("derive my session")
    first = sdk.chat.completions.with_raw_response.create(model="gpt-test", messages=messages)
    messages += [
        {"role": "assistant", "content": first.parse().choices[0].message.content},
        {"role": "user", "content": "next"},
    ]
    second = sdk.chat.completions.with_raw_response.create(model="gpt-test", messages=messages)
    other = sdk.chat.completions.with_raw_response.create(
        model="gpt-test", messages=conversation("another task")
    )
    session = first.headers["x-ctxbudget-session"]
    assert session.startswith("auto-")
    assert second.headers["x-ctxbudget-session"] == session
    assert other.headers["x-ctxbudget-session"] != session
    surface = [e for e in proxy.session(session)["history"] if "surface_op" in e]
    assert len(surface) == 4  # nothing logged twice


def test_history_rewritten_by_the_agent_is_replaced_in_the_log(
    client: Connect, proxy: Proxy
) -> None:
    sdk = client(proxy, "rewrite")
    sdk.chat.completions.create(model="gpt-test", messages=conversation("one", "two", "three"))
    sdk.chat.completions.create(model="gpt-test", messages=conversation("ONE", "two", "four"))
    session = proxy.session("rewrite")
    nodes = session["measurement"]["nodes"]
    by_seq = {e["seq"]: e for e in session["history"]}
    visible = [by_seq[n["seq"]] for n in nodes]
    texts = [b["text"] for e in visible for b in e["data"]["content"] if b.get("type") == "text"]
    assert texts[:3] == ["ONE", "two", "four"]
    assert visible[0]["type"] == "context/message"  # the placeholder over the old span
    assert visible[0]["data"]["content"] == []


def test_invalid_session_header_is_a_400_in_openai_shape(client: Connect, proxy: Proxy) -> None:
    with pytest.raises(openai.BadRequestError) as bad:
        client(proxy, "x" * 300).chat.completions.create(
            model="gpt-test", messages=conversation("hi")
        )
    assert bad.value.code == "invalid_session_id"


def test_a_client_that_hangs_up_after_the_last_event_still_gets_the_call_logged(
    proxy: Proxy,
) -> None:
    body = {"model": "gpt-test", "messages": conversation("hang up"), "stream": True}
    headers = {"x-ctxbudget-session": "hung-up", "authorization": f"Bearer {KEY}"}
    with (
        httpx.Client(timeout=10) as own,
        own.stream("POST", proxy.url + "/v1/chat/completions", json=body, headers=headers) as r,
    ):
        for line in r.iter_lines():
            if line == "data: [DONE]":
                break  # leave at once: the connection closes with the stream
    history = proxy.session("hung-up")["history"]
    assert [e["type"] for e in history if "surface_op" in e] == [
        "user/message",
        "assistant/message",
    ]
