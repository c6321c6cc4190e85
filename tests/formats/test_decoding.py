"""formats.decode_json: every way a body fails to be JSON is a FormatError that says so."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.errors import FormatError
from ctxbudget.formats import decode_json

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_any_json_value_decodes_to_itself_from_text_and_utf8_bytes(value: object) -> None:
    """decode_json is json.loads for everything that is JSON, escaped or not."""
    for ensure_ascii in (True, False):
        text = json.dumps(value, ensure_ascii=ensure_ascii)
        assert decode_json(text, "body") == value
        assert decode_json(text.encode("utf-8"), "body") == value


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"", "is empty"),
        (b"  \n", "is empty"),
        (b'{"a": \xff}', "is not UTF-8 (byte 6)"),
        (b'{"a": }', "is not valid JSON (line 1, column 7"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"t": NaN}', "holds NaN, which is not JSON"),
        (b'{"t": -Infinity}', "holds -Infinity, which is not JSON"),
        (b'{"n": ' + b"9" * 5000 + b"}", "is not valid JSON"),
        (b'{"s": "\\ud800"}', "unpaired surrogate escape (\\ud800)"),
        (b'{"s": "x\\uDFFFy"}', "unpaired surrogate escape (\\udfff)"),
    ],
)
def test_each_kind_of_bad_body_is_a_format_error_naming_it(raw: bytes, says: str) -> None:
    with pytest.raises(FormatError) as caught:
        decode_json(raw, "the request body")
    assert str(caught.value).startswith("the request body ")
    assert says in str(caught.value)


def test_a_paired_surrogate_escape_and_an_escaped_backslash_are_text() -> None:
    """Only an unpaired surrogate is refused: an emoji written as two escapes is text, and
    so is a backslash followed by the letters "ud800"."""
    assert decode_json('"\\ud83d\\ude00"', "body") == "\U0001f600"
    assert decode_json('"\\\\ud800"', "body") == "\\ud800"
