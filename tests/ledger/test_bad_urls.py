"""A ledger URL that cannot be parsed is a ``ConfigError`` that keeps its password to itself."""

from __future__ import annotations

import pytest

from ctxbudget.errors import ConfigError
from ctxbudget.ledger import open_ledger

SECRET = "Sh0uld-N0t-Leak"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://u:{SECRET}@[::1:1/x",  # an unclosed IPv6 bracket
        f"sqlite://u:{SECRET}@[/x",
        f"memory://{SECRET}@[",
    ],
)
def test_an_unparsable_ledger_url_is_a_config_error_without_its_secret(url: str) -> None:
    """urllib's ValueError ("Invalid IPv6 URL") must not escape as a bug, nor echo the URL."""
    with pytest.raises(ConfigError) as caught:
        open_ledger(url)
    assert SECRET not in str(caught.value)
    assert "IPv6" in str(caught.value)
