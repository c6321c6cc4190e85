"""Text for fitting and checking the calibrated profiles, gathered at run time.

Nothing here is stored in the repository. Three sources:

* the dev corpus built by ``../shared/eval/build_corpus.py dev DIR`` (``read_corpus``);
* ``other_text(split)``: kinds of text the dev corpus does not hold (Python packages
  other than the top-level stdlib modules, man pages in nine more languages, Markdown
  documentation, generated JSON, chat, tables, encodings, files escaped into tool-call
  arguments and the arguments of short tool calls, Debian changelogs m-z, Tang/Song
  poetry, and agent transcripts). Files are split by a hash of their path into ``"fit"``
  and ``"check"`` halves (generated text by its seed); transcripts and third-party
  site-packages code are only ever in ``"check"``;
* ``frequency_prose(split)``: everyday prose of 42 languages, drawn word by word at the
  frequencies of wordfreq's lists, and of the Thai National Corpus's that PyThaiNLP
  ships for Thai (PyPI packages; only their frequencies are read, and the halves are
  drawn with seeds of their own).

The reference tokenizers are those of ``../shared/eval/ground_truth.py`` (imported by
path, so the judge and this benchmark count the same way).
"""

from __future__ import annotations

import base64
import codecs
import collections
import gzip
import hashlib
import importlib.util
import itertools
import json
import os
import random
import re
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared"
CHUNK = 6000
SHORT_CHUNK = 600
PER_KIND = 90
SHORT_CALLS = 2 * PER_KIND
"""Generated tool calls per half: a call is a few dozen tokens, where a sample of another
kind is up to 6,000 characters. Twice ``PER_KIND`` (against ``PER_KIND``) took the
tool-call arguments of the agents never fitted on 5.9 -> 5.6 % (DeepSeek V4) and 3.8 ->
3.4 % (Qwen), o200k's and cl100k's within 0.1 point, no kind of text more than 0.4
points worse."""

Sample = dict[str, str]


def load_shared(name: str) -> ModuleType:
    """A module of ../shared/eval, imported by path."""
    path = SHARED / "eval" / f"{name}.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"shared_eval_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_tokenizers() -> dict[str, Callable[[str], int]]:
    """Ground-truth counters by name: cl100k, deepseek_v4, qwen3_6."""
    return dict(load_shared("ground_truth").TOKENIZERS)


def read_corpus(directory: str) -> list[Sample]:
    """The samples of a corpus directory (CATEGORY.jsonl files)."""
    samples: list[Sample] = []
    for path in sorted(Path(directory).glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            samples.extend(json.loads(line) for line in lines)
    return samples


def _half(path: str) -> str:
    return "fit" if hashlib.sha256(_stable(path).encode()).digest()[0] % 2 == 0 else "check"


def _stable(path: str) -> str:
    """A file's name for the split and the order samples are taken in: relative to
    ``SHARED`` for its files, so that both are the same wherever the checkout lies (the
    absolute path put other sessions on each side in another directory)."""
    shared = str(SHARED) + "/"
    return path[len(shared) :] if path.startswith(shared) else path


def _chunks(text: str, size: int) -> Iterator[str]:
    buf: list[str] = []
    length = 0
    for line in text.splitlines(keepends=True):
        if length + len(line) > size and buf:
            yield "".join(buf)
            buf, length = [], 0
        buf.append(line[:size])
        length += len(buf[-1])
    if buf:
        yield "".join(buf)


def _read(path: str) -> str:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def _man(path: str) -> str:
    env = dict(os.environ, MANWIDTH="100", LANG="C.UTF-8", MAN_KEEP_FORMATTING="0")
    try:
        out = subprocess.run(["man", "-l", path], capture_output=True, env=env, timeout=20).stdout
        out = subprocess.run(["col", "-bx"], input=out, capture_output=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.decode("utf-8", "replace")


def _generated_json(seed: int) -> Iterator[tuple[str, str]]:
    """Tool-call-like JSON documents: nested objects, ids, numbers, mixed languages."""
    rng = random.Random(seed)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "user",
        "tool",
        "result",
        "error",
        "path",
        "size",
        "count",
        "name",
        "id",
    ]
    words += ["日本語", "中文", "résumé", "Привет", "status", "2026-11-30T10:00:00Z"]

    def value(depth: int) -> object:
        kind = rng.randrange(6 if depth < 3 else 4)
        if kind == 0:
            return rng.randrange(-(10**6), 10**9)
        if kind == 1:
            return round(rng.uniform(-1000, 1000), rng.randrange(1, 6))
        if kind == 2:
            return " ".join(rng.choice(words) for _ in range(rng.randrange(1, 8)))
        if kind == 3:
            return rng.choice(
                [True, False, None, hashlib.md5(str(rng.random()).encode()).hexdigest()]
            )
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randrange(1, 6))]
        return {f"{rng.choice(words)}_{i}": value(depth + 1) for i in range(rng.randrange(1, 6))}

    for i in range(PER_KIND):
        doc = {f"field_{k}": value(0) for k in range(rng.randrange(5, 40))}
        indent = rng.choice([None, 2, 4])
        text = json.dumps(doc, indent=indent, ensure_ascii=rng.random() < 0.3)
        yield f"generated-json-{seed}-{i}", text


