"""The JSON service: count, context, fit, sessions, errors with stable codes, guards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxbudget.enforce import BudgetConfig
from ctxbudget.testing.ledger import assistant_message, user
from ctxbudget.testing.provider import StubProvider
from tests.server.conftest import MakeProxy, Proxy

BODY = {
    "model": "gpt-test",
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "hello there " * 50},
    ],
}


def assistant_with_usage(text: str, usage: dict[str, int]) -> dict[str, Any]:
    event = assistant_message(text)
    event["data"]["usage"] = usage
    return event


def test_health_answers_200_once_ready(proxy: Proxy) -> None:
    answer = proxy.get("/health")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}


def test_count_gives_one_count_per_text(proxy: Proxy) -> None:
    answer = proxy.post(
        "/count", json={"texts": ["hello world", "", "你好世界"], "counter": "chars4"}
    )
    assert answer.status_code == 200
    assert answer.json()["counts"][1] == 0
    assert len(answer.json()["counts"]) == 3


def test_context_breaks_a_body_down_by_segment(proxy: Proxy) -> None:
    answer = proxy.post("/context", json={"body": BODY, "format": "openai"}).json()
    segments = answer["segments"]
    assert segments["system"] > 0
    assert segments["pending"] > segments["system"]
    assert answer["total_tokens"] == sum(segments.values())


def test_fit_returns_the_body_or_the_refusal_with_its_numbers(proxy: Proxy) -> None:
    fits = proxy.post("/fit", json={"body": BODY, "format": "openai"}).json()
    assert fits["fits"] is True
    assert fits["body"] == BODY
    refused = proxy.post("/fit", json={"body": BODY, "max_input_tokens": 20}).json()
    assert refused["fits"] is False
    assert refused["refusal"]["code"] == "budget_exceeded"
    assert refused["refusal"]["largest_segment"] == "pending"
    assert refused["refusal"]["budget_tokens"] == 20


def test_sessions_append_measure_and_history(proxy: Proxy) -> None:
    events = [
        user("fix the test"),
        {"type": "step/start", "data": {"turn": 1, "step": 1}},
        {"type": "request/header", "data": {"header": {"config": {"provider": "p", "model": "m"}}}},
        assistant_with_usage("done", {"input_tokens": 500, "output_tokens": 20}),
        {"type": "step/end", "data": {"turn": 1, "step": 1}},
    ]
    appended = proxy.post("/sessions/svc/events", json={"events": events, "expected_revision": 0})
    assert appended.status_code == 200, appended.text
    assert appended.json() == {"seqs": [0, 1, 2, 3, 4], "revision": 5}
    measured = proxy.get("/sessions/svc/measure").json()
    assert measured["log_revision"] == 5
    assert measured["baseline"]["kind"] == "usage"
    assert measured["total_tokens"] == 520
    session = proxy.session("svc")
    assert [e["seq"] for e in session["history"]] == [0, 1, 2, 3, 4]
    assert "svc" in proxy.get("/sessions").json()["sessions"]
    later = proxy.get("/sessions/svc", params={"start": 2}).json()
    assert [e["seq"] for e in later["history"]] == [2, 3, 4]


def test_errors_are_json_with_the_stable_code(proxy: Proxy) -> None:
    missing = proxy.get("/sessions/nobody")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "session_not_found"
    proxy.post("/sessions/c/events", json={"events": [user("a")]})
    conflict = proxy.post(
        "/sessions/c/events", json={"events": [user("b")], "expected_revision": 0}
    )
    assert conflict.status_code == 409
    assert conflict.json()["error"]["code"] == "conflict"
    invalid = proxy.post("/sessions/c/events", json={"events": [{"type": "user/message"}]})
    assert invalid.status_code == 422
    assert invalid.json()["error"]["code"] == "invalid_event"
    shapeless = proxy.post("/count", json={"texts": "not a list"})
    assert shapeless.status_code == 400
    assert shapeless.json()["error"]["code"] == "format_error"
    unknown = proxy.post("/count", json={"texts": ["a"], "counter": "no-such-counter"})
    assert unknown.json()["error"]["code"] == "unknown_counter"
    bad_body = proxy.post("/context", json={"body": {"messages": "x"}, "format": "openai"})
    assert bad_body.status_code == 400
    assert bad_body.json()["error"]["code"] == "format_error"


def test_openapi_schema_lists_service_and_proxy_routes(proxy: Proxy) -> None:
    schema = proxy.get("/openapi.json").json()
    for path in ("/count", "/context", "/fit", "/sessions/{session_id}", "/v1/messages"):
        assert path in schema["paths"], path
    assert "/v1/chat/completions" in schema["paths"]


def test_bodies_over_the_limit_get_413_in_each_routes_shape(make_proxy: MakeProxy) -> None:
    proxy = make_proxy(max_body_bytes=1000)
    big = {"texts": ["x" * 2000]}
    service = proxy.post("/count", json=big)
    assert service.status_code == 413
    assert service.json()["error"]["code"] == "request_too_large"
    anthropic_shape = proxy.post("/v1/messages", json=big)
    assert anthropic_shape.status_code == 413
    assert anthropic_shape.json()["error"]["type"] == "request_too_large"
    chunked = proxy.post("/count", content=iter([b'{"texts": ["', b"x" * 2000, b'"]}']))
    assert chunked.status_code == 413


def test_api_token_guards_the_service_and_the_proxy_token_the_proxy(
    make_proxy: MakeProxy,
) -> None:
    proxy = make_proxy(api_token="service-secret", proxy_token="proxy-secret")
    assert proxy.get("/health").status_code == 200  # readiness probes need no token
    assert proxy.get("/sessions").status_code == 401
    assert proxy.get("/sessions").json()["error"]["code"] == "unauthorized"
    wrong = proxy.get("/sessions", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    right = proxy.get("/sessions", headers={"Authorization": "Bearer service-secret"})
    assert right.status_code == 200
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
    provider_key = {"Authorization": "Bearer sk-provider"}
    denied = proxy.post("/v1/chat/completions", json=body, headers=provider_key)
    assert denied.status_code == 401
    assert denied.json()["error"]["code"] == "unauthorized"
    allowed = proxy.post(
        "/v1/chat/completions",
        json=body,
        headers={**provider_key, "X-Ctxbudget-Token": "proxy-secret"},
    )
    assert allowed.status_code == 200


def test_route_without_upstream_says_how_to_configure_it(make_proxy: MakeProxy) -> None:
    proxy = make_proxy(upstreams={})
    answer = proxy.post("/v1/messages", json={"model": "m", "max_tokens": 5, "messages": []})
    assert answer.status_code == 404
    assert "--upstream-anthropic" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[1, 2]",
        b"",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the json module goes: RecursionError
        b'{"model": "m", "messages": [{"role": "user", "content": "\xff"}]}',  # not UTF-8
        b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": NaN}',
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
    ],
)
@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/messages"])
def test_proxy_body_that_is_not_a_json_object_is_a_400_and_never_sent(
    proxy: Proxy, stub: tuple[StubProvider, str], route: str, raw: bytes
) -> None:
    """Hostile bodies (too deep, not UTF-8, NaN, an unpaired surrogate) are refused in the
    provider's shape, never a 500, and never reach the upstream."""
    provider, _ = stub
    before = len(provider.calls)
    answer = proxy.post(route, content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert json.dumps(answer.json()).count("format_error") >= 1
    assert len(provider.calls) == before


def test_service_body_the_framework_cannot_parse_is_a_format_error(proxy: Proxy) -> None:
    """The framework's own refusals come in the service's error shape with a code."""
    deep = b'{"texts": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answer = proxy.post("/count", content=deep, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "format_error"
    unknown = proxy.get("/no/such/path")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"


def test_fit_uses_the_servers_budget_by_default(make_proxy: MakeProxy) -> None:
    proxy = make_proxy(budget=BudgetConfig(max_input_tokens=20))
    refused = proxy.post("/fit", json={"body": BODY}).json()
    assert refused["fits"] is False
    assert json.dumps(refused).count("budget_exceeded") == 1


def test_compact_replaces_the_oldest_span_and_the_measurement_drops(proxy: Proxy) -> None:
    events: list[dict[str, Any]] = []
    for turn in range(1, 9):
        events += [
            user(f"turn {turn}: " + "please look at the parser state again " * 40),
            {"type": "step/start", "data": {"turn": turn, "step": 1}},
            assistant_message(
                f"turn {turn} answer: " + "the parser keeps its state " * 40, turn=turn
            ),
            {"type": "step/end", "data": {"turn": turn, "step": 1}},
        ]
    assert proxy.post("/sessions/long/events", json={"events": events}).status_code == 200
    before = proxy.get("/sessions/long/measure").json()["total_tokens"]
    answer = proxy.post("/sessions/long/compact", json={"retain_tokens": 500})
    assert answer.status_code == 200, answer.text
    outcome = answer.json()
    assert outcome["outcome"] == "compacted"
    assert outcome["total_tokens_after"] < outcome["total_tokens_before"] == before
    assert (
        proxy.get("/sessions/long/measure").json()["total_tokens"]
        == (outcome["total_tokens_after"])
    )
    assert outcome["locator"]
    not_needed = proxy.post("/sessions/long/compact", json={"if_needed": True}).json()
    assert not_needed["outcome"] == "not_needed"


def test_context_detects_the_format_when_not_given(proxy: Proxy) -> None:
    body = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    body["system"] = [{"type": "text", "text": "be terse"}]
    answer = proxy.post("/context", json={"body": body}).json()
    assert answer["format"] == "anthropic"
