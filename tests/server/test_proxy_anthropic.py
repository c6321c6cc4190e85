"""The proxy seen through the official anthropic SDK: Anthropic Messages."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import pytest

from ctxbudget.enforce import BudgetConfig
from ctxbudget.testing.provider import OUTPUT_TOKENS, StubProvider, prompt_tokens
from tests.server.conftest import SHORT_UPSTREAM_TIMEOUT_S, MakeProxy, Proxy, sdk_connector

KEY = "sk-ant-test-secret-0123456789"
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]

Connect = Callable[..., anthropic.Anthropic]


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[Any]:
    """One HTTP client for every SDK client of the module (building one costs ~0.1 s)."""
    with anthropic.DefaultHttpxClient(timeout=10) as shared:
        yield shared


@pytest.fixture
def client(sdk_http: Any) -> Connect:
    """Opens SDK clients on a proxy (``client(proxy, session)``) over the module's HTTP client."""
    return sdk_connector(anthropic.Anthropic, KEY, sdk_http)


def ask(sdk: anthropic.Anthropic, messages: list[Any], **kwargs: Any) -> Any:
    kwargs.setdefault("model", "claude-test")
    return sdk.messages.create(max_tokens=256, system="You are terse.", messages=messages, **kwargs)


def test_answer_passes_through_and_its_usage_anchors_the_session(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    sdk = client(proxy, "claude-anchored")
    answer = ask(sdk, [{"role": "user", "content": "hello"}])
    assert answer.content[0].text.startswith("stub answer")
    received = stub[0].calls[-1]
    # The SDK sends its key as x-api-key or as a bearer token, depending on its version.
    sent_key = received.headers.get("x-api-key") or received.headers["authorization"]
    assert sent_key in (KEY, f"Bearer {KEY}")
    assert received.headers["anthropic-version"]
    session = proxy.session("claude-anchored")
    assert session["measurement"]["baseline"]["kind"] == "usage"
    assert session["measurement"]["total_tokens"] == prompt_tokens(received.body) + OUTPUT_TOKENS
    assert KEY not in json.dumps(session)


def test_streamed_answer_is_logged_with_the_usage_of_its_events(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    sdk = client(proxy, "claude-streamed")
    with sdk.messages.stream(
        model="claude-test", max_tokens=256, messages=[{"role": "user", "content": "stream"}]
    ) as stream:
        text = "".join(stream.text_stream)
    assert text.startswith("stub answer")
    answer = [
        e for e in proxy.session("claude-streamed")["history"] if e["type"] == "assistant/message"
    ][-1]
    assert answer["data"]["content"] == [{"type": "text", "text": text}]
    assert answer["data"]["usage"] == {
        "input_tokens": prompt_tokens(stub[0].calls[-1].body),
        "output_tokens": OUTPUT_TOKENS,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }


@pytest.mark.parametrize("stream", [False, True])
def test_tool_use_round_trip_is_logged_as_call_and_result(
    client: Connect, proxy: Proxy, stream: bool
) -> None:
    session = f"claude-tools-{stream}"
    sdk = client(proxy, session)
    messages: list[Any] = [{"role": "user", "content": "read a.py"}]
    if stream:
        with sdk.messages.stream(
            model="stub-tool",
            max_tokens=256,
            system="You are terse.",
            messages=messages,
            tools=TOOLS,
        ) as events:
            first = events.get_final_message()
    else:
        first = ask(sdk, messages, model="stub-tool", tools=TOOLS)
    use = first.content[0]
    assert use.type == "tool_use"
    assert use.input == {"path": "a.py"}
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "print('a')"}],
        },
    ]
    ask(sdk, messages, tools=TOOLS)
    surface = [e for e in proxy.session(session)["history"] if "surface_op" in e]
    assert [e["type"] for e in surface] == [
        "user/message",
        "assistant/message",
        "tool/result",
        "assistant/message",
    ]
    assert surface[1]["data"]["content"][0]["type"] == "tool-call"
    assert surface[2]["data"]["call_id"] == use.id


def test_over_budget_request_is_refused_as_invalid_request_error(
    client: Connect, make_proxy: MakeProxy, stub: tuple[StubProvider, str]
) -> None:
    proxy = make_proxy(budget=BudgetConfig(max_input_tokens=50))
    before = len(stub[0].calls)
    with pytest.raises(anthropic.BadRequestError) as refused:
        ask(client(proxy, "claude-refused"), [{"role": "user", "content": "x " * 400}])
    assert refused.value.status_code == 400
    assert refused.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert "pending segment" in refused.value.message
    assert len(stub[0].calls) == before


@pytest.mark.parametrize(
    ("model", "status", "kind"),
    [
        ("stub-500-html", 502, "api_error"),
        ("stub-malformed", 502, "api_error"),
        ("stub-slow", 504, "api_error"),
    ],
)
def test_upstream_failure_is_a_clean_anthropic_error_and_nothing_is_logged(
    client: Connect, proxy: Proxy, make_proxy: MakeProxy, model: str, status: int, kind: str
) -> None:
    if model == "stub-slow":
        proxy = make_proxy(upstream_timeout_s=SHORT_UPSTREAM_TIMEOUT_S)
    with pytest.raises(anthropic.APIStatusError) as failed:
        ask(
            client(proxy, f"claude-failing-{status}"),
            [{"role": "user", "content": "hi"}],
            model=model,
        )
    assert failed.value.status_code == status
    assert failed.value.body["type"] == "error"  # type: ignore[index]
    assert failed.value.body["error"]["type"] == kind  # type: ignore[index]
    assert proxy.get(f"/sessions/claude-failing-{status}").status_code == 404


def test_broken_stream_ends_with_an_anthropic_error_event(client: Connect, proxy: Proxy) -> None:
    sdk = client(proxy, "claude-broken")
    with (
        pytest.raises(anthropic.APIStatusError, match="broke off"),
        sdk.messages.stream(
            model="stub-break", max_tokens=256, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        list(stream.text_stream)
    assert proxy.get("/sessions/claude-broken").status_code == 404