def _generated_chat(seed: int) -> Iterator[tuple[str, str]]:
    """Chat-style lines with emoji, symbols and rare ideographs (astral code points)."""
    rng = random.Random(seed)
    words = [
        "the",
        "build",
        "failed",
        "again",
        "so",
        "I",
        "reran",
        "the",
        "tests",
        "and",
        "now",
        "it",
        "works",
        "fine",
    ]
    words += [
        "please",
        "check",
        "this",
        "log",
        "file",
        "before",
        "we",
        "ship",
        "the",
        "release",
        "tomorrow",
    ]
    symbols = ["✓", "✗", "→", "•", "—", "…", "★", "©", "°", "±", "≤", "≥", "∑", "∞"]
    emoji = [chr(cp) for cp in range(0x1F300, 0x1F650)] + [
        chr(cp) for cp in range(0x1F900, 0x1F9FF)
    ]
    rare_han = [chr(cp) for cp in range(0x20000, 0x2A6DF, 97)]

    def token() -> str:
        roll = rng.random()
        if roll < 0.12:
            return rng.choice(emoji) * rng.randrange(1, 3)
        if roll < 0.18:
            return rng.choice(symbols)
        if roll < 0.22:
            return "".join(rng.choice(rare_han) for _ in range(rng.randrange(1, 4)))
        return rng.choice(words)

    for i in range(PER_KIND):
        lines = [
            " ".join(token() for _ in range(rng.randrange(3, 25)))
            for _ in range(rng.randrange(1, 60))
        ]
        yield f"generated-chat-{seed}-{i}", "\n".join(lines)


def _generated_encoded(seed: int, prose: list[str]) -> Iterator[tuple[str, str]]:
    """Text that is not words: ROT13 of prose, base64, hex digests, UUIDs (tool output)."""
    rng = random.Random(seed)
    for i in range(PER_KIND):
        kind = i % 4
        if kind == 0 and prose:
            text = codecs.encode(rng.choice(prose)[: rng.randrange(200, CHUNK)], "rot13")
        elif kind == 1:
            blob = base64.b64encode(rng.randbytes(rng.randrange(100, 4000))).decode()
            text = "\n".join(blob[j : j + 76] for j in range(0, len(blob), 76))
        elif kind == 2:
            text = "\n".join(
                f"{hashlib.sha256(rng.randbytes(8)).hexdigest()}  file_{j}.tar.gz"
                for j in range(rng.randrange(3, 60))
            )
        else:
            text = "\n".join(
                f'{{"id": "{uuid.UUID(int=rng.getrandbits(128))}", "n": {j}}}'
                for j in range(rng.randrange(3, 60))
            )
        yield f"generated-encoded-{seed}-{i}", text


