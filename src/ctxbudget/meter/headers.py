"""The request envelope: canonical headers and the equality that decides anchor reuse.

Provider usage describes one exact request. It is reused only while the envelope
(provider, model, temperature, max_tokens, stop, system prompt, message prefix,
tools) is the same, compared exactly as the reference meter does: tools and
prefix by their JSON text, so key order matters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxbudget.errors import ConfigError
from ctxbudget.ledger.events import freeze_json
from ctxbudget.tokens import json_text

__all__ = ["RequestHeader", "canonical_header", "headers_equal"]

_COMPARED_CONFIG = ("provider", "model", "temperature", "max_tokens")


@dataclass(frozen=True, slots=True)
class RequestHeader:
    """A canonical request envelope: empty system, tools and prefix are dropped."""

    config: Mapping[str, Any]
    system: str | None = None
    tools: tuple[Mapping[str, Any], ...] = ()
    message_prefix: tuple[Mapping[str, Any], ...] = ()


def canonical_header(raw: Mapping[str, Any] | RequestHeader) -> RequestHeader:
    """The canonical form of a ``request/header`` ``header`` object (snake_case keys)."""
    if isinstance(raw, RequestHeader):
        return raw
    if not isinstance(raw, Mapping) or not isinstance(raw.get("config"), Mapping):
        raise ConfigError("a request header is an object with a 'config' object")
    system = raw.get("system")
    return RequestHeader(
        config=freeze_json(raw["config"]),
        system=system if isinstance(system, str) and system else None,
        tools=_non_empty(raw.get("tools")),
        message_prefix=_non_empty(raw.get("message_prefix")),
    )


def _non_empty(value: Any) -> tuple[Any, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str) and value:
        return tuple(freeze_json(list(value)))
    return ()


def headers_equal(a: RequestHeader | None, b: RequestHeader | None) -> bool:
    """The reference meter's envelope equality (two missing headers are equal)."""
    if a is None or b is None:
        return a is b
    if any(not _strict_equal(a.config.get(k), b.config.get(k)) for k in _COMPARED_CONFIG):
        return False
    stop_a, stop_b = a.config.get("stop"), b.config.get("stop")
    if (stop_a is None or stop_b is None) and not (stop_a is None and stop_b is None):
        return False
    if stop_a is not None and stop_b is not None and tuple(stop_a) != tuple(stop_b):
        return False
    return (
        a.system == b.system
        and json_text(a.message_prefix) == json_text(b.message_prefix)
        and len(a.tools) == len(b.tools)
        and all(json_text(x) == json_text(y) for x, y in zip(a.tools, b.tools, strict=True))
    )


def _strict_equal(a: Any, b: Any) -> bool:
    # JavaScript's === never equates true with 1, Python's == does.
    return isinstance(a, bool) == isinstance(b, bool) and a == b
