"""DirectoryArchive: originals on disk, content-addressed, read back whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxbudget.content import Message, TextBlock, ToolResultBlock
from ctxbudget.enforce import HANDLE_PREFIX, BudgetConfig, DirectoryArchive, Original, enforce
from ctxbudget.errors import ConfigError
from tests.enforce.test_enforce import tool_conversation
from tests.formats.strategies import openai_body


def original(text: str = "the whole tool output") -> Original:
    block = ToolResultBlock("call_1", (TextBlock(text),))
    return Original("tool_output", (Message("tool", (block,)),), text, "call_1", "read_file")


def test_store_then_get_gives_the_original_back(tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path / "originals")
    handle = archive.store(original())
    assert handle.startswith(HANDLE_PREFIX)
    assert archive.get(handle) == original()
    assert len(list((tmp_path / "originals").glob("*.json"))) == 1


def test_the_same_original_gets_the_same_handle(tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path)
    assert archive.store(original()) == archive.store(original())
    assert archive.store(original("other")) != archive.store(original())
    assert not list(tmp_path.glob("*.tmp")), "no temporary file is left behind"


@pytest.mark.parametrize(
    "handle", ["nonsense", HANDLE_PREFIX + "ab", "ctxbudget-archive:" + "0" * 64]
)
def test_an_unknown_handle_is_a_clear_error(tmp_path: Path, handle: str) -> None:
    with pytest.raises(ConfigError, match="archive"):
        DirectoryArchive(tmp_path).get(handle)


def test_a_hash_collision_never_overwrites(tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path)
    handle = archive.store(original())
    (tmp_path / f"{handle.removeprefix(HANDLE_PREFIX)}.json").write_text("{}", "utf-8")
    with pytest.raises(ConfigError, match="nothing was overwritten"):
        archive.store(original())


def test_enforce_stubs_tool_outputs_that_can_be_read_back(tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path)
    body = openai_body(tool_conversation(outputs=8, size=5000))
    result = enforce(body, BudgetConfig(max_input_tokens=1500), format="openai", archive=archive)
    assert "drop_oldest_tool_echoes" in result.info.stages
    stubs = [
        m["content"]
        for m in result.body["messages"]
        if m["role"] == "tool" and m["content"].startswith("[tool_echo stripped")
    ]
    assert stubs
    handle = stubs[0].rsplit(" ", 1)[-1].rstrip("]")
    assert archive.get(handle).text == "0" + "y" * 5000
