"""The quick start of docs/compaction.md runs as written (on a session that needs it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ctxbudget.ledger import open_ledger
from tests.compaction.sessions import conversation

DOC = Path(__file__).resolve().parents[2] / "docs" / "compaction.md"


def test_the_quick_start_compacts_and_gives_the_originals_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    with open_ledger("sqlite:///.ctxbudget/ledger.sqlite3") as ledger:
        conversation(ledger, "session-1", 40, body="word " * 3000)  # ~150k tokens
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    net, locator = capsys.readouterr().out.split()
    assert int(net) > 100_000
    assert locator.startswith("ctxbudget-archive:")
    assert namespace["original"].seqs  # type: ignore[attr-defined]
    assert os.listdir(tmp_path / ".ctxbudget" / "originals")
    namespace["ledger"].close()  # type: ignore[attr-defined]
