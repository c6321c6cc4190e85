"""A separate writer process for the reliability tests (run as a script).

``batches URL SCHEMA SESSION SIZE``: append batches forever; print ``begin N`` as batch N
goes to the store and ``ack N`` once append_many returned.
``race URL SCHEMA SESSION WRITER COUNT``: append COUNT events with expected_revision,
retrying on ConflictError; print the number of conflicts.
``plain URL SCHEMA SESSION WRITER COUNT``: append COUNT events without expected_revision.
"""

from __future__ import annotations

import sys
from typing import Any

from ctxbudget.errors import ConflictError
from ctxbudget.ledger import Ledger, open_ledger


def event(**data: Any) -> dict[str, Any]:
    return {"type": "test/write", "data": data}


def batches(ledger: Ledger, session: str, size: int) -> None:
    number = 0
    while True:
        batch = [event(batch=number, n=n) for n in range(size)]
        print(f"begin {number}", flush=True)
        ledger.append_many(session, batch)
        print(f"ack {number}", flush=True)
        number += 1


def race(ledger: Ledger, session: str, writer: int, count: int) -> None:
    conflicts = 0
    for n in range(count):
        while True:
            revision = ledger.revision(session)
            try:
                ledger.append(session, event(writer=writer, n=n), expected_revision=revision)
                break
            except ConflictError:
                conflicts += 1
    print(conflicts, flush=True)


def plain(ledger: Ledger, session: str, writer: int, count: int) -> None:
    """No expected_revision, no retry: every append must land on its own."""
    for n in range(count):
        ledger.append(session, event(writer=writer, n=n))
    print("done", flush=True)


def main(mode: str, url: str, schema: str, session: str, *numbers: str) -> None:
    options = {} if schema == "-" else {"schema": schema}
    with open_ledger(url, **options) as ledger:
        if mode == "batches":
            batches(ledger, session, int(numbers[0]))
        elif mode == "plain":
            plain(ledger, session, int(numbers[0]), int(numbers[1]))
        else:
            race(ledger, session, int(numbers[0]), int(numbers[1]))


if __name__ == "__main__":
    main(*sys.argv[1:])