def _generated_tabular(seed: int, code: list[str]) -> Iterator[tuple[str, str]]:
    """Tab-separated tables and tab-indented code (Makefiles, Go, TSV exports)."""
    rng = random.Random(seed)
    for i in range(PER_KIND // 2):
        if i % 2 and code:
            text = rng.choice(code).replace("    ", "\t")
        else:
            header = "\t".join(
                rng.choice(["id", "name", "size", "path", "owner", "ts"]) for _ in range(5)
            )
            rows = [
                "\t".join(
                    str(rng.choice([rng.randrange(10**6), rng.random(), "ok", "n/a"]))
                    for _ in range(5)
                )
                for _ in range(rng.randrange(2, 80))
            ]
            text = "\n".join([header, *rows])
        yield f"generated-tabular-{seed}-{i}", text


def _generated_escaped(seed: int, texts: list[str]) -> Iterator[tuple[str, str]]:
    """Files as agents send them in tool-call arguments: code, Markdown and changelogs
    escaped into a JSON string (a write or edit call's ``content``), where every newline
    is a two-character ``\\n`` and every quote a ``\\"``."""
    rng = random.Random(seed)
    tools = (("path", "content"), ("file_path", "new_string"), ("filename", "text"))
    for i in range(PER_KIND // 2 if texts else 0):
        name, field = rng.choice(tools)
        body = rng.choice(texts)[: rng.randrange(300, CHUNK)]
        arguments = {name: f"/workspace/src/file_{i}.txt", field: body}
        escaped = json.dumps(arguments, ensure_ascii=rng.random() < 0.5)
        yield f"generated-escaped-{seed}-{i}", escaped


def _generated_calls(seed: int, code: list[str], prose: list[str]) -> Iterator[tuple[str, str]]:
    """The arguments of short tool calls, as agents of every make send them: a shell
    command, a path, a search pattern, a line or two of code to find and replace, a
    one-line description, under the keys of the common tools' schemas, compact or
    spaced. Paths are the Python library's files, written as a workspace, a home or an
    escaped Windows path would hold them; identifiers, code lines and sentences come
    from ``code`` and ``prose``; nothing is taken from a transcript."""
    rng = random.Random(seed)
    files = sorted(str(p.relative_to(STDLIB)) for p in Path(STDLIB).glob("*/*.py"))
    lines = [line.rstrip() for text in code for line in text.splitlines()]
    names = sorted({m for text in code for m in re.findall(r"(?:def|class) (\w+)", text)})
    sentences = [
        s.strip()
        for text in prose
        for s in re.split(r"(?<=[.!?])\s+", text)
        if 20 < len(s.strip()) < 120 and "\n" not in s.strip()
    ]
    programs = [
        "ls -la",
        "cat",
        "python",
        "python -m pytest -q",
        "grep -rn",
        "sed -n '1,80p'",
        "head -50",
        "wc -l",
        "git diff",
        "git log --oneline -5 --",
        "rm",
        "mkdir -p",
        "npm test --",
        "cargo build --manifest-path",
        "go test",
        "find . -name",
        "make -C",
    ]

    def path() -> str:
        """A file of the Python library, as a workspace, a home or Windows holds it."""
        file = rng.choice(files)
        roll = rng.random()
        if roll < 0.3:
            return file
        if roll < 0.6:
            return f"/workspace/{rng.choice(['repo', 'project', 'src'])}/{file}"
        if roll < 0.8:
            return f"/home/{rng.choice(['dev', 'user', 'ubuntu'])}/code/{file}"
        return "C:\\Users\\dev\\code\\" + file.replace("/", "\\")

    def command() -> str:
        program = rng.choice(programs)
        argument = rng.choice([path(), rng.choice(names), f'"{rng.choice(names)}"'])
        text = f"{program} {argument}"
        if rng.random() < 0.3:
            text = f"cd {rng.choice(files).rsplit('/', 1)[0]} && {text}"
        return text + (" 2>&1 | tail -20" if rng.random() < 0.2 else "")

    def snippet() -> str:
        """One to three lines of code, as indented as they were."""
        start = rng.randrange(len(lines))
        return "\n".join(lines[start : start + rng.randrange(1, 4)]).strip("\n") or "pass"

    calls = (
        lambda: {"command": command()},
        lambda: {"command": command(), "description": rng.choice(sentences)},
        lambda: {"command": command(), "timeout": rng.choice([60000, 120000, 300])},
        lambda: {"file_path": path()},
        lambda: {"file_path": path(), "offset": rng.randrange(1, 900), "limit": 200},
        lambda: {"path": path(), "view_range": [n := rng.randrange(1, 500), n + 40]},
        lambda: {"filename": rng.choice(files).rsplit("/", 1)[-1]},
        lambda: {"path": path(), "line_number": rng.randrange(1, 2000)},
        lambda: {"pattern": rng.choice(names), "path": rng.choice(files).rsplit("/", 1)[0]},
        lambda: {"pattern": f"**/*{rng.choice(['.py', '.md', '.ts', '.go'])}"},
        lambda: {"query": rng.choice(sentences)},
        lambda: {"file_path": path(), "old_string": snippet(), "new_string": snippet()},
        lambda: {
            "command": "str_replace",
            "path": path(),
            "old_str": snippet(),
            "new_str": snippet(),
        },
        lambda: {"search": snippet(), "replace": snippet()},
        lambda: {"description": rng.choice(sentences), "prompt": rng.choice(sentences)},
    )
    for i in range(SHORT_CALLS if lines and sentences else 0):
        arguments = rng.choice(calls)()
        separators = rng.choice([(", ", ": "), (",", ":")])
        yield f"generated-calls-{seed}-{i}", json.dumps(arguments, separators=separators)


def _files(patterns: list[str]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        found.extend(sorted(str(p) for p in Path("/").glob(pattern.lstrip("/"))))
    return found


STDLIB = sysconfig.get_paths()["stdlib"]
SITE = sysconfig.get_paths()["purelib"]
RUST_DOCS = "/root/.rustup/toolchains/stable-*/share/doc/rust/html"
"""The Rust toolchain's documentation, where rustup installed it (absent, its kinds are
empty)."""
RUST_BOOKS = ("book", "reference", "rust-by-example", "nomicon", "cargo")
MAN_LANGUAGES = ("de", "fr", "es", "it", "pl", "ru", "uk", "ko", "pt_BR")


def _kinds() -> dict[str, tuple[Callable[[str], str], list[str], bool]]:
    """kind -> (reader, paths, only_for_checking)."""
    return {
        "python_packages": (
            _read,
            _files(
                [
                    f"{STDLIB}/{d}/*.py"
                    for d in (
                        "email",
                        "asyncio",
                        "json",
                        "importlib",
                        "unittest",
                        "xml/dom",
                        "http",
                        "logging",
                        "concurrent/futures",
                        "multiprocessing",
                        "sqlite3",
                        "tomllib",
                        "urllib",
                    )
                ]
            ),
            False,
        ),
        "python_site_packages": (
            _read,
            _files(
                [
                    f"{SITE}/{d}/*.py"
                    for d in (
                        "click",
                        "rich",
                        "httpx",
                        "hypothesis/strategies/_internal",
                        "pydantic",
                    )
                ]
            ),
            True,
        ),
        **{
            f"man_{lang}": (
                _man,
                _files([f"/usr/share/man/{lang}/man1/*.gz", f"/usr/share/man/{lang}/man8/*.gz"]),
                False,
            )
            for lang in MAN_LANGUAGES
        },
        "man_en_sections_5_8": (
            _man,
            _files(["/usr/share/man/man5/*.gz", "/usr/share/man/man8/*.gz"]),
            False,
        ),
        "markdown": (_read, _files(["/usr/share/doc/*/*.md", "/usr/share/doc/*/*.md.gz"]), False),
        # Web pages and style sheets, as agents fetch or read them: manuals and books
        # (prose, code blocks escaped into HTML), API pages (markup, inline scripts), CSS.
        "html_manuals": (
            _read,
            _files(
                [
                    "/usr/share/doc/*/html/*.html",
                    "/usr/lib/node_modules/npm/docs/output/**/*.html",
                    *(f"{RUST_DOCS}/{book}/**/*.html" for book in RUST_BOOKS),
                ]
            ),
            False,
        ),
        "html_api_pages": (
            _read,
            _files([f"{RUST_DOCS}/std/*.html", f"{RUST_DOCS}/std/*/*.html"]),
            False,
        ),
        "css": (
            _read,
            _files([f"{RUST_DOCS}/**/*.css", f"{SITE}/**/*.css", "/usr/share/doc/**/*.css"]),
            False,
        ),
        "changelog_m_z": (
            _read,
            [
                p
                for p in _files(["/usr/share/doc/*/changelog.Debian.gz"])
                if p.split("/")[4][0] >= "m"
            ],
            False,
        ),
        "poetry_tang_song": (
            _read,
            _files(
                ["/usr/share/games/fortunes/tang300.u8", "/usr/share/games/fortunes/song100.u8"]
            ),
            False,
        ),
        "iso_json_other": (
            _read,
            _files(
                [
                    "/usr/share/iso-codes/json/iso_3166-2.json",
                    "/usr/share/iso-codes/json/iso_4217.json",
                    "/usr/share/iso-codes/json/iso_15924.json",
                ]
            ),
            False,
        ),
        "transcripts": (
            _read,
            _files(
                [
                    str(SHARED / "corpus/transcripts/**/*.md"),
                    str(SHARED / "corpus/transcripts/**/*.json"),
                    str(SHARED / "corpus/transcripts/**/*.jsonl"),
                    str(SHARED / "corpus/transcripts/**/*.txt"),
                ]
            ),
            True,
        ),
    }


def other_text(split: str) -> list[Sample]:
    """Samples of other kinds of text for the ``"fit"`` or ``"check"`` half.

    Long chunks (<= 6,000 characters) and short ones (<= 600), about ``PER_KIND`` a kind.
    """
    samples: list[Sample] = []
    for kind, (reader, paths, check_only) in _kinds().items():
        wanted = [p for p in paths if (split == "check" if check_only else _half(p) == split)]
        wanted.sort(key=lambda p: hashlib.sha256(_stable(p).encode()).hexdigest())
        samples.extend(_kind_samples(kind, reader, wanted))
    seed = 1 if split == "fit" else 2
    for source, text in _generated_json(seed):
        samples.append({"category": "generated_json", "source": source, "text": text})
    for source, text in _generated_chat(seed):
        samples.append({"category": "generated_chat", "source": source, "text": text})
    code = [s["text"] for s in samples if s["category"] == "python_packages"]
    for source, text in _generated_tabular(seed, code):
        samples.append({"category": "generated_tabular", "source": source, "text": text})
    prose = [s["text"] for s in samples if s["category"] == "markdown"]
    for source, text in _generated_encoded(seed, prose):
        samples.append({"category": "generated_encoded", "source": source, "text": text})
    files = code + prose + [s["text"] for s in samples if s["category"] == "changelog_m_z"]
    for source, text in _generated_escaped(seed, files):
        samples.append({"category": "generated_escaped", "source": source, "text": text})
    for source, text in _generated_calls(seed, code, prose):
        samples.append({"category": "generated_calls", "source": source, "text": text})
    return samples


def _kind_samples(kind: str, reader: Callable[[str], str], paths: list[str]) -> list[Sample]:
    picked: list[Sample] = []
    # Kinds held in a few big files take more chunks from each.
    long_limit = max(3, PER_KIND // max(1, len(paths)))
    for path in paths:
        text = reader(path)
        if len(text.strip()) < 200:
            continue
        for size, limit in ((CHUNK, long_limit), (SHORT_CHUNK, 2)):
            for i, chunk in enumerate(_chunks(text, size)):
                if i >= limit:
                    break
                if len(chunk.strip()) >= 50:
                    picked.append({"category": kind, "source": path, "text": chunk})
        if len(picked) >= PER_KIND:
            break
    return picked[:PER_KIND]


# -- text agents send -------------------------------------------------------------------------

TRANSCRIPTS = SHARED / "corpus/transcripts"
AGENT_KINDS = ("tool_output", "tool_args", "assistant")
# Agents whose sessions are never fitted on: the check sees agents the fit did not.
UNSEEN_AGENTS = ("openhands", "letta-agent-file", "specstory-globalpose-zh")
PER_AGENT_KIND = 60
MIN_SESSIONS = 4


def _json_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _content_text(content: object) -> str:
    """The text of a message ``content``: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            _content_text(c.get("text", c.get("content", "")))
            for c in content
            if isinstance(c, dict)
        )
    return ""


def _stream_json_pieces(path: Path) -> Iterator[tuple[str, str]]:
    """(kind, text) of a Claude Code ``*_RESPONSE.md`` (stream-json events)."""
    text = path.read_text(encoding="utf-8")
    if "## Raw JSON Output" not in text:
        return
    body = text[text.index("```json", text.index("## Raw JSON Output")) :].split("\n", 2)[2]
    document, _ = json.JSONDecoder().raw_decode(body)
    for event in document.get("_RESPONSE", []) if isinstance(document, dict) else []:
        content = event.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            kind = block.get("type")
            if kind == "text" or kind == "thinking":
                yield "assistant", block.get(kind, "")
            elif kind == "tool_use":
                yield "tool_args", json.dumps(block.get("input", {}), ensure_ascii=False)
            elif kind == "tool_result":
                yield "tool_output", _content_text(block.get("content", ""))


def _message_pieces(node: object) -> Iterator[tuple[str, str]]:
    """(kind, text) of any JSON transcript made of role/content messages and tool calls
    (OpenAI-style, SWE-agent, OpenHands, Letta), found by walking the document."""
    if isinstance(node, list):
        for item in node:
            yield from _message_pieces(item)
        return
    if isinstance(node, dict):
        yield from _dict_pieces(node)
        for value in node.values():
            if isinstance(value, dict | list):
                yield from _message_pieces(value)


def _dict_pieces(node: dict[str, Any]) -> Iterator[tuple[str, str]]:
    role = node.get("role")
    if role in ("assistant", "tool", "function") or node.get("message_type") == "observation":
        kind = "assistant" if role == "assistant" else "tool_output"
        yield kind, _content_text(node.get("content", ""))
    for call in node.get("tool_calls") or []:
        if isinstance(call, dict):
            yield "tool_args", _json_text(call.get("function", {}).get("arguments", ""))
    for key in ("observation", "thought"):
        if isinstance(node.get(key), str):
            yield ("assistant" if key == "thought" else "tool_output"), node[key]


def _specstory_pieces(path: Path) -> Iterator[tuple[str, str]]:
    """(kind, text) of a SpecStory Markdown export: ``<tool-use>`` blocks are tool
    traffic, the rest is the conversation."""
    text = path.read_text(encoding="utf-8", errors="replace")
    for i, part in enumerate(text.replace("</tool-use>", "<tool-use").split("<tool-use")):
        yield ("tool_output" if i % 2 else "assistant"), part


def _sharegpt_pieces(path: Path) -> Iterator[tuple[str, str]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            for turn in json.loads(line).get("conversations", []):
                if turn.get("from") == "gpt":
                    yield "assistant", turn.get("value", "")


def _sessions() -> Iterator[tuple[str, Path, Callable[[Path], Iterator[tuple[str, str]]]]]:
    """(agent, session file, reader) for every transcript the readers understand."""

    def json_reader(path: Path) -> Iterator[tuple[str, str]]:
        raw = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            yield from _message_pieces([json.loads(line) for line in raw.splitlines() if line])
        else:
            yield from _message_pieces(json.loads(raw))

    for agent_dir in sorted(TRANSCRIPTS.iterdir()) if TRANSCRIPTS.is_dir() else []:
        agent = agent_dir.name
        for path in sorted(agent_dir.rglob("*")):
            if agent == "claude-code-vecsum" and path.name.endswith("_RESPONSE.md"):
                yield agent, path, _stream_json_pieces
            elif agent.startswith("specstory") and path.suffix == ".md":
                yield agent, path, _specstory_pieces
            elif agent == "sharegpt-zh" and path.suffix == ".jsonl":
                yield agent, path, _sharegpt_pieces
            elif agent in ("openhands", "swe-agent", "letta-agent-file") and path.suffix in (
                ".json",
                ".jsonl",
                ".traj",
                ".af",
            ):
                yield agent, path, json_reader


def agent_text(split: str) -> list[Sample]:
    """Text agents send, by kind (``agent_tool_output``, ``agent_tool_args``,
    ``agent_assistant``), from the transcripts of ../shared.

    Sessions (files) are split by a hash of their path (pieces, for an agent with fewer
    than ``MIN_SESSIONS`` sessions); the agents of ``UNSEEN_AGENTS``
    are only ever in ``"check"``. Each piece (a tool result, the arguments of one call,
    one assistant message) is cut into chunks of at most ``CHUNK`` characters; at most
    ``PER_AGENT_KIND`` chunks per agent and kind, taken across its sessions.
    """
    sessions = list(_sessions())
    per_agent = collections.Counter(agent for agent, _, _ in sessions)
    taken: dict[tuple[str, str], list[Sample]] = {}
    for agent, path, reader in sessions:
        for i, (kind, text) in enumerate(reader(path)):
            # An agent with few sessions is split by piece, else by session.
            key = str(path) if per_agent[agent] >= MIN_SESSIONS else f"{path}:{i}"
            if (split == "check") != (agent in UNSEEN_AGENTS or _half(key) == "check"):
                continue
            bucket = taken.setdefault((agent, kind), [])
            for chunk in _chunks(text, CHUNK) if len(text.strip()) >= 20 else ():
                bucket.append(
                    {"category": f"agent_{kind}", "source": f"{agent}:{path.name}", "text": chunk}
                )
    samples: list[Sample] = []
    for bucket in taken.values():
        rng = random.Random(len(bucket))
        samples.extend(rng.sample(bucket, min(PER_AGENT_KIND, len(bucket))))
    return samples


# -- every script, and text made to fool a counter --------------------------------------------

# Languages whose scripts the dev corpus lacks, read from translation catalogs (.mo).
LOCALES = (
    "ar",
    "fa",
    "he",
    "hi",
    "bn",
    "ta",
    "te",
    "th",
    "lo",
    "km",
    "my",
    "bo",
    "ka",
    "hy",
    "am",
    "si",
    "ko",
    "el",
    "ru",
    "uk",
    "be",
    "sr",
    "kk",
    "ky",
    "tt",
    "mn",
    "vi",
    "pa",
    "gu",
    "ml",
    "kn",
)
PER_LOCALE = 12


def locale_text(split: str) -> list[Sample]:
    """Translated messages of installed packages (``/usr/share/locale/*/LC_MESSAGES``),
    about ``PER_LOCALE`` chunks a language, catalogs split by a hash of their path."""
    import gettext

    samples: list[Sample] = []
    for lang in LOCALES:
        taken = 0
        for path in sorted(Path(f"/usr/share/locale/{lang}/LC_MESSAGES").glob("*.mo")):
            if _half(str(path)) != split or taken >= PER_LOCALE:
                continue
            try:
                with path.open("rb") as f:
                    catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
            # A catalog gettext cannot read is skipped: a bad magic number (OSError), or
            # a malformed header, such as a Plural-Forms line without "plural=".
            except (OSError, UnicodeDecodeError, ValueError, IndexError):
                continue
            text = "\n".join(str(v) for k, v in catalog.items() if k and isinstance(v, str))
            for chunk in list(_chunks(text, CHUNK))[:3]:
                if len(chunk.strip()) >= 50 and taken < PER_LOCALE:
                    samples.append(
                        {"category": f"locale_{lang}", "source": str(path), "text": chunk}
                    )
                    taken += 1
    return samples


# Languages as wordfreq (a PyPI package of word frequencies from subtitles, Wikipedia,
# news and the web) lists them: prose drawn word by word at each word's frequency is
# priced as the language's everyday text is, where the catalogs and man pages above hold
# the words of software. wordfreq lists Chinese, Japanese and Korean as a segmenter cut
# them: their words are written back together (``_WRITTEN_TOGETHER``, ``_KOREAN_BOUND``).
# Thai is not in wordfreq: its words are the Thai National Corpus's (``_thai_frequencies``),
# written together too, with a space between phrases.
FREQUENCY_LANGUAGES = (
    "ru", "uk", "bg", "sh", "sl", "pl", "cs", "hu", "fi", "el", "tr", "vi", "de", "fr",
    "es", "pt", "it", "nl", "sv", "nb", "is", "lt", "ro", "id", "fil", "he", "ar", "fa",
    "ur", "hi", "bn", "ta", "ko", "zh", "ja", "th",
)  # fmt: skip
# Only ever checked: a sibling of each is fitted on (Macedonian of Bulgarian, Slovak of
# Czech, Latvian of Lithuanian, Danish of Norwegian, Catalan of Spanish, Malay of
# Indonesian), so the check sees languages the fit did not.
FREQUENCY_LANGUAGES_CHECKED = ("mk", "sk", "lv", "da", "ca", "ms")
PER_FREQUENCY_LANGUAGE = 8
# Written without spaces: words drawn are joined as they come, with the language's own
# comma and full stop.
_WRITTEN_TOGETHER = {"zh": ("，", "。"), "ja": ("、", "。"), "th": (" ", " ")}
# Thai writes a space where a phrase or a sentence ends, and no other mark.
# Korean writes a particle or an ending onto the word before it ("공원" + "을"): a
# syllable drawn alone, or one of these endings of more, is joined to the word before.
_KOREAN_BOUND = frozenset(
    ("에서", "으로", "습니다", "니다", "지만", "는데", "에게", "라고", "한다", "합니다", "까지",
     "세요", "다고", "면서", "부터", "라는", "어서", "다는", "으면", "해서", "니까", "해야", "보다",
     "된다", "해요", "네요", "으며", "처럼", "아요", "한테", "는지", "도록", "라도", "다가", "다면",
     "아서", "인데", "거나", "는다", "어야", "해도", "려고", "인지")
)  # fmt: skip


def frequency_prose(split: str) -> list[Sample]:
    """Prose of ``PER_FREQUENCY_LANGUAGE`` chunks a language (half long, half short),
    its words drawn at their frequencies in wordfreq's lists, in sentences of 4-18 words
    with commas now and then and a capital after each full stop; the halves are drawn
    with different seeds, and the check has languages of its own."""
    try:
        import wordfreq
    except ImportError as error:  # a fitting and benchmark dependency, not the library's
        raise SystemExit("frequency_prose needs wordfreq: pip install -e '.[dev]'") from error
    languages = FREQUENCY_LANGUAGES + (FREQUENCY_LANGUAGES_CHECKED if split == "check" else ())
    samples: list[Sample] = []
    for lang in languages:
        if lang == "th":  # not in wordfreq's lists
            frequencies = _thai_frequencies()
        else:
            # wordfreq writes every digit as 0 ("2024" is "0000"): such words are left out.
            frequencies = {
                word: frequency
                for word, frequency in wordfreq.get_frequency_dict(lang).items()
                if not any(c.isdigit() for c in word)
            }
        words = list(frequencies)
        # Summed once: a list of 700,000 words is summed at every draw otherwise.
        cumulative = list(itertools.accumulate(frequencies.values()))
        seed = hashlib.sha256(f"{split}:{lang}".encode()).digest()
        rng = random.Random(seed)
        for i in range(PER_FREQUENCY_LANGUAGE):
            size = 3000 if i % 2 == 0 else 400
            text = _drawn_prose(rng, words, cumulative, size, lang)
            samples.append(
                {"category": f"prose_{lang}", "source": f"wordfreq:{lang}:{i}", "text": text}
            )
    return samples


def _thai_frequencies() -> dict[str, float]:
    """The words of Thai letters in the Thai National Corpus's frequency list, which
    PyThaiNLP ships (wordfreq has no Thai)."""
    try:
        from pythainlp.corpus import tnc
    except ImportError as error:  # a fitting and benchmark dependency, not the library's
        raise SystemExit("frequency_prose needs pythainlp: pip install -e '.[dev]'") from error
    return {
        word: float(count)
        for word, count in tnc.word_freqs()
        if word and all("\u0e00" <= c <= "\u0e7f" for c in word)
    }


def _drawn_prose(
    rng: random.Random, words: list[str], cumulative: list[float], size: int, lang: str
) -> str:
    comma, stop = _WRITTEN_TOGETHER.get(lang, (",", "."))
    paragraphs: list[str] = []
    length = 0
    while length < size:
        sentences = []
        for _ in range(rng.randrange(2, 7)):
            drawn = rng.choices(words, cum_weights=cumulative, k=rng.randrange(4, 19))
            drawn[0] = drawn[0][:1].upper() + drawn[0][1:]
            for j in range(len(drawn) - 1):
                if rng.random() < 0.08:
                    drawn[j] += comma
            end = stop if lang in _WRITTEN_TOGETHER else rng.choice("....?!")
            sentences.append(_joined(drawn, lang) + end)
        paragraphs.append(("" if lang in _WRITTEN_TOGETHER else " ").join(sentences))
        length += len(paragraphs[-1])
    return "\n\n".join(paragraphs) + "\n"


def _joined(words: list[str], lang: str) -> str:
    if lang in _WRITTEN_TOGETHER:
        return "".join(words)
    if lang != "ko":
        return " ".join(words)
    out = words[0]
    for word in words[1:]:
        bound = word in _KOREAN_BOUND or (len(word) == 1 and "\uac00" <= word <= "\ud7a3")
        out += word if bound and not out.endswith(",") else " " + word
    return out


def _random_text(rng: random.Random, first: int, last: int, size: int) -> str:
    return "".join(chr(rng.randrange(first, last + 1)) for _ in range(size))


def _soups(rng: random.Random) -> Iterator[str]:
    """Random characters of one Unicode block (assigned or not), with or without spaces."""
    for _ in range(PER_KIND * 3):
        start = (
            rng.choice(
                [
                    rng.randrange(0x80, 0x3000),
                    rng.randrange(0x80, 0xFFFF),
                    rng.randrange(0x10000, 0x30000),
                ]
            )
            & ~0x7F
        )
        if 0xD800 <= start < 0xE000:
            continue
        text = _random_text(rng, start, start + 0x7F, rng.randrange(1, 2000))
        if rng.random() < 0.4:
            words = [text[i : i + rng.randrange(2, 9)] for i in range(0, len(text), 8)]
            text = " ".join(words)
        yield text


def _patterns(rng: random.Random) -> Iterator[str]:
    """Runs of whitespace, repeated short patterns, encodings, piled-up combining marks."""
    alphabets = [
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789",
        "0123456789abcdef",
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        " \t\n\r",
        string_letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        string_letters + "0123456789+/",
    ]
    for _ in range(PER_KIND * 2):
        size = rng.randrange(1, 30000)
        roll = rng.randrange(5)
        if roll == 0:  # a run of one character, or of a short pattern
            unit = "".join(
                rng.choice(
                    [
                        rng.choice(" \t\n\r"),
                        chr(rng.randrange(0x20, 0x7F)),
                        chr(rng.randrange(0x80, 0x3000)),
                    ]
                )
                for _ in range(rng.randrange(1, 5))
            )
            yield unit * (size // len(unit) + 1)
        elif roll == 1:
            alphabet = rng.choice(alphabets)
            yield "".join(rng.choice(alphabet) for _ in range(min(size, 8000)))
        elif roll == 2:
            yield base64.b64encode(rng.randbytes(min(size, 6000))).decode()
        elif roll == 3:
            yield rng.randbytes(min(size, 4000)).hex()
        else:  # zalgo
            yield "".join(
                chr(rng.randrange(0x61, 0x7B))
                + _random_text(rng, 0x300, 0x36F, rng.randrange(0, 20))
                for _ in range(min(size, 400))
            )


def adversarial_text(split: str) -> list[Sample]:
    """Generated text no vocabulary merges: random characters of every block, runs of
    whitespace, repeated patterns, random letters, base64, hex, zalgo."""
    rng = random.Random(11 if split == "fit" else 12)
    samples = [
        {"category": "adversarial_soup", "source": "generated", "text": t} for t in _soups(rng)
    ]
    samples += [
        {"category": "adversarial_pattern", "source": "generated", "text": t}
        for t in _patterns(rng)
    ]
    return samples
