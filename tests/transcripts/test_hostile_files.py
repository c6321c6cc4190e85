"""Hostile transcript files are one ``TranscriptError`` naming the file, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxbudget.errors import TranscriptError
from ctxbudget.transcripts import read_transcript


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_json_nested_past_the_parser_limit_is_a_transcript_error(
    tmp_path: Path, opening: str
) -> None:
    """The json module's RecursionError on deep nesting must not escape as a bug."""
    path = tmp_path / "deep.json"
    closing = "]" if opening == "[" else "}"
    path.write_text(opening * 100_000 + "1" + closing * 100_000, "utf-8")
    with pytest.raises(TranscriptError, match="nested too deeply") as caught:
        read_transcript(path)
    assert "deep.json" in str(caught.value)


def test_deep_nesting_inside_a_markdown_fence_is_a_transcript_error(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    path.write_text("# run\n```json\n" + "[" * 100_000 + "]" * 100_000 + "\n```\n", "utf-8")
    with pytest.raises(TranscriptError, match="nested too deeply"):
        read_transcript(path)
