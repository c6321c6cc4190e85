"""How one ``ctxbudget serve`` is set up: ``ServerSettings``, from flags, TOML or the environment.

An agent's TOML file may hold the proxy's settings beside its ``[budget]`` table::

    [budget]
    max_input_tokens = 150000

    [upstream]
    openai = "https://api.openai.com/v1"
    anthropic = "https://api.anthropic.com"

    [server]
    max_body_bytes = 33554432
    upstream_timeout_s = 600
    context_window = 200000
    summary_cache_bytes = 8388608
    request_cache_bytes = 67108864
    archive_dir = ".ctxbudget/archive"

Worker processes started by uvicorn get the settings through one environment
variable (``SETTINGS_VARIABLE``); the tokens are read from their own variables
and never written anywhere.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from ctxbudget.enforce import BudgetConfig, load_budget_config
from ctxbudget.errors import ConfigError
from ctxbudget.meter import DEFAULT_CONTEXT_WINDOW

__all__ = [
    "API_TOKEN_VARIABLE",
    "PROXY_TOKEN_VARIABLE",
    "SETTINGS_VARIABLE",
    "UPSTREAM_NAMES",
    "ServerSettings",
    "load_server_settings",
    "settings_from_environment",
    "settings_to_environment",
]

API_TOKEN_VARIABLE: Final = "CTXBUDGET_API_TOKEN"
"""When set, the service endpoints want ``Authorization: Bearer <token>``."""
PROXY_TOKEN_VARIABLE: Final = "CTXBUDGET_PROXY_TOKEN"
"""When set, the proxy routes want ``X-Ctxbudget-Token: <token>`` (the provider key
in ``Authorization`` / ``x-api-key`` passes through untouched)."""
SETTINGS_VARIABLE: Final = "CTXBUDGET_SERVE_SETTINGS"
"""The JSON settings handed to each uvicorn worker process."""

UPSTREAM_NAMES: Final = ("openai", "anthropic")
"""The upstreams a proxy route can forward to."""

_MiB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSettings:
    """Everything a proxy/service process needs besides its tokens.

    ``budget``: the agent's budget (``max_input_tokens = 0``: enforcement off).
    ``ledger_url``: ``None`` for the SQLite file under ``./.ctxbudget/``.
    ``upstreams``: base URL per upstream name (``"openai"``, ``"anthropic"``); a
    route whose upstream is missing answers ``route_not_configured``.
    ``max_body_bytes``: larger request bodies get 413.
    ``upstream_timeout_s`` / ``connect_timeout_s``: how long an upstream may take.
    ``context_window``: the capacity session measurements are classified against.
    ``summary_cache_bytes``: room for cached summaries of re-sent spans.
    ``request_cache_bytes``: room for the enforcement's parsed and priced messages.
    ``archive_dir``: where stubbed tool outputs and summarized spans are kept
    (``FileArchive``); empty: nowhere (stubs then say the original is unavailable).
    ``api_token`` / ``proxy_token``: see ``API_TOKEN_VARIABLE``, ``PROXY_TOKEN_VARIABLE``.
    """

    budget: BudgetConfig = field(default_factory=BudgetConfig)
    ledger_url: str | None = None
    upstreams: Mapping[str, str] = field(default_factory=dict)
    max_body_bytes: int = 32 * _MiB
    upstream_timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
    context_window: int = DEFAULT_CONTEXT_WINDOW
    summary_cache_bytes: int = 8 * _MiB
    request_cache_bytes: int = 64 * _MiB
    archive_dir: str = ""
    api_token: str | None = field(default=None, repr=False)
    proxy_token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.upstreams) - set(UPSTREAM_NAMES))
        if unknown:
            raise ConfigError(f"unknown upstream(s) {unknown}; use {list(UPSTREAM_NAMES)}")
        for name, url in self.upstreams.items():
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ConfigError(
                    f"upstream {name} must be an http:// or https:// URL, not {url!r}"
                )
        object.__setattr__(self, "upstreams", MappingProxyType(dict(self.upstreams)))
        if not isinstance(self.archive_dir, str):
            raise ConfigError(
                f"server setting archive_dir must be a path, not {self.archive_dir!r}"
            )
        for key in (
            "max_body_bytes",
            "context_window",
            "summary_cache_bytes",
            "request_cache_bytes",
        ):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"server setting {key} must be a positive integer, not {value!r}")
        for key in ("upstream_timeout_s", "connect_timeout_s"):
            value = getattr(self, key)
            if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
                raise ConfigError(f"server setting {key} must be a positive number, not {value!r}")
            if math.isinf(value):
                raise ConfigError(f"server setting {key} must be finite")

    def with_tokens_from(self, environ: Mapping[str, str]) -> ServerSettings:
        """These settings with the tokens the environment sets (empty values: none)."""
        return replace(
            self,
            api_token=environ.get(API_TOKEN_VARIABLE) or None,
            proxy_token=environ.get(PROXY_TOKEN_VARIABLE) or None,
        )


_SERVER_KEYS: Final = (
    "max_body_bytes",
    "upstream_timeout_s",
    "connect_timeout_s",
    "context_window",
    "summary_cache_bytes",
    "request_cache_bytes",
    "archive_dir",
)


def load_server_settings(
    config_path: str | Path | None = None,
    *,
    max_input_tokens: int | None = None,
    ledger_url: str | None = None,
    upstreams: Mapping[str, str | None] | None = None,
) -> ServerSettings:
    """Settings from an agent's TOML file (``[budget]``, ``[upstream]``, ``[server]``),
    with the flags given here taking precedence over the file."""
    budget = BudgetConfig()
    file_upstreams: dict[str, str] = {}
    server: dict[str, Any] = {}
    if config_path is not None:
        budget = load_budget_config(config_path)
        table = _read_toml(Path(config_path))
        file_upstreams = _table(table, "upstream", config_path)
        server = _table(table, "server", config_path)
        unknown = sorted(set(server) - set(_SERVER_KEYS))
        if unknown:
            raise ConfigError(
                f"{config_path}: unknown [server] key(s) {unknown}; use {_SERVER_KEYS}"
            )
    if max_input_tokens is not None:
        budget = replace(budget, max_input_tokens=max_input_tokens)
    merged = {**file_upstreams, **{k: v for k, v in (upstreams or {}).items() if v}}
    return ServerSettings(budget=budget, ledger_url=ledger_url, upstreams=merged, **server)


def _read_toml(path: Path) -> Mapping[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read server settings from {path}: {exc}") from None


def _table(data: Mapping[str, Any], name: str, path: str | Path) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{path}: [{name}] must be a table")
    return dict(table)


def settings_to_environment(settings: ServerSettings) -> dict[str, str]:
    """The variable that hands ``settings`` (without tokens) to a worker process."""
    budget = asdict(settings.budget)
    budget["never_trim_headers"] = list(settings.budget.never_trim_headers)
    payload = {
        "budget": budget,
        "ledger_url": settings.ledger_url,
        "upstreams": dict(settings.upstreams),
        **{key: getattr(settings, key) for key in _SERVER_KEYS},
    }
    return {SETTINGS_VARIABLE: json.dumps(payload)}


def settings_from_environment(environ: Mapping[str, str] | None = None) -> ServerSettings:
    """The settings ``settings_to_environment`` wrote, with the tokens of ``environ``."""
    environ = os.environ if environ is None else environ
    raw = environ.get(SETTINGS_VARIABLE)
    if raw is None:
        return ServerSettings().with_tokens_from(environ)
    try:
        payload = json.loads(raw)
        budget = payload.pop("budget")
        budget["never_trim_headers"] = tuple(budget["never_trim_headers"])
        settings = ServerSettings(budget=BudgetConfig(**budget), **payload)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{SETTINGS_VARIABLE} does not hold server settings ({exc})") from None
    return settings.with_tokens_from(environ)
