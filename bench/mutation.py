"""Diff mutation (SCORING.md 2.4, issue 30): its cost on the generated suite, and its agreement with
mutmut on the same lines.

The generated suite of bench/map_overhead.py (24 modules, 360 tests) is mapped once per size; head
then rewrites ``--lines`` lines (5 per module, each to an equivalent line, so every test still
passes) and ``oracle-gate score`` runs on it (default policy: ``[mutation] mode = "report"``). The
figures come from its ``score.json``: the mutants made, killed, survived, arid, the stage's seconds
against the rest of the score (the diff verdict and the two runs, the target: the stage <= that for
10 lines), and the first run (which records which tests execute the touched lines) against the
second.

With ``--mutmut PATH`` (a mutmut 2.x executable installed in a scratch virtual environment, never
a dependency of the gate: ``python3 -m venv /tmp/mm && /tmp/mm/bin/pip install mutmut==2.4.5``),
mutmut runs on the files of the smallest change, in a copy of head, with the gate's own pytest as
its runner; for every touched line the gate's verdict (its one mutant killed or survived) is put
beside mutmut's (all of mutmut's mutants of that line killed, or one survived). Figures are
printed, never asserted; docs/scoring-mutation.md explains every difference::

    .venv/bin/python bench/mutation.py [--lines 10,50] [--mutmut /tmp/mm/bin/mutmut]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from map_overhead import build_suite, git_env  # noqa: E402

# Five equivalent rewrites per generated module (the line before -> the line after).
REWRITES = (
    ("            total += value * {k}\n", "            total += {k} * value\n"),
    ("            total -= value\n", "            total = total - value\n"),
    ("            total ^= value\n", "            total = total ^ value\n"),
    ("        out.append(sum(chunk) / size)\n", "        out.append(sum(chunk) / float(size))\n"),
    (
        "        self.seen[word] = self.seen.get(word, 0) + 1\n",
        "        self.seen[word] = 1 + self.seen.get(word, 0)\n",
    ),
)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=git_env(), check=True, capture_output=True, text=True)
    return done.stdout.strip()


def make_change(root: Path, lines: int) -> list[tuple[str, int]]:
    """Rewrite ``lines`` lines (5 per module from mod_0 on) and commit; the touched (path, line)s."""
    touched: list[tuple[str, int]] = []
    module = 0
    while len(touched) < lines:
        path = root / "src" / f"mod_{module}.py"
        text = path.read_text()
        k = module % 7 + 2
        for before, after in REWRITES[: lines - len(touched)]:
            old, new = before.format(k=k), after.format(k=k)
            number = text[: text.index(old)].count("\n") + 1
            text = text.replace(old, new, 1)
            touched.append((f"src/mod_{module}.py", number))
        path.write_text(text)
        module += 1
    git(root, "commit", "-qam", f"{lines} equivalent lines")
    return touched


def score(root: Path, parent: str, head: str, coverage: Path, out: Path) -> tuple[float, dict[str, Any]]:
    argv = [sys.executable, "-m", "oracle_gate", "score", "--repo", str(root), "--base", parent]
    argv += ["--head", head, "--coverage", str(coverage), "--score-json", str(out), "--format", "json"]
    started = time.monotonic()
    subprocess.run(argv, cwd=root, env=git_env(), capture_output=True, check=False)
    return time.monotonic() - started, json.loads(out.read_text())


def bench_size(tmp: Path, lines: int) -> tuple[Path, str, list[tuple[str, int]], dict[str, Any]]:
    root = tmp / f"lines{lines}" / "repo"
    root.parent.mkdir(parents=True)
    tests = build_suite(root, 24, 15)
    coverage = root.parent / "maps" / "parent.coverage"
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "oracle_gate",
            "map",
            "--repo",
            str(root),
            "--sha",
            "HEAD",
            "--out",
            str(coverage),
        ],
        cwd=root,
        env=git_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    parent = git(root, "rev-parse", "HEAD")
    touched = make_change(root, lines)
    head = git(root, "rev-parse", "HEAD")
    wall, doc = score(root, parent, head, coverage, root.parent / "score.json")
    mutation, seconds = doc.get("mutation") or {}, doc.get("seconds") or {}
    counts = mutation.get("counts") or {}
    rest = sum(float(seconds.get(k, 0.0)) for k in ("diff", "first", "second"))
    stage = float(seconds.get("mutation", 0.0))
    print(f"\n{lines} touched lines ({tests} tests; score {doc.get('score')}, {wall:.1f} s wall):")
    print(
        "  mutants made {made}, killed {killed}, survived {survived}, arid {arid}, no mutant {no_mutant},"
        " not run {not_run}".format(
            **{k: counts.get(k, 0) for k in ("made", "killed", "survived", "arid", "no_mutant", "not_run")}
        )
    )
    print(
        f"  mutation stage {stage:.2f} s; the score without it (diff + two runs) {rest:.2f} s:"
        f" {stage / rest if rest else 0:.2f}x  (target <= 1.00x for 10 lines)"
    )
    print(
        f"  first run (records the touched lines' tests) {float(seconds.get('first', 0)):.2f} s,"
        f" second run {float(seconds.get('second', 0)):.2f} s"
    )
    return root, head, touched, mutation


def mutmut_lines(root: Path, head: str, files: list[str], mutmut: str) -> dict[tuple[str, int], list[str]]:
    """mutmut's statuses per (path, line) of ``files``, run in a fresh copy of head."""
    copy = root.parent / "mutmut"
    shutil.rmtree(copy, ignore_errors=True)
    git(root, "worktree", "add", "-q", "--detach", str(copy), head)
    runner = f"{sys.executable} -m pytest -x -q -p no:cacheprovider"
    argv = [mutmut, "run", "--paths-to-mutate", ",".join(files), "--tests-dir", "tests", "--runner", runner]
    started = time.monotonic()
    env = {**git_env(), "PYTHONPATH": str(copy / "src")}
    subprocess.run([*argv, "--no-progress"], cwd=copy, env=env, capture_output=True, check=False)
    print(f"  mutmut ran in {time.monotonic() - started:.1f} s")
    found: dict[tuple[str, int], list[str]] = {}
    with sqlite3.connect(copy / ".mutmut-cache") as db:
        rows = db.execute(
            "SELECT SourceFile.filename, Line.line_number, Mutant.status FROM Mutant "
            "JOIN Line ON Mutant.line = Line.id JOIN SourceFile ON Line.sourcefile = SourceFile.id"
        ).fetchall()
    for filename, number, status in rows:
        found.setdefault((str(filename), int(number) + 1), []).append(str(status))
    return found


