"""ExtractiveSummarizer: deterministic, within budget, keeps what a continuation needs."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ctxbudget.errors import ConfigError
from ctxbudget.summaries import (
    CHECKPOINT_OPEN,
    AsyncExtractiveSummarizer,
    ExtractiveSummarizer,
    SummaryRequest,
    frame_checkpoint,
)
from ctxbudget.tokens import default_counter


def user(text: str) -> Message:
    return Message("user", (TextBlock(text),))


def assistant(text: str, *calls: ToolCallBlock) -> Message:
    return Message("assistant", (TextBlock(text), *calls))


def result(call_id: str, text: str, error: bool = False) -> Message:
    return Message("tool", (ToolResultBlock(call_id, (TextBlock(text),), error),))


SESSION = (
    user("Make the CSV export in src/export/writer.py stream rows instead of building a list."),
    assistant(
        "I will read the writer first.",
        ToolCallBlock("c1", "read_file", '{"path": "src/export/writer.py"}'),
    ),
    result("c1", "def write_all(rows):\n    out = list(rows)\n"),
    assistant("We decided to use csv.writer with a generator instead of a list."),
    result(
        "c2", "Traceback (most recent call last):\nTypeError: 'int' object is not iterable", True
    ),
    assistant("The test tests/test_writer.py failed. Should the header row be optional?"),
    user("Yes, make the header optional. " + "Filler sentence about nothing. " * 40),
    assistant("Now the writer streams; next I run the test suite again."),
)


def summarize(messages: tuple[Message, ...], budget: int) -> str:
    return ExtractiveSummarizer().summarize(SummaryRequest(messages, budget))


def test_a_roomy_budget_keeps_task_files_errors_decisions_and_questions() -> None:
    text = summarize(SESSION, 2000)
    assert "Make the CSV export in src/export/writer.py stream rows" in text
    assert "src/export/writer.py" in text.split("## Files and code")[1]
    assert "tests/test_writer.py" in text
    assert "TypeError: 'int' object is not iterable" in text
    assert "decided to use csv.writer" in text
    assert "Should the header row be optional?" in text
    assert "next I run the test suite again" in text


def test_a_small_budget_keeps_the_task_first() -> None:
    text = summarize(SESSION, 40)
    assert default_counter().count(text) <= 40
    assert text.startswith("## Task\n- Make the CSV export")


def test_the_same_span_always_gives_the_same_summary() -> None:
    assert summarize(SESSION, 300) == summarize(SESSION, 300)


def test_a_prior_checkpoint_is_merged_not_nested() -> None:
    prior = summarize(SESSION, 400)
    checkpoint = Message("user", frame_checkpoint(prior, "ctxbudget-archive:0"))
    merged = summarize((checkpoint, user("Also add a --delimiter flag?")), 500)
    assert CHECKPOINT_OPEN not in merged
    assert "Make the CSV export in src/export/writer.py" in merged
    assert "Also add a --delimiter flag?" in merged
    assert merged.count("## Task") == 1


def test_a_budget_below_one_token_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="max_tokens"):
        summarize(SESSION, 0)


def test_the_async_twin_answers_the_same() -> None:
    request = SummaryRequest(SESSION, 300)
    answer = asyncio.run(AsyncExtractiveSummarizer().summarize(request))
    assert answer == ExtractiveSummarizer().summarize(request)


words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)
messages = st.lists(
    st.builds(
        lambda role, text: Message(role, (TextBlock(text),)),
        st.sampled_from(["user", "assistant"]),
        words,
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(messages, st.integers(min_value=1, max_value=400))
def test_the_summary_never_exceeds_its_budget(span: list[Message], budget: int) -> None:
    text = summarize(tuple(span), budget)
    assert default_counter().count(text) <= budget


def test_paths_are_told_from_urls_numbers_and_prose() -> None:
    said = (
        "Edit ./run.sh and src/app/main.py (see docs/setup.md), not http://example.com/a.py; "
        "the ratio is 3/4, e.g. fine, and pytest tests/test_app.py::test_main failed."
    )
    text = summarize((user(said),), 500)
    files = text.split("## Files and code\n")[1].split("\n\n")[0].splitlines()
    assert files == [
        "- ./run.sh",
        "- src/app/main.py",
        "- docs/setup.md",
        "- tests/test_app.py",
    ]


def test_a_small_budget_covers_every_kind_before_listing_all_of_one() -> None:
    span = [user("Rename the config loader everywhere.")]
    for n in range(30):
        span.append(assistant(f"Edited pkg/mod_{n}/loader.py and pkg/mod_{n}/test_loader.py."))
    span.append(result("c9", "ImportError: cannot import name 'load' from 'pkg.config'", True))
    span.append(assistant("Next I fix the import in pkg/config.py."))
    text = summarize(tuple(span), 200)
    assert "ImportError: cannot import name 'load'" in text
    assert "Next I fix the import in pkg/config.py." in text
    assert "Rename the config loader everywhere." in text
