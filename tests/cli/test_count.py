"""``ctxbudget count``: tokens of texts, one column per counter."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.tokens import default_counter


def test_count_with_the_heuristic_counters(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("你好世界 hello", "utf-8")
    result = runner.invoke(main, ["count", str(path), "--counter", "cjk", "--counter", "chars4"])
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()
    assert header == "input\tchars\tcjk\tchars4"
    assert row.split("\t")[1:] == ["10", "7", "3"]


def test_count_reads_standard_input_with_the_default_counter(runner: CliRunner) -> None:
    text = "def f(x):\n    return x * 2\n"
    result = runner.invoke(main, ["count", "-"], input=text)
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()
    assert header.split("\t")[2] == default_counter().name
    assert row.split("\t") == ["-", str(len(text)), str(default_counter().count(text))]
