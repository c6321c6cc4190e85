# The C extension built from _neighbours.c (see neighbours.py, which is what to import).

class Neighbours:
    def __init__(
        self, flag_table: bytes, more_flag_table: bytes, lead_flag_table: bytes
    ) -> None: ...
    def counts(self, data: bytes, line_start: bool, /) -> tuple[int, ...]: ...
