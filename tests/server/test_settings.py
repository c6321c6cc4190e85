"""Server settings from flags, TOML and the worker environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxbudget.errors import ConfigError
from ctxbudget.server import ServerSettings, load_server_settings
from ctxbudget.server.settings import settings_from_environment, settings_to_environment
from ctxbudget.server.upstream import request_headers, target_url

AGENT_TOML = """
[budget]
max_input_tokens = 150000
tool_outputs_kept = 5

[upstream]
openai = "https://api.openai.com/v1"
anthropic = "https://api.anthropic.com"

[server]
max_body_bytes = 1000000
context_window = 200000
"""


def test_toml_holds_budget_upstreams_and_server_keys(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(AGENT_TOML)
    settings = load_server_settings(path, upstreams={"anthropic": "http://127.0.0.1:9/"})
    assert settings.budget.max_input_tokens == 150_000
    assert settings.budget.tool_outputs_kept == 5
    assert settings.upstreams["openai"] == "https://api.openai.com/v1"
    assert settings.upstreams["anthropic"] == "http://127.0.0.1:9/"  # the flag wins
    assert settings.max_body_bytes == 1_000_000
    assert settings.context_window == 200_000
    assert load_server_settings(path, max_input_tokens=10).budget.max_input_tokens == 10


def test_workers_get_the_same_settings_and_tokens_only_from_their_environment(
    tmp_path: Path,
) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(AGENT_TOML)
    settings = load_server_settings(path, ledger_url="postgresql://db/x")
    environ = settings_to_environment(settings)
    assert "secret" not in str(environ)
    again = settings_from_environment({**environ, "CTXBUDGET_API_TOKEN": "secret"})
    assert again.budget == settings.budget
    assert again.upstreams == settings.upstreams
    assert again.ledger_url == "postgresql://db/x"
    assert again.api_token == "secret"
    assert again.proxy_token is None
    assert "secret" not in repr(again)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"upstreams": {"gemini": "http://x"}}, "unknown upstream"),
        ({"upstreams": {"openai": "ftp://x"}}, "http:// or https://"),
        ({"max_body_bytes": 0}, "max_body_bytes"),
        ({"upstream_timeout_s": -1.0}, "upstream_timeout_s"),
    ],
)
def test_bad_settings_say_what_is_wrong(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ServerSettings(**options)  # type: ignore[arg-type]


def test_unknown_server_key_in_toml_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text("[server]\nmax_body = 5\n")
    with pytest.raises(ConfigError, match="unknown \\[server\\] key"):
        load_server_settings(path)


def test_upstream_url_takes_the_path_after_its_own_v1() -> None:
    assert target_url("https://api.openai.com/v1", "/v1/chat/completions", "") == (
        "https://api.openai.com/v1/chat/completions"
    )
    assert target_url("https://api.anthropic.com/", "/v1/messages", "beta=true") == (
        "https://api.anthropic.com/v1/messages?beta=true"
    )


def test_client_headers_pass_except_hop_by_hop_and_ctxbudget_ones() -> None:
    kept = dict(
        request_headers(
            [
                ("Authorization", "Bearer k"),
                ("x-api-key", "k2"),
                ("anthropic-beta", "b"),
                ("Host", "proxy"),
                ("Connection", "keep-alive"),
                ("X-Ctxbudget-Token", "t"),
                ("Accept-Encoding", "gzip"),
            ]
        )
    )
    assert kept == {
        "Authorization": "Bearer k",
        "x-api-key": "k2",
        "anthropic-beta": "b",
        "accept-encoding": "identity",
    }
