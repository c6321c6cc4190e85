"""``--model NAME`` on count, context and fit: the model's tokenizer, window and prices."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from ctxbudget.models import input_cost, model_info
from ctxbudget.tokens import get_counter
from tests.cli.conftest import tool_heavy_body


def test_count_with_a_model_uses_its_tokenizer_and_shows_its_limits(runner: CliRunner) -> None:
    text = "def add(a, b):\n    return a + b  # 加法\n"
    result = runner.invoke(main, ["count", "-", "--model", "gpt-4o"], input=text)
    assert result.exit_code == 0, result.output
    info = model_info("gpt-4o")
    counter = get_counter(info.counter_spec)
    lines = result.stdout.splitlines()
    assert lines[0] == f"input\tchars\t{counter.name}"
    assert lines[1] == f"-\t{len(text)}\t{counter.count(text)}"
    assert "window\t128,000" in lines
    assert "max_output\t16,384" in lines
    assert "input_price\t$2.5/Mtok (base tier)" in lines


def test_count_takes_a_counter_or_a_model_not_both(runner: CliRunner) -> None:
    result = runner.invoke(main, ["count", "-", "--model", "gpt-4o", "--counter", "cjk"], input="")
    assert result.exit_code == ExitCode.USAGE


def test_an_unknown_model_is_one_error_line(runner: CliRunner) -> None:
    result = runner.invoke(main, ["count", "-", "--model", "no-such-model-x"], input="hi")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith("ctxbudget: error [unknown_model]: ")
    assert "Traceback" not in result.output


def test_context_with_a_model_takes_its_window_reserve_and_price(
    runner: CliRunner, body_path: Path
) -> None:
    args = ["context", str(body_path), "--model", "gpt-4o", "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    info = model_info("gpt-4o")
    assert shown["window"] == 128_000
    # the body sets no output limit, so the model's maximum output is reserved
    assert shown["output_reserve"] == info.max_output_tokens
    assert shown["input_cap"] == 128_000 - 16_384
    assert shown["counter"] == get_counter(info.counter_spec).name
    cost = input_cost(info, shown["input_tokens"])
    assert Decimal(shown["price"]["input_usd"]) == cost
    assert shown["price"]["near_tier_above_tokens"] is None


def test_context_warns_when_a_request_nears_a_price_cliff(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Claude Sonnet 4.5 doubles its input price above 200,000 tokens (docs/models.md)."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": "lorem ipsum dolor sit amet " * 28_000}],
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(body), "utf-8")
    args = ["context", str(path), "--model", "claude-sonnet-4-5", "--counter", "chars4"]
    args += ["--format", "anthropic"]
    shown = json.loads(runner.invoke(main, [*args, "--json"]).stdout)
    assert 180_000 <= shown["input_tokens"] < 200_000
    assert shown["price"]["near_tier_above_tokens"] == 200_000
    view = " ".join(runner.invoke(main, args).stdout.split())  # as one line, however wrapped
    assert "near the price cliff: above 200,000 input tokens" in view


def test_context_takes_a_model_or_a_window_not_both(runner: CliRunner, body_path: Path) -> None:
    args = ["context", str(body_path), "--model", "gpt-4o", "--window", "1000"]
    assert runner.invoke(main, args).exit_code == ExitCode.USAGE


def test_fit_with_a_model_never_sends_more_than_its_window_allows(
    runner: CliRunner, tmp_path: Path
) -> None:
    """A budget above the model's cap is held to the cap (window minus output reserve)."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps(tool_heavy_body(turns=40, output_chars=20_000)), "utf-8")
    before = runner.invoke(main, ["context", str(path), "--model", "gpt-4o", "--json"])
    assert json.loads(before.stdout)["pressure"] == "critical"  # over the cap as it is
    args = ["fit", str(path), "--max-input", "10000000", "--model", "gpt-4o"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "stages run: none" not in result.stderr
    sent = tmp_path / "sent.json"
    sent.write_text(result.stdout, "utf-8")
    shown = json.loads(
        runner.invoke(main, ["context", str(sent), "--model", "gpt-4o", "--json"]).stdout
    )
    assert shown["input_tokens"] <= shown["input_cap"]
