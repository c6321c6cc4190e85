"""The proxy seen through the official openai SDK: the OpenAI Responses API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from ctxbudget.enforce import BudgetConfig
from ctxbudget.testing.provider import OUTPUT_TOKENS, StubProvider, prompt_tokens
from tests.server.conftest import MakeProxy, Proxy, sdk_connector

KEY = "sk-test-responses-0123456789"
TOOLS = [
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
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


def test_answer_passes_through_and_its_usage_anchors_the_session(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    answer = client(proxy, "responses").responses.create(
        model="gpt-test", instructions="You are terse.", input="hello"
    )
    assert answer.output_text.startswith("stub answer")
    received = stub[0].calls[-1]
    assert received.path == "/v1/responses"
    assert received.headers["authorization"] == f"Bearer {KEY}"
    session = proxy.session("responses")
    logged = [e for e in session["history"] if e["type"] == "assistant/message"][-1]
    assert logged["data"]["content"][0]["text"] == answer.output_text
    assert session["measurement"]["baseline"]["kind"] == "usage"
    assert session["measurement"]["total_tokens"] == prompt_tokens(received.body) + OUTPUT_TOKENS


def test_streamed_answer_is_logged_from_its_completed_event(
    client: Connect, proxy: Proxy, stub: tuple[StubProvider, str]
) -> None:
    events = list(
        client(proxy, "responses-stream").responses.create(
            model="gpt-test", input="stream please", stream=True
        )
    )
    assert events[-1].type == "response.completed"
    session = proxy.session("responses-stream")
    logged = [e for e in session["history"] if e["type"] == "assistant/message"][-1]
    assert logged["data"]["usage"]["input_tokens"] == prompt_tokens(stub[0].calls[-1].body)


def test_function_call_round_trip_is_logged_as_call_and_result(
    client: Connect, proxy: Proxy
) -> None:
    sdk = client(proxy, "responses-tools")
    items: list[Any] = [{"role": "user", "content": "read a.py"}]
    first = sdk.responses.create(model="stub-tool", input=items, tools=TOOLS)
    call = first.output[0]
    assert call.type == "function_call"
    items += [
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "print('a')"},
    ]
    sdk.responses.create(model="gpt-test", input=items, tools=TOOLS)
    surface = [e for e in proxy.session("responses-tools")["history"] if "surface_op" in e]
    assert [e["type"] for e in surface] == [
        "user/message",
        "assistant/message",
        "tool/result",
        "assistant/message",
    ]
    assert surface[2]["data"]["call_id"] == call.call_id


def test_over_budget_request_is_refused_in_openai_shape(
    client: Connect, make_proxy: MakeProxy, stub: tuple[StubProvider, str]
) -> None:
    proxy = make_proxy(budget=BudgetConfig(max_input_tokens=50))
    before = len(stub[0].calls)
    with pytest.raises(openai.BadRequestError) as refused:
        client(proxy, "responses-refused").responses.create(model="gpt-test", input="x " * 400)
    assert refused.value.code == "context_length_exceeded"
    assert len(stub[0].calls) == before
