"""A separate compacting process for the concurrency and crash tests (run with ``-m``).

``compact URL SCHEMA SESSION ARCHIVE_DIR GO_FILE DELAY``: write GO_FILE.ready.PID, wait
for GO_FILE, then run
``compact_if_needed`` with a summarizer that takes DELAY seconds; print one JSON line.
``hang URL SCHEMA SESSION ARCHIVE_DIR MARK_FILE``: compact with a summarizer that
writes MARK_FILE and then never returns (the parent kills the process).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ctxbudget.archives import FileArchive
from ctxbudget.compaction import Compacted, CompactionConfig, Compactor
from ctxbudget.errors import CompactionConflictError
from ctxbudget.ledger import open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import SummaryRequest
from ctxbudget.testing import FakeSummarizer
from ctxbudget.tokens import Chars4Counter

CONFIG = CompactionConfig(threshold_ratio=0.5, retain_tokens=180)


def main(
    mode: str, url: str, schema: str, session: str, archive_dir: str, path: str, *rest: str
) -> None:
    options = {} if schema == "-" else {"schema": schema}
    marker = Path(path)
    with open_ledger(url, **options) as ledger:
        if mode == "compact":
            delay = float(rest[0])

            def slow(_: SummaryRequest) -> None:
                time.sleep(delay)

            summarizer = FakeSummarizer("small checkpoint", during=slow)
            ready = marker.with_name(f"{marker.name}.ready.{os.getpid()}")
            ready.write_text("ready")
            while not marker.exists():
                time.sleep(0.005)
        else:

            def hang(_: SummaryRequest) -> None:
                marker.write_text("summarizing")
                time.sleep(600)

            summarizer = FakeSummarizer("never", during=hang)
        meter = TokenMeter(ledger, Chars4Counter(), context_window=1000)
        engine = Compactor(ledger, meter, summarizer, FileArchive(archive_dir), CONFIG)
        try:
            outcome = engine.compact_if_needed(session)
        except CompactionConflictError as conflict:
            print(json.dumps({"outcome": "conflict", "detail": str(conflict)}), flush=True)
            return
        kind = "compacted" if isinstance(outcome, Compacted) else type(outcome).__name__
        print(json.dumps({"outcome": kind}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
