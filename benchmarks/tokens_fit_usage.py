"""Fit the ``claude`` profile to recorded provider usage, and judge it on held-out runs.

    .venv/bin/python benchmarks/tokens_fit_usage.py [PATH/TO/claude-code-vecsum] [--write]

No Claude tokenizer is public, but every call of a Claude Code headless run
(stream-json) reports its prompt size (input + cache read + cache write tokens). Between
two calls of a run the prompt grows by the provider's count of what was added: the first
call's text and tool calls, and the tool results that came back. Those ``(texts,
growth)`` deltas are what ``fit_profile_from_usage`` fits. Runs are split by a hash of
their file name: the profile is fitted on the ``"fit"`` half and judged on the
``"check"`` half, against ``central`` (the profile the meter used to predict Claude with):
per-delta mean absolute error and the bias of the summed count, in percent of the growth.
``--write`` saves ``src/ctxbudget/tokens/profiles/claude.json`` (coefficients only).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import (
    CalibratedCounter,
    Profile,
    builtin_profile,
    fit_profile_from_usage,
    save_profile,
)

CORPUS = Path(__file__).resolve().parents[2] / "shared/corpus/transcripts/claude-code-vecsum"
PROFILE = Path(__file__).resolve().parents[1] / "src/ctxbudget/tokens/profiles/claude.json"
Delta = tuple[list[str], int]
PRIOR_STRENGTH = float(os.environ.get("PRIOR_STRENGTH", "0.1"))


def _events(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if "## Raw JSON Output" not in text:
        return []
    body = text[text.index("```json", text.index("## Raw JSON Output")) :].split("\n", 2)[2]
    document, _ = json.JSONDecoder().raw_decode(body)
    events = document.get("_RESPONSE") if isinstance(document, dict) else None
    return events if isinstance(events, list) else []


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
    return ""


def _calls(events: list[dict[str, Any]]) -> list[tuple[int, list[str]]]:
    """Main-thread calls in order: (reported prompt size, texts added after it)."""
    calls: dict[str, tuple[list[int], list[str]]] = {}
    last: list[str] | None = None
    for event in events:
        if event.get("parent_tool_use_id"):
            continue  # a sub-agent's own conversation
        message = event.get("message", {})
        if event.get("type") == "assistant" and message.get("model") != "<synthetic>":
            usage = message.get("usage", {})
            prompt = sum(
                usage.get(k, 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
            size, last = calls.setdefault(message["id"], ([0], []))
            size[0] = prompt
            for block in message.get("content", []):
                if block.get("type") == "text":
                    last.append(block.get("text", ""))
                elif block.get("type") == "tool_use":
                    last.append(json.dumps(block.get("input", {}), ensure_ascii=False))
        elif event.get("type") == "user" and last is not None:
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    last.append(_result_text(block.get("content", "")))
    return [(size[0], texts) for size, texts in calls.values()]


def deltas_of(path: Path) -> Iterator[Delta]:
    """(texts added, prompt growth) between consecutive calls of one run."""
    calls = _calls(_events(path))
    for (before, texts), (after, _) in pairwise(calls):
        if before and after:
            yield texts, after - before


def split(corpus: Path) -> dict[str, list[Delta]]:
    halves: dict[str, list[Delta]] = {"fit": [], "check": []}
    for path in sorted(corpus.rglob("*_RESPONSE.md")):
        half = "fit" if hashlib.sha256(path.name.encode()).digest()[0] % 2 == 0 else "check"
        halves[half].extend(deltas_of(path))
    return halves


def judge(profile: Profile | str, deltas: list[Delta]) -> tuple[float, float]:
    """Per-delta mean absolute error and the summed bias, in % of the growth."""
    counter = CalibratedCounter(profile)
    predicted = [sum(counter.count(t) for t in texts) for texts, _ in deltas]
    growth = [g for _, g in deltas]
    errors = [abs(p - g) / g * 100 for p, g in zip(predicted, growth, strict=True)]
    return statistics.fmean(errors), (sum(predicted) / sum(growth) - 1) * 100


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--write"]
    corpus = Path(args[0]) if args else CORPUS
    halves = split(corpus)
    usable = {k: [d for d in v if d[1] > 0 and any(d[0])] for k, v in halves.items()}
    claude = fit_profile_from_usage(
        usable["fit"],
        name="claude",
        prior=builtin_profile("central"),
        prior_strength=PRIOR_STRENGTH,
        about="fitted with fit_profile_from_usage to the prompt growth Claude Sonnet 4.5 and "
        f"Opus 4.5 reported over {len(usable['fit'])} call-to-call deltas of Claude Code runs, "
        f"pulled towards central (strength {PRIOR_STRENGTH})",
    )
    print(f"deltas: {len(usable['fit'])} fitted on, {len(usable['check'])} held out")
    print(f"{'profile':10s} {'half':6s} {'mae %':>7s} {'bias %':>7s}")
    for half in ("fit", "check"):
        for name, profile in (("claude", claude), ("central", "central"), ("generic", "generic")):
            mae, bias = judge(profile, usable[half])
            print(f"{name:10s} {half:6s} {mae:7.1f} {bias:+7.1f}")
    if "--write" in sys.argv:
        save_profile(claude, PROFILE)
        print(f"wrote {PROFILE}")


if __name__ == "__main__":
    main()
