"""Least lossy first inside every stage: oldest first, the task last, stop at the first fit."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxbudget.enforce import BudgetConfig, DropOldestToolEchoes, TurnTrim, enforce_budget
from ctxbudget.enforce.stage import StageContext
from ctxbudget.enforce.trim import trim_order
from ctxbudget.formats import Request, parse_request
from ctxbudget.tokens import CJKCounter
from tests.enforce.stages import stage_context
from tests.formats.strategies import bodies

COUNTER = CJKCounter()


def agent_body(exchanges: int = 10) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "## Identity\nYou are the coding agent."},
        {"role": "user", "content": "The task: " + "fix the parser so that " * 150},
    ]
    for n in range(exchanges):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": f"file {n}: " + "code " * 600},
            {"role": "assistant", "content": f"step {n}: " + "I read the file and " * 60},
            {"role": "user", "content": f"go on with {n}"},
        ]
    messages[-1] = {"role": "user", "content": "next?"}
    return {"model": "gpt-4o", "messages": messages}


def test_when_trimming_a_few_old_turns_is_enough_the_task_is_intact() -> None:
    """Issue 11: at a 90 % budget the result used 39-83 % of it and the task was cut."""
    body = agent_body()
    full = enforce_budget(body, BudgetConfig(), counter=COUNTER).estimate_before
    budget = int(full * 0.9)
    result = enforce_budget(body, BudgetConfig(max_input_tokens=budget), counter=COUNTER)
    assert result.info.stages == ("turn_trim",)
    assert budget * 0.85 <= result.estimate_after <= budget, "at least 85 % of the budget used"
    sent = result.body["messages"]
    assert sent[1] == body["messages"][1], "the task (the first user message) is intact"
    changed = [i for i, (a, b) in enumerate(zip(sent, body["messages"], strict=True)) if a != b]
    assert changed, "something was trimmed"
    assert max(changed) < len(sent) // 2, "only old turns were touched"
    assert sent[-8:] == body["messages"][-8:], "the most recent turns are untouched"


def test_the_task_is_trimmed_last_of_all() -> None:
    request = parse_request(agent_body(3), "openai")
    order = trim_order(request.conversation)
    assert request.conversation[order[-1]].message.role == "user"
    assert order[-1] == 0, "the task is the first history turn and the last one trimmed"
    assert order[:-1] == sorted(order[:-1]), "the others oldest first"


def _cases() -> st.SearchStrategy[tuple[Request, StageContext]]:
    def build(case: tuple[str, dict[str, Any]], fraction: float) -> tuple[Request, StageContext]:
        fmt, body = case
        request = parse_request(body, fmt)
        total = stage_context(0).pricer.segments(request).total
        return request, stage_context(int(total * fraction), tool_outputs_kept=0)

    return st.builds(build, bodies(), st.floats(0.05, 1.0))


def _changed(before: Request, after: Request | None) -> list[int]:
    if after is None:
        return []
    pairs = zip(before.conversation, after.conversation, strict=True)
    return [i for i, (a, b) in enumerate(pairs) if a.message != b.message]


def _with_reverted(original: Request, result: Request, index: int) -> Request:
    turns = list(result.conversation)
    turns[index] = original.conversation[index]
    return result.with_conversation(tuple(turns))


PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(_cases())
def test_turn_trim_changes_no_turn_a_fitting_result_could_leave_untouched(
    case: tuple[Request, StageContext],
) -> None:
    """The changed turns are a prefix of the stage's order, and without the last one the
    request would not fit."""
    request, context = case
    result = TurnTrim().trim(request, context)
    changed = _changed(request, result)
    if result is None:
        return
    order = trim_order(request.conversation)
    positions = sorted(order.index(i) for i in changed)
    last = positions[-1]
    alone = TurnTrim().trim(request, stage_context(0))  # every trimmable turn trimmed
    trimmable = set(_changed(request, alone))
    assert {order[p] for p in range(last + 1)} & trimmable == set(changed), "no gaps"
    assert not context.fits(_with_reverted(request, result, order[last])), "stopped at the fit"


@PROPERTY
@given(_cases())
def test_echo_stubs_change_no_output_a_fitting_result_could_leave_untouched(
    case: tuple[Request, StageContext],
) -> None:
    """Stubs go oldest first; without the newest stub the request would not fit."""
    request, context = case
    result = _run(DropOldestToolEchoes().run(request, context))
    changed = _changed(request, result)
    if result is None:
        return
    everything = _run(DropOldestToolEchoes().run(request, stage_context(0, tool_outputs_kept=0)))
    stubbable = _changed(request, everything)
    assert changed == stubbable[: len(changed)], "oldest first, no gaps"
    assert not context.fits(_with_reverted(request, result, changed[-1])), "stopped at the fit"


def _run(flow: Any) -> Request | None:
    try:
        next(flow)
    except StopIteration as done:
        result: Request | None = done.value
        return result
    raise AssertionError("no archive was given, so the stage must not ask for one")


def test_the_summary_keeps_the_task_and_covers_the_fewest_old_turns_that_fit() -> None:
    body = agent_body(12)
    full = enforce_budget(body, BudgetConfig(), counter=COUNTER).estimate_before
    for fraction in (0.1, 0.05):
        budget = int(full * fraction)
        config = BudgetConfig(max_input_tokens=budget, summarizer="extractive")
        result = enforce_budget(body, config, counter=COUNTER)
        assert result.info.stages[-1] == "summarize"
        sent = result.body["messages"]
        assert sent[1]["content"].startswith("## Summary of earlier conversation")
        # turn_trim ran first over every turn, the task last; the summary then keeps it
        assert first_user(sent)["content"].startswith("The task: fix the parser")
        assert result.estimate_after <= budget
        assert result.estimate_after >= budget * 0.5, "no more history summarized than needed"


def first_user(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return next(m for m in messages if m["role"] == "user")
