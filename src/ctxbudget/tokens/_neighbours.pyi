# The C extension built from _neighbours.c (see neighbours.py, which is what to import).

from collections.abc import Iterable, Sequence

class Neighbours:
    def __init__(
        self, flag_table: bytes, more_flag_table: bytes, lead_flag_table: bytes
    ) -> None: ...
    def counts(self, data: bytes, line_start: bool, /) -> tuple[int, ...]: ...

class UnmergedPairs:
    def __init__(self, table: bytes, vocabularies: int) -> None: ...
    def counts(self, data: bytes, /) -> tuple[int, ...]: ...

class PairFloors:
    def __init__(
        self,
        unmerged: bytes,
        pairs: bytes,
        triples: bytes,
        whole_pairs: bytes,
        whole_triples: bytes,
        places: bytes,
        vocabularies: int,
    ) -> None: ...
    def counts(self, data: bytes, wanted: int = -1, /) -> tuple[int, ...]: ...

class LearnedPairs:
    def __init__(
        self, keys: bytes, masks: bytes, vocabularies: int, members: bytes, sets: int
    ) -> None: ...
    def counts(self, data: bytes, /) -> tuple[int, ...]: ...

class Words:
    def __init__(
        self,
        common_words: Iterable[bytes],
        common_parts: Iterable[bytes],
        upper_case_tokens: Iterable[bytes],
        rare_flags: bytes,
        consonant_flags: bytes,
        cap: int,
        long_word: int,
        long_run: int,
        cover: int,
        snake_split: tuple[Iterable[bytes], ...] = (),
        bare_split: tuple[Iterable[bytes], ...] = (),
    ) -> None: ...
    def counts(self, spelled: bytes, mixed: bool, /) -> tuple[int, ...]: ...

class HeldWords:
    def __init__(self, words: Sequence[bytes], costs: bytes, stand_in: bytes) -> None: ...
    def stand_in(self, data: bytes, /) -> tuple[bytes | None, int, int, int, int, int]: ...

def periodic_runs(
    data: bytes, shortest: int, longest: int, units: int, /
) -> list[tuple[int, int, int]]: ...
def unicode_space_changes(data: bytes, /) -> int: ...
def byte_runs(data: bytes, shortest: bytes, /) -> list[tuple[int, int, int]]: ...
def class_counts(data: bytes, table: bytes, classes: int, /) -> tuple[int, ...]: ...
def range_class_counts(data: bytes, first: int, table: bytes, bits: int, /) -> tuple[int, ...]: ...
def weighted_sums(weights: bytes, features: tuple[int, ...], /) -> tuple[float, ...]: ...
