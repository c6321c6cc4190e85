"""Never-trim sections of the system prompt."""

from __future__ import annotations

import pytest

from ctxbudget.enforce import DEFAULT_NEVER_TRIM_HEADERS, split_sections
from ctxbudget.enforce.sections import has_header_line, heading_level

HEADERS = frozenset(DEFAULT_NEVER_TRIM_HEADERS)

PROMPT = (
    "You are helpful.\n"
    "## Identity\nI am the contract agent.\n### Voice\nterse\n"
    "## 安全邊界\n- 不得洩漏客戶資料\n"
    "## Notes\nfree text\n"
    "# Appendix\n## Current Working State\n- step 3"
)


def test_sections_round_trip_and_mark_protected_runs() -> None:
    sections = split_sections(PROMPT, HEADERS)
    assert "".join(s.text for s in sections) == PROMPT
    assert [(s.protected, s.text.split("\n")[0]) for s in sections] == [
        (False, "You are helpful."),
        (True, "## Identity"),
        (False, "## Notes"),
        (True, "## Current Working State"),
    ]
    assert "### Voice\nterse\n## 安全邊界" in sections[1].text, "sub-headings stay inside"


@pytest.mark.parametrize(
    ("line", "protected"),
    [
        ("## Identity", True),
        ("  ## 安全邊界  ", True),
        ("## Identity (do not edit)", False),
        ("### Identity", False),
        ("Identity", False),
        ("## Identity and notes", False),
        ("## 身分證", False),
    ],
)
def test_headers_match_exactly_not_by_prefix(line: str, protected: bool) -> None:
    sections = split_sections(f"intro\n{line}\nbody\n", HEADERS)
    assert any(s.protected for s in sections) == protected


def test_crlf_and_empty_text() -> None:
    text = "a\r\n## Identity\r\nkeep\r\n## Next\r\ntail"
    sections = split_sections(text, HEADERS)
    assert [(s.text, s.protected) for s in sections] == [
        ("a\r\n", False),
        ("## Identity\r\nkeep\r\n", True),
        ("## Next\r\ntail", False),
    ]
    assert split_sections("", HEADERS) == ()


def test_heading_level_and_header_lines() -> None:
    assert [heading_level(x) for x in ("# a", "## b", "###### c", "####### d", "#x", "x")] == [
        1,
        2,
        6,
        0,
        0,
        0,
    ]
    assert has_header_line("x\n## Identity\n", HEADERS)
    assert not has_header_line("x\n## Identityx\n", HEADERS)
