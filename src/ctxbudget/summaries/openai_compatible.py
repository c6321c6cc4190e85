"""``OpenAICompatibleSummarizer``: summaries from any server speaking OpenAI chat completions.

One POST to ``{base_url}/chat/completions`` per summary, with a section prompt
(``ctxbudget.summaries.sections``) that merges a prior checkpoint instead of
copying it. A span too large for the summarizer model's window is not sent to
fail: it is cut into chunks at message boundaries, and each chunk is summarized
together with the summary of the chunks before it, so the last answer covers the
whole span. Every failure (status, timeout, cut-off or empty answer) is a
``SummarizerError`` naming its ``reason``; nothing is retried behind your back.

httpx is imported when a summarizer is built (``pip install 'ctxbudget[summarizer]'``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ctxbudget.content import Message
from ctxbudget.errors import ConfigError, MissingExtraError, SummarizerError
from ctxbudget.summaries.checkpoint import CHECKPOINT_CLOSE, CHECKPOINT_OPEN
from ctxbudget.summaries.protocol import SummaryRequest
from ctxbudget.summaries.sections import SECTIONS, heading
from ctxbudget.summaries.transcript import render_message
from ctxbudget.tokens import TokenCounter, default_counter

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_SUMMARY_WINDOW",
    "AsyncOpenAICompatibleSummarizer",
    "OpenAICompatibleSummarizer",
    "summary_system_prompt",
]

DEFAULT_SUMMARY_WINDOW: Final = 128_000
"""The summarizer model's context window when none is given."""
MIN_CHUNK_TOKENS: Final = 256
"""Smallest transcript chunk worth a call; a smaller window is a configuration error."""
_PROMPT_MARGIN: Final = 64
"""Tokens kept free for the chat template around the two messages."""

_INTRO: Final = (
    "You write the checkpoint that replaces an earlier part of an agent's conversation. "
    "The agent will carry on from your checkpoint and the newer messages alone, so keep "
    "every fact it needs to continue and drop the rest."
)
_RULES: Final = (
    "Keep file paths, commands, identifiers, error messages, numbers and signatures "
    "exactly as written.",
    "Keep what the user corrected or asked for in their own words.",
    f"The history may open with an earlier checkpoint between {CHECKPOINT_OPEN} and "
    f"{CHECKPOINT_CLOSE}: fold its points into your sections (update what changed, drop "
    "what no longer holds); never copy it as a block or nest it.",
    "Do not say that this is a summary, a checkpoint or a compaction.",
)


def summary_system_prompt(max_tokens: int) -> str:
    """The system prompt of a summary call whose answer may take ``max_tokens``."""
    sections = "\n".join(f"{heading(name)}\n({what})" for name, what in SECTIONS)
    rules = "\n".join(f"- {rule}" for rule in _RULES)
    return (
        f"{_INTRO}\n\nAnswer with exactly these Markdown sections, in this order, as short "
        f'bullet points; write "(none)" under a section with nothing to say:\n\n{sections}\n\n'
        f"Rules:\n{rules}\n- Stay within {max_tokens} tokens."
    )


def _user_prompt(transcript: str) -> str:
    return f"Conversation history to condense:\n\n{transcript}\n\nCheckpoint:"


@dataclass(frozen=True, slots=True)
class _Call:
    """One chat completion to make: the transcript and the answer's token cap."""

    transcript: str
    max_tokens: int


