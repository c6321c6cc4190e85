"""Provider request bodies <-> the internal ``Request`` model.

Three formats share one skeleton (``formats._skeleton``): ``"openai"`` (Chat
Completions, ``formats.openai``), ``"anthropic"`` (Messages,
``formats.anthropic``) and ``"openai-responses"`` (Responses,
``formats.openai_responses``). ``parse_request(body)`` detects the format when it
is not named; parsing never changes the caller's body; rendering an unchanged
request gives back an equal body.
"""

from collections.abc import Mapping
from typing import Any, Final

from ctxbudget.errors import FormatError
from ctxbudget.formats import _skeleton, anthropic, openai, openai_responses
from ctxbudget.formats._skeleton import MAX_NESTING
from ctxbudget.formats.cache import DEFAULT_CACHE_BYTES, RequestCache, shared_cache
from ctxbudget.formats.decoding import decode_json
from ctxbudget.formats.metering import PENDING, input_cap, meter_request, output_reserve
from ctxbudget.formats.request import FormatName, Request, Turn

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "FORMAT_NAMES",
    "MAX_NESTING",
    "PENDING",
    "FormatError",
    "FormatName",
    "Request",
    "RequestCache",
    "Turn",
    "add_system_section",
    "anthropic",
    "decode_json",
    "detect_format",
    "input_cap",
    "meter_request",
    "openai",
    "openai_responses",
    "output_reserve",
    "parse_request",
    "render_request",
    "shared_cache",
]

_FORMATS: Final[dict[str, _skeleton.ProviderFormat]] = {
    "openai": openai.CHAT,
    "anthropic": anthropic.MESSAGES,
    "openai-responses": openai_responses.RESPONSES,
}
FORMAT_NAMES: Final[tuple[FormatName, ...]] = ("openai", "anthropic", "openai-responses")
"""Every format ``parse_request`` reads, in the order detection reports them."""
_LABELS: Final = {name: f"{fmt.label} ({name!r})" for name, fmt in _FORMATS.items()}


def _known(format: str) -> _skeleton.ProviderFormat:
    if not isinstance(format, str) or format not in _FORMATS:
        names = ", ".join(repr(name) for name in FORMAT_NAMES)
        raise FormatError(f"unknown request format {format!r}; use one of {names}")
    return _FORMATS[format]


def detect_format(body: Mapping[str, Any]) -> FormatName:
    """The one format ``body`` can be; ``FormatError`` when it is none or several.

    A body is a candidate for a format when it has what every request of that
    format has (``messages``; ``messages`` and ``max_tokens``; ``input``) and
    nothing only another format's requests have (a top-level ``system``,
    ``tool_use`` blocks, ``tool_calls``, a ``developer`` message, ``instructions``
    …); see ``docs/formats.md``.
    """
    if not isinstance(body, Mapping):
        raise FormatError(f"the request body is a {type(body).__name__}; pass it as a dict")
    marked = {name for name, fmt in _FORMATS.items() if fmt.has_own_marks(body)}
    candidates = [
        name for name in FORMAT_NAMES if _FORMATS[name].fits(body) and not (marked - {name})
    ]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise FormatError(
            "cannot tell the request format: the body matches none of "
            f"{', '.join(_LABELS.values())} (it needs 'messages' or 'input', and not the "
            "marks of two formats at once); name the format (format=...)"
        )
    both = " and ".join(_LABELS[name] for name in candidates)
    raise FormatError(
        f"cannot tell the request format: the body could be {both} (nothing in it belongs "
        "to only one of them); name the format (format=...)"
    )


def parse_request(
    body: Mapping[str, Any], format: str | None = None, *, cache: RequestCache | None = None
) -> Request:
    """Parse ``body`` in the named format, or in the one detected when ``format`` is None.

    ``cache``: where parsed turns are reused across requests (default: ``shared_cache()``).
    """
    fmt = _known(format) if format is not None else _FORMATS[detect_format(body)]
    return fmt.parse(body, cache if cache is not None else shared_cache())


def render_request(request: Request) -> dict[str, Any]:
    """Render ``request`` in the format it was parsed from."""
    return _known(request.format).render(request)


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` added to the system prompt as a section of its own."""
    return _known(request.format).add_system_section(request, text)
