"""The README's Python example runs as written (on a small body, in a fresh directory)."""

from __future__ import annotations

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_use_example_runs(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every call the Use section shows exists and works with the arguments it shows."""
    example = re.search(r"```python\n(.*?)```", README.read_text("utf-8"), re.S)
    assert example is not None, "the README lost its Python example"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.toml").write_text("[budget]\nmax_input_tokens = 150000\n", "utf-8")
    sent: list[object] = []
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "fix the test 测试"}]}
    namespace = {"body": body, "send": sent.append}
    exec(compile(example.group(1), str(README), "exec"), namespace)
    assert sent, "the example's request within budget was not sent"
    assert namespace["measurement"].log_revision == 0
