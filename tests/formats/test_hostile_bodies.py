"""Whatever shape a body has, parsing and enforcing it fail only with a ``CtxBudgetError``."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import CtxBudgetError, FormatError
from ctxbudget.formats import FORMAT_NAMES, parse_request

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = st.sampled_from(
    ["messages", "input", "system", "tools", "max_tokens", "instructions", "model", "role"]
)
_BODIES = st.dictionaries(_KEYS, _JSON, max_size=4)


@pytest.mark.parametrize("value", [1, -1, 1.5, float("nan"), True, 10**30])
def test_a_messages_value_that_is_not_a_list_is_a_format_error_when_detecting(value: Any) -> None:
    """Format detection used to iterate ``messages`` blindly (TypeError: not iterable)."""
    with pytest.raises(FormatError):
        parse_request({"messages": value})
    with pytest.raises(FormatError):
        parse_request({"messages": value, "max_tokens": 5})


@settings(max_examples=300, deadline=None)
@given(body=_BODIES, format=st.sampled_from([None, *FORMAT_NAMES]))
def test_any_body_shape_parses_or_raises_a_ctxbudget_error(
    body: dict[str, Any], format: str | None
) -> None:
    with contextlib.suppress(CtxBudgetError):
        parse_request(body, format)


@settings(max_examples=150, deadline=None)
@given(body=_BODIES)
def test_any_body_shape_is_enforced_or_refused_with_a_ctxbudget_error(body: dict[str, Any]) -> None:
    with contextlib.suppress(CtxBudgetError):
        enforce_budget(body, BudgetConfig(max_input_tokens=50))
