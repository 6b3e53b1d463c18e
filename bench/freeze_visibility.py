"""CPU time of v2's freeze-visibility question on a map without the gate's manifest, 5,000 vs 50,000 tests.

``bench/check_scaling.py --no-manifest`` times the whole ``check``; on a loaded machine its wall times
drown this one question in noise. This builds the same maps (``check_scaling.write_map``: 4 files a
test, the same 20-entry freeze) and times, in process, CPU time, the question asked entry by entry
(:func:`gate.maps.read.ran_test_matching`, what ``check`` did before) and as it is asked now
(:func:`gate.maps.ran_tests.ran_tests_matching`: a binary search on rowid, then one pass for what
that did not find), median of ``--runs``.

    .venv/bin/python bench/freeze_visibility.py [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_scaling import freeze_text, write_map

from gate.maps.ran_tests import ran_tests_matching
from gate.maps.read import ran_test_matching

SIZES = ((5_000, 1_000), (50_000, 10_000))


def cpu(function: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        function()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    rng = random.Random(20261129)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-") as tmp:
        for tests, files in SIZES:
            path = Path(tmp) / f"map-{tests}.coverage"
            write_map(path, [f"src/pkg/m{i:05d}.py" for i in range(files)], tests, rng)
            entries = [e["nodeid"] for e in json.loads(freeze_text(tests, "0" * 40, rng))["frozen"]]
            with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
                per_entry = cpu(lambda: [ran_test_matching(path, e, con) for e in entries], args.runs)  # noqa: B023
                one_pass = cpu(lambda: ran_tests_matching(con, entries), args.runs)  # noqa: B023
            figures[tests] = (per_entry, one_pass)
            print(
                f"{tests:>6} tests: entry by entry {per_entry * 1000:8.2f} ms   now {one_pass * 1000:8.2f} ms"
            )
    for column, name in ((0, "entry by entry"), (1, "now")):
        growth = figures[50_000][column] - figures[5_000][column]
        print(f"{name}: +{growth * 1000:.2f} ms CPU from 5,000 to 50,000 tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
