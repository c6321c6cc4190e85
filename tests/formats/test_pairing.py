"""The tool-pair rule: where a conversation may be cut."""

from __future__ import annotations

from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ctxbudget.content.pairing import check_pairs, is_safe_cut, safe_cut_points


def call(*ids: str) -> Message:
    return Message("assistant", tuple(ToolCallBlock(i, "f", "{}") for i in ids))


def result(*ids: str) -> Message:
    return Message("user", tuple(ToolResultBlock(i, (TextBlock("r"),)) for i in ids))


def text(role: str = "user") -> Message:
    return Message(role, (TextBlock("t"),))


CONVERSATION = [text(), call("a", "b"), result("a"), result("b"), text("assistant"), text()]


def test_safe_cut_points_skip_open_calls() -> None:
    assert safe_cut_points(CONVERSATION) == (0, 1, 4, 5, 6)


def test_is_safe_cut_agrees_with_safe_cut_points() -> None:
    points = set(safe_cut_points(CONVERSATION))
    for index in range(-1, len(CONVERSATION) + 2):
        assert is_safe_cut(CONVERSATION, index) == (index in points)


def test_check_pairs_reports_both_kinds_of_break() -> None:
    assert check_pairs(CONVERSATION).ok
    report = check_pairs([result("x"), call("y")])
    assert report.orphan_results == ("x",)
    assert report.unanswered_calls == ("y",)
    assert not report.ok
