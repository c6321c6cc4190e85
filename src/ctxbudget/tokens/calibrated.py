"""``CalibratedCounter``: a fast linear estimate over text features, fitted per tokenizer.

A ``Profile`` is one non-negative weight per feature of ``ctxbudget.tokens.features``.
The count is ``ceil(sum(weight * feature))`` (at least 1 for non-empty text), raised to
the ``pair_floors`` of the vocabularies the profile names in ``pair_floor`` (a count
they do not go below on real text, which text built to fool the weights cannot hide
from), and never more than the text's UTF-8 bytes: every shipped vocabulary is a
byte-level BPE, whose tokens are at least one byte each, so no text can cost more. Because
weights are non-negative and features only grow as text is appended, the count of
``a + b`` is never below the count of ``a`` when ``b`` starts a new word (a letter run
that ``b`` continues can turn into a common word, which costs less).

Profiles ship in the package (``PROFILE_NAMES``), load from and save to JSON, and can be
fitted to any model's counts with ``fit_profile``.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ctxbudget.errors import ProfileError
from ctxbudget.tokens.features import FEATURE_NAMES, FLOOR_VOCABULARIES, pair_floors, text_features

__all__ = [
    "PROFILE_FORMAT",
    "PROFILE_NAMES",
    "CalibratedCounter",
    "Profile",
    "builtin_profile",
    "load_profile",
    "save_profile",
]

PROFILE_FORMAT: Final = "ctxbudget.profile/1"
"""The ``format`` tag of a profile JSON file."""

PROFILE_NAMES: Final = ("central", "claude", "cl100k", "deepseek-v4", "generic", "o200k", "qwen3")
"""Profiles shipped in the package (``calibrated:<name>``)."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Weights of a calibrated counter, one per name in ``FEATURE_NAMES``.

    ``about`` says what the profile was fitted against, for humans. ``pair_floor``: the
    vocabularies (of ``FLOOR_VOCABULARIES``) whose ``pair_floors`` the count never goes
    below: a profile of one tokenizer names its own, the guard all four.
    """

    name: str
    weights: tuple[float, ...]
    about: str = field(default="", compare=False)
    pair_floor: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURE_NAMES):
            raise ProfileError(
                f"profile {self.name!r} has {len(self.weights)} weights, "
                f"expected {len(FEATURE_NAMES)} (one per feature)"
            )
        if not isinstance(self.pair_floor, tuple):
            raise ProfileError(
                f"profile {self.name!r}: pair_floor must be a tuple of vocabulary names "
                f"({', '.join(FLOOR_VOCABULARIES)})"
            )
        unknown = [v for v in self.pair_floor if v not in FLOOR_VOCABULARIES]
        if unknown:
            raise ProfileError(
                f"profile {self.name!r}: pair_floor names unknown vocabularies {unknown}; "
                f"known: {', '.join(FLOOR_VOCABULARIES)}"
            )
        bad = [n for n, w in zip(FEATURE_NAMES, self.weights, strict=True) if not _valid(w)]
        if bad:
            raise ProfileError(
                f"profile {self.name!r}: weights must be finite and >= 0 ({', '.join(bad)})"
            )

    def weight(self, feature: str) -> float:
        """The weight of one feature by name."""
        return self.weights[FEATURE_NAMES.index(feature)]

    def to_json(self) -> dict[str, Any]:
        """The JSON document ``load_profile`` reads back."""
        document: dict[str, Any] = {
            "format": PROFILE_FORMAT,
            "name": self.name,
            "about": self.about,
        }
        if self.pair_floor:
            document["pair_floor"] = list(self.pair_floor)
        document["weights"] = dict(zip(FEATURE_NAMES, self.weights, strict=True))
        return document

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Profile:
        """A profile from its JSON document; missing features weigh 0."""
        if not isinstance(document, Mapping) or document.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"not a ctxbudget profile: expected format {PROFILE_FORMAT!r}")
        weights = document.get("weights")
        if not isinstance(weights, Mapping):
            raise ProfileError("profile JSON needs a 'weights' object of feature: weight")
        unknown = sorted(set(weights) - set(FEATURE_NAMES))
        if unknown:
            raise ProfileError(
                f"profile weighs unknown features {unknown}; known: {', '.join(FEATURE_NAMES)}"
            )
        floor = document.get("pair_floor", [])
        if not isinstance(floor, list) or not all(isinstance(v, str) for v in floor):
            raise ProfileError(
                "profile JSON's 'pair_floor' must be a list of vocabulary names "
                f"({', '.join(FLOOR_VOCABULARIES)})"
            )
        return cls(
            name=str(document.get("name", "custom")),
            weights=tuple(_number(weights.get(n, 0.0)) for n in FEATURE_NAMES),
            about=str(document.get("about", "")),
            pair_floor=tuple(floor),
        )


def _valid(weight: float) -> bool:
    return isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProfileError(f"profile weight {value!r} is not a number")
    return float(value)


def load_profile(path: str | Path) -> Profile:
    """Read a profile JSON file."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"cannot read profile {str(path)!r}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ProfileError(f"profile {str(path)!r} is not valid JSON: {exc}") from exc
    return Profile.from_json(document)


def save_profile(profile: Profile, path: str | Path) -> None:
    """Write a profile as JSON (``load_profile`` reads it back equal)."""
    text = json.dumps(profile.to_json(), indent=2, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")


@functools.cache
def builtin_profile(name: str) -> Profile:
    """A profile shipped in the package, by name (see ``PROFILE_NAMES``)."""
    if name not in PROFILE_NAMES:
        raise ProfileError(
            f"no built-in profile {name!r}; built-in profiles: {', '.join(PROFILE_NAMES)} "
            "(or give the path of a profile JSON file)"
        )
    raw = resources.files("ctxbudget.tokens").joinpath(f"profiles/{name}.json").read_text("utf-8")
    return Profile.from_json(json.loads(raw))


class CalibratedCounter:
    """Estimates tokens as a weighted sum of text features (see ``Profile``).

    ``profile``: a ``Profile`` or the name of a built-in one. Several times faster than
    running a real tokenizer, and within a few percent of the tokenizer it was fitted to.
    """

    __slots__ = ("_floors", "_weights", "name", "profile")

    def __init__(self, profile: Profile | str = "generic") -> None:
        if isinstance(profile, str):
            profile = builtin_profile(profile)
        self.profile = profile
        self.name = f"calibrated:{profile.name}"
        self._weights = profile.weights
        self._floors = tuple(FLOOR_VOCABULARIES.index(v) for v in profile.pair_floor)

    def estimate(self, text: str) -> float:
        """The unrounded estimate."""
        total: float = sum(map(operator.mul, self._weights, text_features(text)))
        return total

    def count(self, text: str) -> int:
        """Estimated tokens in ``text``: the estimate rounded up, at least 1 unless empty,
        at most the UTF-8 bytes of ``text``."""
        if not text:
            return 0
        count = max(1, math.ceil(self.estimate(text)))
        if self._floors:
            floors = pair_floors(text)
            count = max(count, *(floors[v] for v in self._floors))
        if count > len(text):  # a text has at least as many bytes as characters
            count = min(count, len(text.encode("utf-8", "surrogatepass")))
        return count

    def __repr__(self) -> str:
        return f"CalibratedCounter({self.profile.name!r})"
