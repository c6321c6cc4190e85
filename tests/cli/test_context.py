"""``ctxbudget context`` (alias ``meter``): the /context breakdown of a request."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.formats import meter_request, parse_request
from ctxbudget.tokens import get_counter
from tests.cli.conftest import RESPONSES_BODY, tool_heavy_body


def _json(runner: CliRunner, *args: str) -> dict[str, object]:
    result = runner.invoke(main, ["context", *args, "--json"])
    assert result.exit_code == 0, result.output
    loaded: dict[str, object] = json.loads(result.stdout)
    return loaded


def test_json_breakdown_equals_the_library_meter(runner: CliRunner, body_path: Path) -> None:
    """The CLI adds nothing: its segment figures are meter_request's, summed into the input."""
    shown = _json(runner, str(body_path), "--window", "128000", "--counter", "cjk")
    expected = meter_request(parse_request(tool_heavy_body(), "openai"), get_counter("cjk"))
    segments = {s["segment"]: s["tokens"] for s in shown["segments"]}  # type: ignore[attr-defined]
    assert segments == {u.segment: u.tokens for u in expected.segments() if u.tokens}
    assert shown["input_tokens"] == expected.total()
    assert shown["free_tokens"] == 128_000 - expected.total()
    assert shown["pressure"] == "normal"
    assert shown["counter"] == "cjk"


def test_window_is_honoured_without_max_tokens(runner: CliRunner, body_path: Path) -> None:
    """Issue 11: a body with no output limit used to read as 'cap unknown, critical'."""
    shown = _json(runner, str(body_path), "--window", "128000")
    assert shown["input_cap"] == 128_000
    assert shown["output_reserve"] == 0
    assert shown["pressure"] == "normal"


def test_output_reserve_comes_off_the_window(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps({**tool_heavy_body(), "max_completion_tokens": 4000}), "utf-8")
    shown = _json(runner, str(path), "--window", "10000", "--counter", "cjk")
    assert shown["output_reserve"] == 4000
    assert shown["input_cap"] == 6000
    assert shown["free_tokens"] == max(0, 6000 - int(str(shown["input_tokens"])))


def test_no_window_means_critical_not_fits(runner: CliRunner, tmp_path: Path) -> None:
    """A body naming no model, and no --window or --model: the cap is unknown, and an
    unknown cap reads as critical, never as "fits"."""
    path = tmp_path / "no_model.json"
    path.write_text(json.dumps({k: v for k, v in tool_heavy_body().items() if k != "model"}))
    shown = _json(runner, str(path))
    assert shown["window"] is None
    assert shown["input_cap"] is None
    assert shown["pressure"] == "critical"


def test_the_body_s_model_gives_the_window_and_says_so(runner: CliRunner, tmp_path: Path) -> None:
    """With no --model or --window, a model the body names is looked up as --model would
    be (its window, output limit and tokenizer), and a note on standard error says so."""
    path = tmp_path / "body.json"
    path.write_text(json.dumps({**tool_heavy_body(), "model": "gpt-4o"}), "utf-8")
    result = runner.invoke(main, ["context", str(path), "--json"])
    assert result.exit_code == 0, result.output
    as_option = _json(runner, str(path), "--model", "gpt-4o")
    assert json.loads(result.stdout) == as_option
    assert as_option["window"] == 128_000
    assert "note: model gpt-4o from the body (window 128,000)" in result.stderr


def test_a_body_s_model_nobody_knows_leaves_the_window_unknown(
    runner: CliRunner, tmp_path: Path
) -> None:
    """An unknown model in the body is no error (the body is not an option the user typed),
    but its window is not guessed: unknown, critical, and a note naming the model."""
    path = tmp_path / "body.json"
    path.write_text(json.dumps({**tool_heavy_body(), "model": "house-model-7"}), "utf-8")
    result = runner.invoke(main, ["context", str(path), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["window"] is None
    assert shown["pressure"] == "critical"
    assert "house-model-7" in result.stderr
    assert "window is not" in result.stderr


def test_window_wins_over_the_body_s_model(runner: CliRunner, tmp_path: Path) -> None:
    """--window N is the window, whatever model the body names."""
    path = tmp_path / "body.json"
    path.write_text(json.dumps({**tool_heavy_body(), "model": "gpt-4o"}), "utf-8")
    result = runner.invoke(main, ["context", str(path), "--json", "--window", "9000"])
    assert json.loads(result.stdout)["window"] == 9000
    assert "from the body" not in result.stderr


def test_pressure_follows_the_kernel_thresholds(runner: CliRunner, body_path: Path) -> None:
    total = int(str(_json(runner, str(body_path), "--counter", "cjk")["input_tokens"]))
    tight = _json(runner, str(body_path), "--counter", "cjk", "--window", str(total * 100 // 80))
    assert tight["pressure"] == "tight"
    over = _json(runner, str(body_path), "--counter", "cjk", "--window", str(total // 2))
    assert over["pressure"] == "critical"
    assert over["free_tokens"] == 0


def test_view_shows_every_segment_free_space_and_pressure(
    runner: CliRunner, body_path: Path
) -> None:
    result = runner.invoke(main, ["context", str(body_path), "--window", "100000"])
    assert result.exit_code == 0, result.output
    for part in ("system", "conversation", "pending", "free space", "output reserve"):
        assert part in result.output, part
    assert "pressure normal" in result.output
    assert "/ 100,000 tokens" in result.output


def test_view_says_when_the_request_is_over_the_cap(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["context", str(body_path), "--window", "500"])
    assert "over the cap by" in result.output
    assert "pressure critical" in result.output


def test_anthropic_body_keeps_its_system_prompt(runner: CliRunner, tmp_path: Path) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "system": "You are careful. " * 200,
        "messages": [{"role": "user", "content": "hi"}],
    }
    path = tmp_path / "anthropic.json"
    path.write_text(json.dumps(body), "utf-8")
    shown = _json(runner, str(path), "--format", "anthropic", "--window", "200000")
    system = next(s for s in shown["segments"] if s["segment"] == "system")  # type: ignore[attr-defined]
    assert system["tokens"] > 400


def test_meter_is_an_alias_of_context(runner: CliRunner, body_path: Path) -> None:
    args = [str(body_path), "--window", "9000", "--json"]
    assert (
        runner.invoke(main, ["meter", *args]).stdout
        == runner.invoke(main, ["context", *args]).stdout
    )


def test_a_responses_body_is_detected_and_metered(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(RESPONSES_BODY), "utf-8")
    shown = _json(runner, str(path), "--window", "16000")
    assert shown["format"] == "openai-responses"
    assert shown["output_reserve"] == 2000
    assert {s["segment"] for s in shown["segments"]} >= {"system", "pending"}  # type: ignore[attr-defined]


def test_an_ambiguous_body_says_which_option_to_give(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "either.json"
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    path.write_text(json.dumps(body), "utf-8")
    result = runner.invoke(main, ["context", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith("ctxbudget: error [format_error]: cannot tell")
    assert "--format openai | anthropic | openai-responses" in result.stderr
    assert runner.invoke(main, ["context", str(path), "--format", "anthropic"]).exit_code == 0


def test_a_request_can_come_on_standard_input(runner: CliRunner, body_path: Path) -> None:
    text = body_path.read_text("utf-8")
    piped = runner.invoke(main, ["context", "-", "--window", "9000", "--json"], input=text)
    assert piped.exit_code == 0, piped.output
    from_file = _json(runner, str(body_path), "--window", "9000")
    assert json.loads(piped.stdout)["input_tokens"] == from_file["input_tokens"]
