"""How much of a context window the input may take."""

from __future__ import annotations

from typing import Final

__all__ = [
    "MIN_INPUT_TOKENS",
    "max_input",
    "max_input_with_host_cap",
]

MIN_INPUT_TOKENS: Final = 1
"""Floor of a *derived* input cap, used only when window minus reserve is not positive.

A floor of 1 instead of an error: the kernel cannot tell whether the window is too
small or the reserve too large, and an almost-certain overflow is a visible signal
(``Display.overflow``, ``classify`` says critical) rather than a guess at the cause.
"""


def max_input(window: int, base_input: int, output_reserve: int) -> int:
    """The input cap: the window minus the output reserve, within the host's own cap.

    The window is shared by input and output; reserving output first keeps the
    next answer from being cut off mid-generation.

    - ``output_reserve`` <= 0 (no reserve) or ``window`` <= 0 (unknown window):
      ``base_input`` is returned as is. Nothing was asked to be reserved, so the
      kernel must not invent a constraint, nor narrow a cap the host chose wider.
    - otherwise ``min(base_input, max(window - output_reserve, MIN_INPUT_TOKENS))``,
      where ``base_input`` <= 0 means the host set no cap of its own.
    """
    if output_reserve <= 0 or window <= 0:
        return base_input
    derived = max(window - output_reserve, MIN_INPUT_TOKENS)
    if base_input <= 0:
        return derived
    return min(base_input, derived)


def max_input_with_host_cap(
    window: int, base_input: int, output_reserve: int, host_cap: int
) -> int:
    """Like ``max_input``, but an explicit host cap (> 0) wins outright.

    A configured cap is a decision, not a derived figure: it is returned as is,
    with no window comparison and no floor.
    """
    if host_cap > 0:
        return host_cap
    return max_input(window, base_input, output_reserve)
