"""``ctxbudget demo``: the scripted session lives through its window, offline."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.demo.script import SCRIPT
from ctxbudget.ledger import open_ledger


def test_demo_shows_every_part_of_the_main_job(runner: CliRunner, ledger_url: str) -> None:
    result = runner.invoke(main, ["demo", "--ledger", ledger_url])
    assert result.exit_code == 0, result.output
    for part in (
        "Pressure, call by call",
        "↳ compaction:",
        "originals archived at ledger:turns:",
        "An original, retrieved from the archive",
        "all of it: ctxbudget archive 'ledger:turns:",
        "A request that cannot fit",
        "[budget_exceeded]",
        "as /context shows it",
        "free space",
    ):
        assert part in result.output, part
    calls = sum(len(turn.calls) for turn in SCRIPT)
    assert f"{calls} calls" in result.output
    output = " ".join(result.output.split())
    assert output.count("↳ compaction:") == 1  # once, at the threshold: it then converges


def test_demo_logs_a_new_session_each_run(runner: CliRunner, ledger_url: str) -> None:
    """A second run adds a session; it never rewrites one."""
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    with open_ledger(ledger_url) as store:
        first = store.events("demo-1")
    again = runner.invoke(main, ["demo", "--ledger", ledger_url])
    assert again.exit_code == 0, again.output
    with open_ledger(ledger_url) as store:
        assert store.sessions() == ["demo-1", "demo-2"]
        assert store.events("demo-1") == first


def test_demo_session_can_be_charted_afterwards(runner: CliRunner, ledger_url: str) -> None:
    """The demo's session is an ordinary ledger session: history charts it, and the
    compaction is in it as the vocabulary's three events."""
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    with open_ledger(ledger_url) as store:
        types = [e.type for e in store.events("demo-1")]
    assert types.count("compaction/start") == types.count("compaction/end") == 1
    result = runner.invoke(
        main, ["session", "history", "demo-1", "--ledger", ledger_url, "--window", "8192"]
    )
    assert result.exit_code == 0, result.output
    assert "anchored calls" in result.output


def test_demo_can_save_its_last_request_for_context_and_fit(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    saved = tmp_path / "last.json"
    result = runner.invoke(main, ["demo", "--ledger", ledger_url, "--save-request", str(saved)])
    assert result.exit_code == 0, result.output
    body = json.loads(saved.read_text("utf-8"))
    assert body["messages"][0]["role"] == "system"
    shown = runner.invoke(main, ["context", str(saved), "--window", "8192", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["format"] == "openai"


def test_demo_says_which_counter_and_limit_each_pressure_figure_uses(
    runner: CliRunner, ledger_url: str
) -> None:
    """The /context view (guard counter, input cap) reads higher than the meter's last line
    (central counter, whole window); the demo names both and quotes both figures, and the
    figures it quotes are the ones it printed."""
    import re

    from ctxbudget.cli.demo import DEMO_WINDOW
    from ctxbudget.tokens import central_counter, default_counter

    result = runner.invoke(main, ["demo", "--ledger", ledger_url])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    guard, central = default_counter().name, central_counter().name
    assert f"This view counts with {guard}" in output
    assert f"counts with {central}, which predicts what the provider reports" in output
    meter_lines = re.findall(r"\b(\d+)% (?:normal|tight|critical)\b", result.output)
    explained = re.search(rf"\(([\d,]+) of {DEMO_WINDOW:,} = (\d+)%\)", output)
    assert explained is not None
    assert explained.group(2) == meter_lines[-1]  # the meter's last line, as printed
    view = re.search(r"pressure \w+: ([\d.]+)% of the input cap", output)
    quoted = re.search(r"input cap \([\d,]+ of [\d,]+ tokens = (\d+)%", output)
    assert view is not None
    assert quoted is not None
    assert round(float(view.group(1))) == int(quoted.group(1))
