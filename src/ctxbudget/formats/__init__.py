"""Provider request bodies <-> the internal ``Request`` model.

``openai`` (Chat Completions) and ``anthropic`` (Messages) each offer
``parse_request(body) -> Request`` and ``render_request(request) -> body``.
Parsing never changes the caller's body; rendering an unchanged request gives
back an equal body.
"""

from collections.abc import Callable, Mapping
from typing import Any

from ctxbudget.errors import FormatError
from ctxbudget.formats import anthropic, openai
from ctxbudget.formats.metering import PENDING, meter_request
from ctxbudget.formats.request import FormatName, Request, Turn

__all__ = [
    "PENDING",
    "FormatError",
    "FormatName",
    "Request",
    "Turn",
    "add_system_section",
    "anthropic",
    "meter_request",
    "openai",
    "parse_request",
    "render_request",
]

_PARSERS: dict[str, Callable[[Mapping[str, Any]], Request]] = {
    "openai": openai.parse_request,
    "anthropic": anthropic.parse_request,
}
_RENDERERS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "openai": openai.render_request,
    "anthropic": anthropic.render_request,
}
_SECTION_ADDERS: dict[str, Callable[[Request, str], Request]] = {
    "openai": openai.add_system_section,
    "anthropic": anthropic.add_system_section,
}


def _known(format: str) -> str:
    if format not in _PARSERS:
        raise FormatError(f"unknown request format {format!r}; use 'openai' or 'anthropic'")
    return format


def parse_request(body: Mapping[str, Any], format: str) -> Request:
    """Parse ``body`` in the named format (``"openai"`` or ``"anthropic"``)."""
    return _PARSERS[_known(format)](body)


def render_request(request: Request) -> dict[str, Any]:
    """Render ``request`` in the format it was parsed from."""
    return _RENDERERS[request.format](request)


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` added to the system prompt as a section of its own."""
    return _SECTION_ADDERS[request.format](request, text)