class _ChatSummarizer:
    """Settings, chunking and parsing shared by the sync and async summarizers."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        max_tokens: int = 8192,
        *,
        context_window: int = DEFAULT_SUMMARY_WINDOW,
        timeout: float = 120.0,
        counter: TokenCounter | None = None,
    ) -> None:
        name = type(self).__name__
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{name}: base_url ({base_url!r}) must be an http(s) URL")
        if not isinstance(model, str) or not model:
            raise ConfigError(f"{name}: model must be a non-empty string")
        for label, value in (("max_tokens", max_tokens), ("context_window", context_window)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name}: {label} ({value!r}) must be a positive integer")
        if not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(f"{name}: timeout ({timeout!r}) must be a positive number of seconds")
        self._httpx = _import_httpx(name)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.provider = self.base_url
        self.max_tokens = max_tokens
        self.context_window = context_window
        self._api_key = api_key
        self._timeout = float(timeout)
        self._counter = counter if counter is not None else default_counter()
        self._room_for(max_tokens)  # fail now, not on the first call, if the window is too small

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r}, {self.model!r})"

    def _room_for(self, output: int) -> int:
        """Tokens of transcript one call can carry next to a prior summary of ``output``."""
        fixed = self._counter.count(summary_system_prompt(output) + _user_prompt(""))
        room = self.context_window - fixed - _PROMPT_MARGIN - 2 * output
        if room < MIN_CHUNK_TOKENS:
            raise ConfigError(
                f"{type(self).__name__}: a context_window of {self.context_window} leaves "
                f"{room} tokens of history per call with max_tokens {output}; lower max_tokens "
                "or use a model with a larger window"
            )
        return room

    def _calls(self, request: SummaryRequest) -> Generator[_Call, str, str]:
        """The calls a request needs; each answer is sent back in, the last one returned."""
        output = request.max_tokens
        if not isinstance(output, int) or isinstance(output, bool) or output < 1:
            raise ConfigError(
                f"{type(self).__name__}: the request's max_tokens ({output!r}) must be a "
                "positive integer"
            )
        output = min(output, self.max_tokens)
        room = self._room_for(output)
        summary: str | None = None
        for chunk in _chunks(request.messages, room, self._counter):
            if summary is not None:
                chunk = f"{CHECKPOINT_OPEN}\n{summary}\n{CHECKPOINT_CLOSE}\n\n{chunk}"
            summary = yield _Call(chunk, output)
        if summary is None:
            raise SummarizerError("empty", "there was nothing to summarize (no messages)")
        return summary

    def _request(self, call: _Call) -> tuple[str, dict[str, Any], dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": summary_system_prompt(call.max_tokens)},
                {"role": "user", "content": _user_prompt(call.transcript)},
            ],
            "max_tokens": call.max_tokens,
            "temperature": 0,
        }
        return f"{self.base_url}/chat/completions", body, headers

    def _failure(self, exc: Exception, url: str) -> SummarizerError:
        httpx = self._httpx
        if isinstance(exc, httpx.TimeoutException):
            return SummarizerError("timeout", f"{url} did not answer within {self._timeout:g} s")
        return SummarizerError("unreachable", f"cannot reach {url}: {exc}")

    def _answer(self, response: httpx.Response, url: str, cap: int) -> str:
        if response.status_code >= 400:
            raise SummarizerError(
                "http_status", f"{url} answered {response.status_code}: {response.text[:300]}"
            )
        try:
            choice = response.json()["choices"][0]
            content = _content_text(choice["message"]["content"])
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise SummarizerError(
                "bad_response", f"{url} did not answer in the chat completions shape ({exc!r})"
            ) from None
        if choice.get("finish_reason") == "length":
            raise SummarizerError("truncated", f"the summary was cut off at its {cap}-token cap")
        if not content.strip():
            raise SummarizerError("empty", f"{url} answered with no summary text")
        return content.strip()


class OpenAICompatibleSummarizer(_ChatSummarizer):
    """A ``Summarizer`` over an OpenAI-compatible chat completions endpoint.

    ``base_url`` ends before ``/chat/completions`` (e.g. ``https://api.openai.com/v1``).
    ``max_tokens`` caps every answer (a request may ask for less); ``context_window``
    is the summarizer model's window, used to split spans that would not fit.
    """

    def summarize(self, request: SummaryRequest) -> str:
        """The summary of ``request.messages``; ``SummarizerError`` if none comes back."""
        calls = self._calls(request)
        with self._httpx.Client(timeout=self._timeout) as client:
            call = next(calls)
            while True:
                try:
                    call = calls.send(self._post(client, call))
                except StopIteration as done:
                    return str(done.value)

    def _post(self, client: httpx.Client, call: _Call) -> str:
        url, body, headers = self._request(call)
        try:
            response = client.post(url, json=body, headers=headers)
        except self._httpx.HTTPError as exc:
            raise self._failure(exc, url) from None
        return self._answer(response, url, call.max_tokens)


class AsyncOpenAICompatibleSummarizer(_ChatSummarizer):
    """``OpenAICompatibleSummarizer`` for async hosts (same arguments, awaited calls)."""

    async def summarize(self, request: SummaryRequest) -> str:
        """The summary of ``request.messages``; ``SummarizerError`` if none comes back."""
        calls = self._calls(request)
        async with self._httpx.AsyncClient(timeout=self._timeout) as client:
            call = next(calls)
            while True:
                try:
                    call = calls.send(await self._post(client, call))
                except StopIteration as done:
                    return str(done.value)

    async def _post(self, client: httpx.AsyncClient, call: _Call) -> str:
        url, body, headers = self._request(call)
        try:
            response = await client.post(url, json=body, headers=headers)
        except self._httpx.HTTPError as exc:
            raise self._failure(exc, url) from None
        return self._answer(response, url, call.max_tokens)


def _chunks(messages: Sequence[Message], room: int, counter: TokenCounter) -> Iterator[str]:
    """The transcript cut at message boundaries into pieces of at most ``room`` tokens;
    a single message larger than that is cut by characters."""
    entries = [entry for entry in map(render_message, messages) if entry]
    current: list[str] = []
    used = 0
    for entry in entries:
        cost = counter.count(entry) + 2
        if cost > room:
            if current:
                yield "\n\n".join(current)
                current, used = [], 0
            yield from _split_text(entry, room, counter)
            continue
        if used + cost > room and current:
            yield "\n\n".join(current)
            current, used = [], 0
        current.append(entry)
        used += cost
    if current:
        yield "\n\n".join(current)


def _split_text(text: str, room: int, counter: TokenCounter) -> Iterator[str]:
    size = max(room, 1)
    start = 0
    while start < len(text):
        piece = text[start : start + size]
        while len(piece) > 1 and counter.count(piece) > room:
            piece = piece[: len(piece) // 2]
        yield piece
        start += len(piece)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if content is None:
        return ""
    raise TypeError(f"message content is a {type(content).__name__}")


def _import_httpx(feature: str) -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingExtraError(feature=feature, extra="summarizer", module="httpx") from None
    return httpx
