"""Text for fitting and checking the calibrated profiles, gathered at run time.

Nothing here is stored in the repository. Two sources:

* the dev corpus built by ``../shared/eval/build_corpus.py dev DIR`` (``read_corpus``);
* ``other_text(split)``: kinds of text the dev corpus does not hold (Python packages
  other than the top-level stdlib modules, man pages in nine more languages, Markdown
  documentation, generated JSON, Debian changelogs m-z, Tang/Song poetry, and agent
  transcripts). Files are split by a hash of their path into ``"fit"`` and ``"check"``
  halves; transcripts and third-party site-packages code are only ever in ``"check"``.

The reference tokenizers are those of ``../shared/eval/ground_truth.py`` (imported by
path, so the judge and this benchmark count the same way).
"""

from __future__ import annotations

import base64
import codecs
import gzip
import hashlib
import importlib.util
import json
import os
import random
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

SHARED = Path(__file__).resolve().parents[2] / "shared"
CHUNK = 6000
SHORT_CHUNK = 600
PER_KIND = 90

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
    return "fit" if hashlib.sha256(path.encode()).digest()[0] % 2 == 0 else "check"


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


def _files(patterns: list[str]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        found.extend(sorted(str(p) for p in Path("/").glob(pattern.lstrip("/"))))
    return found


STDLIB = sysconfig.get_paths()["stdlib"]
SITE = sysconfig.get_paths()["purelib"]
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
        wanted.sort(key=lambda p: hashlib.sha256(p.encode()).hexdigest())
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
