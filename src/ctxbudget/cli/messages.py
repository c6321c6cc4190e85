"""How an error is told on the command line: one line, ``ctxbudget: error [CODE]: ...``."""

from __future__ import annotations

import re

__all__ = ["error_line", "one_line"]


def one_line(message: str) -> str:
    """``message`` on one line: a driver's multi-line text (libpq's hint) joined with spaces,
    so every error stays one line that a script can match."""
    return re.sub(r"\s*\n\s*", " ", message.strip())


def error_line(code: str, message: str) -> str:
    """The line an error is shown as, with its stable code."""
    return f"ctxbudget: error [{code}]: {one_line(message)}"
