"""``ctxbudget fit`` (alias ``enforce``) and ``ctxbudget archive``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.models import model_info
from ctxbudget.tokens import default_counter, get_counter
from tests.cli.conftest import RESPONSES_BODY, tool_heavy_body


def test_fit_writes_what_enforce_returns(runner: CliRunner, tmp_path: Path) -> None:
    """The CLI adds nothing: the body written is the library's ``enforce`` result."""
    body = {k: v for k, v in tool_heavy_body().items() if k != "model"}
    path = tmp_path / "no_model.json"
    path.write_text(json.dumps(body), "utf-8")
    result = runner.invoke(main, ["fit", str(path), "--max-input", "2500"])
    assert result.exit_code == 0, result.output
    expected = enforce_budget(body, BudgetConfig(max_input_tokens=2500), counter=default_counter())
    assert json.loads(result.stdout) == expected.body
    assert "stages run: turn_trim" in result.stderr
    assert f"-> {expected.estimate_after:,} tokens" in result.stderr


def test_fit_reads_the_body_s_model_as_model_would(runner: CliRunner, body_path: Path) -> None:
    """A model the body names (gpt-4o here) is used as ``--model`` would be: its exact
    tokenizer guards the budget and its window caps it; a note says where it came from."""
    from_body = runner.invoke(main, ["fit", str(body_path), "--max-input", "2500"])
    as_option = runner.invoke(
        main, ["fit", str(body_path), "--max-input", "2500", "--model", "gpt-4o"]
    )
    assert from_body.exit_code == as_option.exit_code == 0, from_body.output
    assert from_body.stdout == as_option.stdout
    info = model_info("gpt-4o")
    expected = enforce_budget(
        tool_heavy_body(),
        BudgetConfig(max_input_tokens=2500),
        counter=get_counter(info.counter_spec),
        window=info.context_window or 0,
        output_reserve=info.max_output_tokens or 0,
    )
    assert json.loads(from_body.stdout) == expected.body
    assert "note: model gpt-4o from the body" in from_body.stderr
    assert "from the body" not in as_option.stderr


def test_fit_writes_to_a_file_with_o(runner: CliRunner, body_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "fitted.json"
    result = runner.invoke(main, ["fit", str(body_path), "--max-input", "2500", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert json.loads(out.read_text("utf-8"))["model"] == "gpt-4o"


def test_a_body_that_fits_is_written_unchanged(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["fit", str(body_path), "--max-input", "1000000"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == tool_heavy_body()
    assert "stages run: none" in result.stderr


def test_fit_reads_the_budget_from_an_agent_toml(
    runner: CliRunner, body_path: Path, tmp_path: Path
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text("[budget]\nmax_input_tokens = 2500\nno_such_key = 1\n", "utf-8")
    result = runner.invoke(main, ["fit", str(body_path), "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "budget 2,500" in result.stderr
    assert "note: config_invalid" in result.stderr  # the typo is reported, not ignored


def test_a_toml_without_a_budget_is_an_error_not_a_pass(
    runner: CliRunner, body_path: Path, tmp_path: Path
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text("[budget]\n", "utf-8")
    result = runner.invoke(main, ["fit", str(body_path), "--config", str(config)])
    assert result.exit_code == ExitCode.ERROR
    assert "nothing to fit to" in result.stderr
    assert result.stdout == ""


def test_archived_originals_are_listed_and_can_be_shown(
    runner: CliRunner, body_path: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "originals"
    # cjk: a fixed heuristic, so the budget below needs the tool-echo stage whatever the
    # default counter's profile
    args = ["fit", str(body_path), "--max-input", "900", "--counter", "cjk"]
    args += ["--archive", str(archive)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    locators = [
        line.rsplit(" ", 1)[-1]
        for line in result.stderr.splitlines()
        if line.startswith("archived:")
    ]
    assert locators, result.stderr
    shown = runner.invoke(main, ["archive", locators[0], "--dir", str(archive)])
    assert shown.exit_code == 0, shown.output
    assert ("output 0 " + "z" * 3000) in shown.stdout  # the whole original, not a stub


def test_enforce_is_an_alias_of_fit(runner: CliRunner, body_path: Path) -> None:
    fitted = runner.invoke(main, ["fit", str(body_path), "--budget", "2500"])
    aliased = runner.invoke(main, ["enforce", str(body_path), "--max-input", "2500"])
    assert aliased.exit_code == 0, aliased.output
    assert aliased.stdout == fitted.stdout


def test_fit_detects_a_responses_body_and_refuses_with_3(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(RESPONSES_BODY), "utf-8")
    fits = runner.invoke(main, ["fit", str(path), "--max-input", "100000"])
    assert fits.exit_code == 0, fits.output
    assert json.loads(fits.stdout) == RESPONSES_BODY
    refused = runner.invoke(main, ["fit", str(path), "--max-input", "10"])
    assert refused.exit_code == ExitCode.REFUSED


def test_a_budget_is_guarded_by_an_exact_tokenizer_or_the_conservative_default() -> None:
    """`fit --model` guards with the model's tokenizer only when it is exact; a calibrated
    estimate of it (Claude's, fitted from usage) gives way to the conservative default."""
    from ctxbudget.cli.options import guard_counter

    assert guard_counter(None, model_info("gpt-4o")).name.endswith("o200k_base")
    assert guard_counter(None, model_info("claude-sonnet-4-5")).name == default_counter().name
    assert guard_counter("chars4", model_info("claude-sonnet-4-5")).name == "chars4"
