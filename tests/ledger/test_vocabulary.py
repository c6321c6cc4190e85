"""One event vocabulary: the rules, the fold, ``Usage`` and the docs all derive from it."""

from __future__ import annotations

import ast
import dataclasses
import pathlib
import re

import ctxbudget
from ctxbudget.ledger import SURFACE_TYPES
from ctxbudget.ledger.shapes import SHAPE_CHECKS
from ctxbudget.ledger.vocabulary import (
    APPEND_RULES,
    CHUNK_FIELDS,
    CONFIG_FIELDS,
    EVENT_TYPES,
    HEADER_FIELDS,
    MESSAGE_FIELDS,
    USAGE_FIELDS,
    vocabulary_table,
)
from ctxbudget.meter import Usage
from ctxbudget.meter.fold import _BOUNDARY_FOLDS

ROOT = pathlib.Path(ctxbudget.__file__).parent
DOCS = ROOT.parent.parent / "docs" / "events.md"


def test_the_docs_table_is_the_vocabulary() -> None:
    """docs/events.md shows exactly the table the code generates."""
    text = DOCS.read_text("utf-8")
    match = re.search(r"<!-- vocabulary:start -->\n(.*)\n<!-- vocabulary:end -->", text, re.S)
    assert match, "docs/events.md lacks the vocabulary markers"
    assert match.group(1) == vocabulary_table()


def test_the_fold_reads_only_known_types() -> None:
    """Every type the meter's fold dispatches on is declared in the vocabulary."""
    assert set(_BOUNDARY_FOLDS) <= set(EVENT_TYPES)
    assert {kind for kind, known in EVENT_TYPES.items() if known.surface} == SURFACE_TYPES


def test_usage_has_the_vocabulary_fields() -> None:
    """Usage's fields are the vocabulary's usage fields, in order, optional where declared."""
    fields = dataclasses.fields(Usage)
    assert [f.name for f in fields] == [f.name for f in USAGE_FIELDS]
    optional = [f.default is None for f in fields]
    assert optional == [f.optional for f in USAGE_FIELDS]


def test_every_shape_has_a_check() -> None:
    """Each shape a field names is checked by the ledger."""
    nested = (*USAGE_FIELDS, *HEADER_FIELDS, *CONFIG_FIELDS, *MESSAGE_FIELDS, *CHUNK_FIELDS)
    fields = [f for kind in EVENT_TYPES.values() for f in kind.fields] + list(nested)
    assert {f.shape for f in fields if f.shape} == set(SHAPE_CHECKS)


def test_compaction_events_follow_the_contract() -> None:
    """The three compaction events, with the fields and optionality agreed with compaction."""

    def shape(kind: str) -> list[tuple[str, tuple[str, ...], bool]]:
        return [(f.name, f.types, f.optional) for f in EVENT_TYPES[kind].fields]

    assert shape("compaction/start") == [
        ("compaction_id", ("string",), False),
        ("trigger", ("string",), False),
        ("start_seq", ("integer",), False),
        ("end_seq", ("integer",), False),
        ("revision", ("integer",), False),
    ]
    assert EVENT_TYPES["compaction/start"].fields[1].choices == ("pressure", "overflow", "manual")
    assert shape("compaction/summary") == [
        ("compaction_id", ("string",), False),
        ("summary", ("string",), False),
        ("shadowed_seqs", ("array",), False),
        ("shadowed_tokens", ("integer",), False),
        ("locator", ("string",), False),
        ("provider", ("string",), True),
        ("model", ("string",), True),
        ("max_tokens", ("integer",), True),
    ]
    assert shape("compaction/end") == [
        ("compaction_id", ("string",), False),
        ("error", ("string",), True),
    ]
    assert not any(EVENT_TYPES[k].surface for k in EVENT_TYPES if k.startswith("compaction/"))


def _rules_named_in(path: pathlib.Path) -> set[str]:
    rules = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "InvalidEventError":
            args = [*node.args[1:], *(k.value for k in node.keywords if k.arg == "rule")]
            rules |= {a.value for a in args if isinstance(a, ast.Constant)}
    return rules


def test_every_rule_raised_is_documented() -> None:
    """Each rule id an InvalidEventError names is listed in APPEND_RULES (and so the docs)."""
    sources = [*(ROOT / "ledger").glob("*.py"), ROOT / "errors.py"]
    named = set().union(*(_rules_named_in(p) for p in sources))
    named.add("event-size")  # EventTooLargeError passes it by keyword to its base
    assert named <= set(APPEND_RULES), named - set(APPEND_RULES)
    assert len(named) > 15
