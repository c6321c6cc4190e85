"""The proxy's hot path: plain ASGI ahead of the framework, one parse per body, and the
log's message units reused across calls; none of it may change what the proxy does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import BudgetExceeded, ConfigError
from ctxbudget.formats import RequestCache, parse_request
from ctxbudget.server import ServerSettings, create_app
from ctxbudget.server.mirror import cached_units, message_units
from ctxbudget.testing.provider import StubProvider, serve_in_thread
from tests.server.conftest import Proxy


def chat(*turns: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    for index, text in enumerate(turns):
        messages.append({"role": "user" if index % 2 == 0 else "assistant", "content": text})
    return {"model": "gpt-4o", "messages": messages}


def test_framework_route_serves_the_same_proxy_as_the_fast_path(
    stub: tuple[StubProvider, str], tmp_path: Path, http: httpx.Client
) -> None:
    """A call that the framework routes (the fast path bypassed) is enforced, forwarded,
    passed back byte for byte and logged just as one on the fast path."""
    provider, stub_url = stub
    settings = ServerSettings(
        upstreams={"openai": stub_url + "/v1"},
        ledger_url=f"sqlite:///{tmp_path}/ledger.sqlite",
        budget=BudgetConfig(max_input_tokens=100_000),
    )
    app = create_app(settings)

    async def framework_only(scope: Any, receive: Any, send: Any) -> None:
        await FastAPI.__call__(app, scope, receive, send)

    body = json.dumps(chat("hello", "hi", "go on")).encode()
    answers = {}
    for name, served in (("fast", app), ("framework", framework_only)):
        with serve_in_thread(served) as url:
            session = f"route-{name}"
            answer = http.post(
                url + "/v1/chat/completions",
                content=body,
                headers={"content-type": "application/json", "x-ctxbudget-session": session},
            )
            assert answer.status_code == 200, answer.text
            assert answer.headers["x-ctxbudget-session"] == session
            assert provider.calls[-1].body == body  # forwarded byte for byte
            logged = http.get(f"{url}/sessions/{session}").json()
            answers[name] = (answer.content, [e["type"] for e in logged["history"]])
    assert answers["fast"] == answers["framework"]


def test_proxy_route_before_startup_is_a_503_in_the_providers_shape() -> None:
    """A call that reaches the proxy before its state is open gets a clean provider error."""
    app = create_app(ServerSettings(upstreams={"openai": "http://127.0.0.1:9/v1"}))
    transport = httpx.ASGITransport(app=app)  # runs no lifespan: the state is not open

    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://proxy") as client:
            return await client.post("/v1/chat/completions", json=chat("hello"))

    answer = asyncio.run(call())
    assert answer.status_code == 503
    assert answer.json()["error"]["type"] == "server_error"


def _outcome(body: dict[str, Any], config: BudgetConfig, **options: Any) -> Any:
    try:
        done = enforce_budget(body, config, format="openai", **options)
    except BudgetExceeded as refused:
        return ("refused", str(refused))
    return (done.body, done.info, done.estimate_before, done.estimate_after)


def test_enforcement_given_the_callers_parse_decides_the_same() -> None:
    """``parsed=`` only saves the second parse: the outcome (the body as it is, a
    trimmed one, or a refusal) is the one without it."""
    config = BudgetConfig(max_input_tokens=1000)
    outcomes = set()
    for body in (chat("short"), chat("q", "x" * 50_000, "ask"), chat("x " * 4000)):
        cache = RequestCache()
        alone = _outcome(body, config, cache=cache)
        parsed = parse_request(body, "openai", cache=cache)
        assert _outcome(body, config, cache=cache, parsed=parsed) == alone
        outcomes.add("refused" if alone[0] == "refused" else alone[1].compressed)
    assert outcomes == {False, True, "refused"}  # each path of the enforcement was taken


def test_enforcement_refuses_a_parse_of_another_body() -> None:
    """A parse that is not of this very body (or of another format) is a ConfigError,
    never a silently wrong decision."""
    body = chat("hello")
    other = parse_request(chat("hello"), "openai")
    with pytest.raises(ConfigError, match="this very body"):
        enforce_budget(body, BudgetConfig(max_input_tokens=100), parsed=other)
    mine = parse_request(body, "openai")
    with pytest.raises(ConfigError, match="not anthropic"):
        enforce_budget(body, BudgetConfig(max_input_tokens=100), format="anthropic", parsed=mine)


_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(turns=st.lists(_TEXT, min_size=1, max_size=8), more=st.lists(_TEXT, max_size=3))
def test_cached_units_are_the_units_of_the_messages_call_after_call(
    turns: list[str], more: list[str]
) -> None:
    """Units looked up in the cache (the re-sent messages of a growing conversation,
    decoded anew each call) are exactly the units computed afresh."""
    cache = RequestCache()
    for body in (chat(*turns), chat(*turns, *more), chat(*turns, *more)):
        fresh = json.loads(json.dumps(body))  # as a proxy gets each body
        messages = parse_request(fresh, "openai", cache=cache).messages()
        assert cached_units(messages, cache) == message_units(messages)


def test_proxy_logs_the_same_units_with_a_warm_cache(proxy: Proxy, http: httpx.Client) -> None:
    """Calls that re-send a history log only what each adds, as before the cache."""
    session = "fast-units"
    headers = {"x-ctxbudget-session": session}
    history = chat("first", "ok", "second")
    for step in range(3):
        answer = http.post(proxy.url + "/v1/chat/completions", json=history, headers=headers)
        assert answer.status_code == 200, answer.text
        reply = answer.json()["choices"][0]["message"]["content"]
        history["messages"] += [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": f"step {step}"},
        ]
    logged = proxy.session(session)["history"]
    users = [e for e in logged if e["type"] == "user/message"]
    assert [u["data"]["content"][0]["text"] for u in users] == [
        "first",
        "second",
        "step 0",
        "step 1",
    ]


def test_tool_declarations_decoded_anew_are_priced_once_by_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent sends the same tools on every call, and a proxy decodes each body anew:
    the declarations are priced once, found by content after; declarations that differ
    in any value (even ``true`` for ``1``, equal in Python) are priced on their own."""
    import ctxbudget.enforce.estimate as estimate
    from ctxbudget.tokens import default_counter

    priced: list[int] = []
    real = estimate._price_tools

    def counting(tools: Any, counter: Any, overheads: Any) -> int:
        priced.append(len(tools))
        return real(tools, counter, overheads)

    monkeypatch.setattr(estimate, "_price_tools", counting)
    tool = {"type": "function", "function": {"name": "read", "parameters": {"x": 1}}}
    cache, counter = RequestCache(), default_counter()

    def price(declared: dict[str, Any]) -> int:
        body = json.loads(json.dumps({**chat("hello"), "tools": [declared]}))
        request = parse_request(body, "openai", cache=cache)
        return estimate.Pricer(counter, cache).segments(request).tools

    first = price(tool)
    assert [price(tool) for _ in range(3)] == [first] * 3
    assert len(priced) == 1  # found by content three times
    changed = {"type": "function", "function": {"name": "read", "parameters": {"x": True}}}
    assert price(changed) == real(
        parse_request({**chat("hello"), "tools": [changed]}, "openai").tools,
        counter,
        estimate.DEFAULT_OVERHEADS,
    )
    assert len(priced) == 2  # the changed declarations were priced on their own


def test_cookies_an_upstream_sets_never_reach_another_call(
    tmp_path: Path, http: httpx.Client
) -> None:
    """The proxy keeps no cookie jar: a ``Set-Cookie`` in one agent's answer passes back
    to that agent and is never sent upstream with a later call (its own or another's)."""
    seen: list[dict[str, str]] = []

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        body = json.dumps(
            {
                "id": "c",
                "object": "chat.completion",
                "model": "gpt-4o",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 1},
            }
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"set-cookie", b"__cf_bm=agent-a")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    with serve_in_thread(upstream) as upstream_url:
        settings = ServerSettings(
            upstreams={"openai": upstream_url + "/v1"},
            ledger_url=f"sqlite:///{tmp_path}/ledger.sqlite",
        )
        with serve_in_thread(create_app(settings)) as url:
            for agent in ("a", "b"):
                answer = httpx.post(
                    url + "/v1/chat/completions",
                    json=chat(f"hello from {agent}"),
                    headers={"x-ctxbudget-session": f"cookie-{agent}"},
                )
                assert answer.status_code == 200, answer.text
                assert answer.headers["set-cookie"] == "__cf_bm=agent-a"
    assert len(seen) == 2
    assert all("cookie" not in headers for headers in seen)
