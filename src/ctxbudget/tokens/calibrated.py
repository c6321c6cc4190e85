"""``CalibratedCounter``: a fast linear estimate over text features, fitted per tokenizer.

A ``Profile`` is one non-negative weight per feature of ``ctxbudget.tokens.features``.
The count is ``ceil(sum(weight * feature))`` (at least 1 for non-empty text; a profile
that predicts may round an estimate a hair above a whole token down to it,
``Profile.round_down_within``), raised to the ``pair_floors`` of the vocabularies the
profile names in ``pair_floor`` (a count they do not go below on real text, which text
built to fool the weights cannot hide from); a unit that the text repeats back to back
and ordinary text does not (``unfamiliar_repeats``: ``"TwIh" * 3``, ``"_QZ" * 300``)
costs its repetitions times the count of the unit alone, whole tokens each, where the
weights priced it lower; a character beyond ASCII written again and again (``"？" * 100``,
``"а" * 1000``) costs what the tables of the profile's vocabularies say such a run costs
them (``one_character_run_costs``: "？？" is one token of Qwen's, "аа" two of every one). A
profile that names others in ``at_least`` (the guard names the four tokenizers'
profiles) never counts below what they count. The count is never more than the text's
UTF-8 bytes (or those of its normal form C, where that is longer: Qwen's tokenizer reads
that form): every shipped vocabulary is a byte-level BPE, whose tokens are at least one
byte each, so no text can cost more. Because weights are non-negative and features only
grow as text is appended, the count of ``a + b`` is never below the count of ``a`` when
``b`` starts a new word (a letter run that ``b`` continues can turn into a common word,
which costs less).

Profiles ship in the package (``PROFILE_NAMES``), load from and save to JSON, and can be
fitted to any model's counts with ``fit_profile``.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from itertools import chain, compress
from pathlib import Path
from typing import Any, Final

from ctxbudget.errors import ProfileError
from ctxbudget.tokens.features import (
    FEATURE_NAMES,
    FLOOR_VOCABULARIES,
    composed_bytes,
    one_character_run_costs,
    pair_floors,
    text_features,
    unfamiliar_repeats,
)
from ctxbudget.tokens.neighbours import compiled_function
from ctxbudget.tokens.repeats import RepeatedUnit

__all__ = [
    "PROFILE_FORMAT",
    "PROFILE_NAMES",
    "ROUNDS_UP_BELOW",
    "CalibratedCounter",
    "Profile",
    "WeightedSums",
    "builtin_profile",
    "load_profile",
    "reference_weighted_sums",
    "save_profile",
]

_FEATURE_INDEXES: Final = range(len(FEATURE_NAMES))
_UNMERGED: Final = (None,) * len(FLOOR_VOCABULARIES)
"""What the tables say of a run of a unit of several characters: nothing, per vocabulary
(``one_character_run_costs``)."""

ROUNDS_UP_BELOW: Final = 5.0
"""An estimate under this many tokens rounds up whatever ``round_down_within`` says: one
token is a fifth of such a text or more, and where the weights already priced it a token
short, rounding down took it below the guard property's share (``"〄あ〳つ"``, 6 tokens of
Qwen's: 4). No call of the agent traffic measured counts otherwise."""

PROFILE_FORMAT: Final = "ctxbudget.profile/1"
"""The ``format`` tag of a profile JSON file."""

