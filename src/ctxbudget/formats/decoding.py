"""Request bodies as bytes or text -> JSON values, strictly, or a ``FormatError``.

Every way a body can fail to be JSON a provider would take is named in the error:
bytes that are not UTF-8, a syntax error (with its line and column), nesting so deep
that the json module gives up (``RecursionError``, never let through), ``NaN`` and
``Infinity`` (Python's json module reads them; JSON and the providers do not), and an
escaped lone surrogate (``"\\ud800"``), which no provider accepts and no ledger can store
as UTF-8.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final, NoReturn

from ctxbudget.errors import FormatError

__all__ = ["decode_json"]

# A surrogate escape, paired or not: only then is the decoded value checked for lone ones.
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89abcdefABCDEF]")


def decode_json(raw: bytes | str, where: str) -> Any:
    """The JSON value of ``raw``; ``where`` names it in the error (``"the request body"``)."""
    text = _text(raw, where)
    if not text.strip():
        raise FormatError(f"{where} is empty; it should hold JSON")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise FormatError(
            f"{where} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except _NotJSON as error:
        raise FormatError(
            f"{where} holds {error}, which is not JSON; send a number or null"
        ) from None
    except RecursionError:
        raise FormatError(f"{where} is nested too deeply to be read as JSON") from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise FormatError(f"{where} is not valid JSON ({error})") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value, where)
    return value


class _NotJSON(ValueError):
    pass


def _refuse_constant(name: str) -> NoReturn:
    raise _NotJSON(name)


def _text(raw: bytes | str, where: str) -> str:
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(
            f"{where} is not UTF-8 (byte {error.start}); send JSON encoded as UTF-8"
        ) from None


def _check_surrogates(value: Any, where: str) -> None:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(error.object[error.start])
        raise FormatError(
            f"{where} holds an unpaired surrogate escape (\\u{code:04x}), which is not text; "
            "send the text as UTF-8"
        ) from None
