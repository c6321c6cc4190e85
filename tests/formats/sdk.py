"""Validate rendered bodies against the official SDKs' request types."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter


@cache
def _openai() -> TypeAdapter[Any]:
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    return TypeAdapter(CompletionCreateParamsNonStreaming)


@cache
def _anthropic() -> TypeAdapter[Any]:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    return TypeAdapter(MessageCreateParamsNonStreaming)


@cache
def _responses() -> TypeAdapter[Any]:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    return TypeAdapter(ResponseCreateParamsNonStreaming)


def _consume(value: Any) -> Any:
    """Pydantic validates ``Iterable`` fields lazily; walking them runs the validation."""
    if isinstance(value, Mapping):
        return {k: _consume(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_consume(v) for v in value]
    if isinstance(value, Iterator) or type(value).__name__ == "ValidatorIterator":
        return [_consume(v) for v in value]
    return value


def validate_openai(body: Mapping[str, Any]) -> None:
    """Raise ``pydantic.ValidationError`` unless ``body`` is a valid Chat Completions request."""
    _consume(_openai().validate_python(body))


def validate_anthropic(body: Mapping[str, Any]) -> None:
    """Raise ``pydantic.ValidationError`` unless ``body`` is a valid Messages request."""
    _consume(_anthropic().validate_python(body))


def validate_responses(body: Mapping[str, Any]) -> None:
    """Raise ``pydantic.ValidationError`` unless ``body`` is a valid Responses request."""
    _consume(_responses().validate_python(body))


def validate(body: Mapping[str, Any], format: str) -> None:
    """Validate ``body`` for its provider."""
    validators = {
        "openai": validate_openai,
        "anthropic": validate_anthropic,
        "openai-responses": validate_responses,
    }
    validators[format](body)