PROFILE_NAMES: Final = ("central", "claude", "cl100k", "deepseek-v4", "generic", "o200k", "qwen3")
"""Profiles shipped in the package (``calibrated:<name>``)."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Weights of a calibrated counter, one per name in ``FEATURE_NAMES``.

    ``about`` says what the profile was fitted against, for humans. ``pair_floor``: the
    vocabularies (of ``FLOOR_VOCABULARIES``) whose ``pair_floors`` the count never goes
    below: a profile of one tokenizer names its own, the guard all four. A character
    written again and again costs what the largest of them spends on the run, or the
    mean of all four for a profile that names none. ``at_least``:
    built-in profiles (``PROFILE_NAMES``) whose counts this one never goes below: the
    guard names the four tokenizers' profiles, so that no text it prices below one of
    them passes it (their own ``at_least`` is not followed). ``round_down_within``, in
    [0, 1): how far above a whole number of tokens an estimate may lie and still count
    as that number; 0 rounds every estimate up. The shipped profiles that predict
    (a tokenizer's, ``central``) are fitted unbiased and raised to their floors, so
    rounding every hair above a whole token up added a token to short calls, a seventh
    of ``{"command":"python reproduce.py"}`` (o200k's weights say 7.004 of its 7). The
    guard's own weights, and those of the profiles it counts at least, round up, as do an
    estimate under ``ROUNDS_UP_BELOW`` tokens and any text beyond ASCII: there many
    features price classes of characters at their average (an unassigned code point, a
    rare script), and a hair above a whole token is no sign the count is that token
    (``"Nf\U000764fc\t"``, 7 tokens of DeepSeek V4's and Qwen's, estimated 5.1).
    """

    name: str
    weights: tuple[float, ...]
    about: str = field(default="", compare=False)
    pair_floor: tuple[str, ...] = ()
    at_least: tuple[str, ...] = ()
    round_down_within: float = 0.0

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURE_NAMES):
            raise ProfileError(
                f"profile {self.name!r} has {len(self.weights)} weights, "
                f"expected {len(FEATURE_NAMES)} (one per feature)"
            )
        _check_names(self.name, "pair_floor", self.pair_floor, _VOCABULARIES)
        _check_names(self.name, "at_least", self.at_least, _BUILT_IN)
        bad = [n for n, w in zip(FEATURE_NAMES, self.weights, strict=True) if not _valid(w)]
        if bad:
            raise ProfileError(
                f"profile {self.name!r}: weights must be finite and >= 0 ({', '.join(bad)})"
            )
        within = self.round_down_within
        if not (_valid(within) and within < 1):
            raise ProfileError(
                f"profile {self.name!r}: round_down_within must be a number in [0, 1) "
                f"(a share of a token), got {within!r}"
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
        if self.at_least:
            document["at_least"] = list(self.at_least)
        if self.round_down_within:
            document["round_down_within"] = self.round_down_within
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
        floor = _name_list(document, "pair_floor", _VOCABULARIES)
        at_least = _name_list(document, "at_least", _BUILT_IN)
        return cls(
            name=str(document.get("name", "custom")),
            weights=tuple(_number(weights.get(n, 0.0)) for n in FEATURE_NAMES),
            about=str(document.get("about", "")),
            pair_floor=tuple(floor),
            at_least=tuple(at_least),
            round_down_within=_number(document.get("round_down_within", 0.0), "round_down_within"),
        )


@dataclass(frozen=True, slots=True)
class _Names:
    """What a list of names in a profile may hold, for its error messages."""

    kind: str
    plural: str
    known: tuple[str, ...]


_VOCABULARIES: Final = _Names("vocabulary", "vocabularies", FLOOR_VOCABULARIES)
_BUILT_IN: Final = _Names("built-in profile", "profiles", PROFILE_NAMES)


def _check_names(profile: str, key: str, names: object, allowed: _Names) -> None:
    """``names`` is a tuple of names ``allowed``, or a ``ProfileError`` says what is not."""
    known = ", ".join(allowed.known)
    if not isinstance(names, tuple):
        raise ProfileError(
            f"profile {profile!r}: {key} must be a tuple of {allowed.kind} names ({known})"
        )
    unknown = [name for name in names if name not in allowed.known]
    if unknown:
        raise ProfileError(
            f"profile {profile!r}: {key} names unknown {allowed.plural} {unknown}; known: {known}"
        )


def _name_list(document: Mapping[str, Any], key: str, allowed: _Names) -> list[str]:
    """The names under ``key`` of a profile's JSON document (none if absent)."""
    names = document.get(key, [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ProfileError(
            f"profile JSON's {key!r} must be a list of {allowed.kind} names "
            f"({', '.join(allowed.known)})"
        )
    return names


def _highest_of(vocabularies: tuple[int, ...]) -> Callable[[tuple[int, ...]], int]:
    """The largest of the floors of ``vocabularies`` (their places), 0 for none: a getter
    made once, where a generator per text and set had cost the guard about 1 %."""
    if not vocabularies:
        return _no_floor
    if len(vocabularies) == 1:
        return operator.itemgetter(vocabularies[0])
    pick = operator.itemgetter(*vocabularies)
    return lambda floors: max(pick(floors))


def _no_floor(floors: tuple[int, ...]) -> int:
    return 0


def _valid(weight: float) -> bool:
    return isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0


def _number(value: Any, what: str = "weight") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProfileError(f"profile {what} {value!r} is not a number")
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


def _most_bytes(text: str) -> int:
    """The most UTF-8 bytes a shipped tokenizer reads of ``text``: its own, or those of
    its normal form C, which Qwen's tokenizer encodes and which can be longer (normal
    form C writes U+0344, a combining dialytika tonos, as two combining marks)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    composed = composed_bytes(text)
    return size if composed is None else max(size, len(composed))


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

    __slots__ = (
        "_floors_wanted",
        "_highest_floors",
        "_prices",
        "_round_down",
        "_round_up",
        "_weighted_sums",
        "name",
        "profile",
    )

    def __init__(self, profile: Profile | str = "generic") -> None:
        if isinstance(profile, str):
            profile = builtin_profile(profile)
        self.profile = profile
        self.name = f"calibrated:{profile.name}"
        # The weights and floors of this profile, then of each it counts at least.
        priced = (profile, *(builtin_profile(name) for name in profile.at_least))
        self._prices = tuple(
            (p.weights, tuple(FLOOR_VOCABULARIES.index(v) for v in p.pair_floor)) for p in priced
        )
        # The vocabularies whose pair floors some set keeps, as a mask of their places.
        self._floors_wanted = sum({1 << v for _, floor in self._prices for v in floor})
        self._highest_floors = tuple(_highest_of(floor) for _, floor in self._prices)
        # Those it counts at least round up: a guard does not lean under.
        self._round_down = (profile.round_down_within, *(0.0 for _ in profile.at_least))
        self._round_up = (0.0,) * len(self._prices)
        self._weighted_sums = _weighted_sums(tuple(weights for weights, _ in self._prices))

    def estimate(self, text: str) -> float:
        """The unrounded estimate of this profile's own weights (the first set summed)."""
        return self._weighted_sums(text_features(text))[0]

    def count(self, text: str) -> int:
        """Estimated tokens in ``text``: the largest of the counts of this profile and of
        those it counts at least, each its rounded estimate raised to its pair floor and
        to the price of the unfamiliar repeats; at least 1 unless empty, at most the
        UTF-8 bytes of ``text`` or of its normal form C."""
        count = self.uncapped(text)
        if count > len(text):  # a text has at least as many bytes as characters
            count = min(count, _most_bytes(text))
        return count

    def uncapped(self, text: str) -> int:
        """The count before the cap at the text's UTF-8 bytes (0 for empty text)."""
        if not text:
            return 0
        encoded = text.encode("utf-8", "surrogatepass")  # once, for the three passes
        paths = self._paths(text, encoded)
        alone: dict[str, list[int]] = {}
        lifts: dict[RepeatedUnit, list[tuple[int, int]]] = {}
        for repeat in unfamiliar_repeats(text, encoded):
            if repeat not in lifts:
                lifts[repeat] = self._lifts(repeat, alone)
            paths = [
                (estimate + over_estimate, floor + over_floor)
                for (estimate, floor), (over_estimate, over_floor) in zip(
                    paths, lifts[repeat], strict=True
                )
            ]
        return max(max(1, estimate, floor) for estimate, floor in paths)

    def _lifts(self, repeat: RepeatedUnit, alone: dict[str, list[int]]) -> list[tuple[int, int]]:
        """Per set of weights, what a run of ``repeat`` costs above the set's estimate of
        the run alone and above its pair floor of the run alone: its repetitions times the
        set's count of the unit alone, or for a unit of one character what the
        vocabularies spend on the run where their tables say
        (``one_character_run_costs``); the largest of the vocabularies the set keeps
        floors of, or the mean of all four for a set that keeps none (it predicts). The
        estimate and the floor are lifted apart, each by what it missed of the run:
        where the floor prices the rest of a text and the estimate the run, lifting
        only the larger of the two lost what the other had right
        (``"\\U00099e7a" * 67 + "}~" * 67``)."""
        unit, times = repeat.unit, repeat.times
        merged = one_character_run_costs(unit, times) if len(unit) == 1 else _UNMERGED
        if None in merged:
            if unit not in alone:  # never more than its bytes, as any text
                most = len(unit.encode("utf-8", "surrogatepass"))
                alone[unit] = [min(one, most) for one in self._rounded(unit)]
            ones = alone[unit]
        else:
            ones = [0] * len(self._prices)  # the tables say what every copy costs
        prices = []
        for (_, vocabularies), one in zip(self._prices, ones, strict=True):
            costs = [times * one if cost is None else cost for cost in merged]
            if vocabularies:
                prices.append(max(costs[v] for v in vocabularies))
            else:
                prices.append(-(-sum(costs) // len(costs)))
        if max(prices) <= 1:
            # Every count is a token at least: a run that costs one lifts none ("...").
            return [(0, 0)] * len(prices)
        run = self._paths(unit * times)
        return [
            (max(0, price - estimate), max(0, price - floor))
            for price, (estimate, floor) in zip(prices, run, strict=True)
        ]

    def _rounded(self, text: str) -> list[int]:
        """Per set of weights, the estimate rounded up (at least 1), raised to its pair
        floor: the price of a unit written again and again, where a hair under a token
        more, taken at every copy, would be whole tokens under (``"TwIh" * 2``: 6 tokens
        of DeepSeek V4's, 4 with its unit's 2.1 rounded down)."""
        return [max(1, estimate, floor) for estimate, floor in self._paths(text, up=True)]

    def _paths(
        self, text: str, encoded: bytes | None = None, *, up: bool = False
    ) -> list[tuple[int, int]]:
        """Per set of weights, its estimate rounded (up, or down within the set's
        ``round_down_within`` where the text is ASCII, unless ``up``) and its pair floor
        (0 for a set that keeps none); the features and floors computed once
        (``encoded``: the text's bytes)."""
        features = text_features(text, encoded)
        wanted = self._floors_wanted
        # Where no set keeps a floor, every getter is ``_no_floor``, which reads none.
        floors = pair_floors(text, encoded, wanted=wanted) if wanted else ()
        allowances = self._round_down if not up and text.isascii() else self._round_up
        return [
            (
                math.ceil(estimate - within if estimate >= ROUNDS_UP_BELOW else estimate),
                highest(floors),
            )
            for estimate, within, highest in zip(
                self._weighted_sums(features), allowances, self._highest_floors, strict=True
            )
        ]

    def __repr__(self) -> str:
        return f"CalibratedCounter({self.profile.name!r})"


WeightedSums = Callable[[tuple[int, ...]], Sequence[float]]
"""A function of a text's features to the weighted sum of each set of weights."""


def reference_weighted_sums(
    rows: tuple[tuple[float, ...], ...], features: tuple[int, ...]
) -> tuple[float, ...]:
    """Per set of weights of ``rows``, ``sum(map(operator.mul, weights, features))``. Only
    the features present are read (most are 0 in any one text): weights are finite and
    not negative, so a feature of 0 adds a zero, which changes no sum."""
    present = list(compress(_FEATURE_INDEXES, features))
    if len(present) < 2:  # a getter of one index gives no tuple
        return tuple(sum(map(operator.mul, weights, features)) for weights in rows)
    pick = operator.itemgetter(*present)
    values = pick(features)
    return tuple(sum(map(operator.mul, pick(weights), values)) for weights in rows)


_MOST_COMPILED_ROWS: Final = 16
"""The most sets of weights the C extension's ``weighted_sums`` sums at once (a profile
and those it counts at least: five for the guard)."""


def _weighted_sums(rows: tuple[tuple[float, ...], ...]) -> WeightedSums:
    """``reference_weighted_sums`` over ``rows``, by the C extension where the package was
    built with it: a Python sum of products costs some microseconds a text, as much as
    the C passes over a short one."""
    compiled = compiled_function("weighted_sums")
    if compiled is None or len(rows) > _MOST_COMPILED_ROWS:
        return functools.partial(reference_weighted_sums, rows)
    packed = array("d", chain.from_iterable(rows)).tobytes()
    sums: WeightedSums = functools.partial(compiled, packed)
    return sums
