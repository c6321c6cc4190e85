"""OpenHands event streams: evaluation output (JSON Lines, one run per line with
its ``history``) and saved trajectories (one JSON list of events).

The ``system`` action carries the system prompt and the tool declarations, so
the envelope is known. Every action an LLM call produced carries
``tool_call_metadata.model_response``: the Chat Completions response (its
message and ``usage``, as LiteLLM reports it: ``prompt_tokens`` includes cached
tokens). Several actions from one response share its ``id`` and are one call;
an observation with ``tool_call_metadata`` is the result of that tool call.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxbudget.transcripts.blocks import openai_message_blocks, text_blocks
from ctxbudget.transcripts.records import Record, Transcript
from ctxbudget.transcripts.session import ImportedSession, SessionBuilder
from ctxbudget.transcripts.usage import openai_usage

__all__ = ["looks_like_openhands", "read_openhands"]

AGENT: Final = "openhands"


def _is_event(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and "source" in value
        and ("action" in value or "observation" in value)
    )


def looks_like_openhands(records: tuple[Record, ...]) -> bool:
    """True for OpenHands evaluation lines or trajectory events."""
    first = records[0].value if records else None
    if isinstance(first, Mapping) and isinstance(first.get("history"), list):
        return any(_is_event(e) for e in first["history"][:20])
    return any(_is_event(r.value) for r in records[:20])


def read_openhands(transcript: Transcript) -> list[ImportedSession]:
    """One session per evaluation run (or the one trajectory)."""
    stem = Path(transcript.path).stem
    if not any(_is_event(r.value) for r in transcript.records[:20]):
        return [_run(transcript, r) for r in transcript.records]
    builder = SessionBuilder(stem, AGENT, transcript.path, "openai")
    for record in transcript.records:
        _event(transcript, record, record.value, builder)
    return [builder.build()]


def _run(transcript: Transcript, record: Record) -> ImportedSession:
    run = record.value
    if not isinstance(run, Mapping) or not isinstance(run.get("history"), list):
        raise transcript.fail(record, "is not an OpenHands run (an object with a 'history' list)")
    name = run.get("instance_id")
    session_id = str(name) if name else f"{Path(transcript.path).stem}-{record.index + 1}"
    where = f"{transcript.path}:{record.line}" if record.line else transcript.path
    builder = SessionBuilder(session_id, AGENT, where, "openai")
    for event in run["history"]:
        _event(transcript, record, event, builder)
    return builder.build()


def _event(transcript: Transcript, record: Record, event: Any, builder: SessionBuilder) -> None:
    if not isinstance(event, Mapping):
        raise transcript.fail(record, "holds an event that is not a JSON object")
    try:
        _fold_event(event, builder)
    except (ValueError, TypeError) as exc:
        raise transcript.fail(record, f"event {event.get('id', '?')}: {exc}") from None


def _fold_event(event: Mapping[str, Any], builder: SessionBuilder) -> None:
    action, args = event.get("action"), event.get("args") or {}
    metadata = event.get("tool_call_metadata")
    if action == "system":
        builder.envelope(str(args.get("content", "")), args.get("tools") or ())
    elif isinstance(metadata, Mapping) and "observation" in event:
        builder.tool_result(
            str(metadata.get("tool_call_id", "")), text_blocks(_observation_text(event)), False
        )
    elif isinstance(metadata, Mapping):
        _call(metadata, builder)
    elif action == "message" and event.get("source") == "user":
        builder.user(text_blocks(str(args.get("content", event.get("message", "")))))
    elif action == "message" and event.get("source") == "agent":
        text = text_blocks(str(args.get("content", event.get("message", ""))))
        builder.call(f"message-{event.get('id')}", _model(builder), text, None)


def _observation_text(event: Mapping[str, Any]) -> str:
    """What OpenHands shows the model for an observation: an edit's formatted output
    (its ``content`` is the diff shown to people), a command's output framed by its
    prefix, suffix, working directory and exit code, else the ``content``."""
    content = event.get("content")
    text = content if isinstance(content, str) else ""
    extras = event.get("extras")
    if not isinstance(extras, Mapping):
        return text
    formatted = extras.get("formatted_output_and_error")
    if isinstance(formatted, str) and formatted:
        return formatted
    meta = extras.get("metadata")
    if event.get("observation") != "run" or not isinstance(meta, Mapping):
        return text
    text = f"{meta.get('prefix') or ''}{text}{meta.get('suffix') or ''}"
    if meta.get("working_dir"):
        text += f"\n[Current working directory: {meta['working_dir']}]"
    if meta.get("py_interpreter_path"):
        text += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
    if meta.get("exit_code", -1) != -1:
        text += f"\n[Command finished with exit code {meta['exit_code']}]"
    return text


def _call(metadata: Mapping[str, Any], builder: SessionBuilder) -> None:
    response = metadata.get("model_response")
    if not isinstance(response, Mapping):
        raise ValueError("tool_call_metadata has no model_response object")
    choices = response.get("choices") or [{}]
    message = choices[0].get("message") or {}
    usage = response.get("usage")
    model = response.get("model")
    builder.call(
        str(response.get("id", "")),
        model if isinstance(model, str) else _model(builder),
        openai_message_blocks(message),
        openai_usage(usage) if isinstance(usage, Mapping) else None,
    )


def _model(builder: SessionBuilder) -> str:
    return builder.last_model or "unknown"