def compare(mutation: dict[str, Any], theirs: dict[tuple[str, int], list[str]], files: list[str]) -> None:
    ours = {(m["path"], m["line"]): m for m in mutation.get("mutants") or [] if m["path"] in files}
    agree = 0
    print("  line                    gate: mutant -> status            mutmut: statuses")
    for (path, line), mine in sorted(ours.items()):
        statuses = theirs.get((path, line), [])
        their_word = "survived" if any(s in ("bad_survived", "untested") for s in statuses) else "killed"
        if not statuses:
            their_word = "no mutant"
        same = mine["status"] == their_word
        agree += same
        mark = "" if same else "  <- differs"
        print(f"  {path}:{line:<4} {mine['mutation'][:28]:28} {mine['status']:8}  {','.join(statuses)}{mark}")
    print(f"  agreement on killed/survived: {agree} of {len(ours)} lines")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", default="10,50", help="comma-separated sizes of the change")
    parser.add_argument("--mutmut", help="a mutmut 2.x executable (a scratch venv's); omit to skip")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    sizes = sorted(int(n) for n in args.lines.split(","))
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-mutation-") as tmp:
        results = [bench_size(Path(tmp), n) for n in sizes]
        if args.mutmut:
            root, head, touched, mutation = results[0]
            files = sorted({path for path, _ in touched})
            print(f"\nmutmut on {', '.join(files)} ({sizes[0]} touched lines):")
            compare(mutation, mutmut_lines(root, head, files, args.mutmut), files)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
