"""How often a project's own honest history fails the gate: every first-parent commit, judged
without a map against its parent, counted per reason code and per path pattern.

Issue 28: on real histories about one ordinary commit in four failed the required check. Some of
those stops are right (a workflow, ``tox.ini`` or a pytest table changed), others are not (a
``skipif`` re-wrapped, a release commit bumping ``version=``). This benchmark makes the share
visible, so a contract change can be measured before and after on the same histories.

Each commit is judged with the gate's real judging, the same code ``oracle-gate check --base
C^1 --head C`` runs without ``--coverage`` (:func:`oracle_gate.check.run_check`): the project's own
``oracle-gate.toml`` of the parent applies when it has one, the defaults otherwise. Without a map
every verdict is at least ``unscored`` (``oracle_incomplete``: no coverage map); a commit
**fails** when its verdict is ``fail``. ``dynamic_rebinding`` (``unscored``) is counted beside the
fail codes: it too asks a human to look. ``--policy FILE`` judges every commit as if its parent
carried FILE as ``oracle-gate.toml`` (the projects swept have none; ``ignore = ["docs/**"]`` is what
an adopting maintainer would write first): the policy bytes are the only thing replaced.

    .venv/bin/python bench/history_sweep.py /tmp/clone [--rev HEAD] [--limit N] [--examples]
        [--policy FILE] [--json FILE]

Prints three tables (Markdown): the verdicts, each reason code with the commits it appears in, and
each (reason code, path pattern) with the commits and one example. Shares are of all judged
commits. Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.errors import GateError
from oracle_gate.git import Git
from oracle_gate.judge.policy import POLICY_PATH
from oracle_gate.judge.verdict import REASONS, Outcome, ReasonCode, Verdict

#: Codes that ask a human to look (the ``fail`` codes, and ``dynamic_rebinding``).
STOPPING = frozenset(
    {code for code, outcome in REASONS.items() if outcome == Outcome.FAIL} | {ReasonCode.DYNAMIC_REBINDING}
)
#: Files whose name is the pattern wherever they lie (runner files and packaging files).
NAMED_FILES = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        ".pytest.ini",
        "tox.ini",
        "noxfile.py",
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        ".coveragerc",
        ".gitattributes",
        "pipfile",
    }
)


@dataclass
class Tally:
    """What the sweep saw: verdicts, and for each stopping reason the commits it appears in."""

    judged: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    by_code: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_pattern: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    example: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, commit: str, verdict: Verdict) -> None:
        self.judged += 1
        self.verdicts[verdict.verdict.value] += 1
        for reason in verdict.reasons:
            if reason.code not in STOPPING:
                continue
            key = (reason.code.value, path_pattern(reason.path))
            self.by_code[reason.code.value].add(commit)
            self.by_pattern[key].add(commit)
            self.example.setdefault(key, f"{commit[:9]} {reason.detail[:90]}")


def path_pattern(path: str | None) -> str:
    """A path as the pattern the tables group it under: runner and packaging files by name, a
    requirements file by its folder, workflows as one, anything else by top folder and suffix."""
    if not path:
        return "(no path)"
    lowered = path.lower()
    name = posixpath.basename(lowered)
    folder = posixpath.dirname(lowered)
    if lowered.startswith(".github/workflows/"):
        return ".github/workflows/*"
    if name in NAMED_FILES:
        return name if not folder else f"**/{name}"
    if "requirements" in name or "constraints" in name or "requirements" in folder.split("/"):
        return f"{folder}/*.txt" if folder else "*requirements*.txt"
    suffix = posixpath.splitext(name)[1] or "(no suffix)"
    top = lowered.split("/", 1)[0] if folder else ""
    return f"{top}/**/*{suffix}" if top else f"*{suffix}"


def first_parent_commits(repo: Path, rev: str) -> list[str]:
    """The first-parent history of ``rev``, oldest first, without the root commit (no parent)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--first-parent", "--reverse", "--parents", rev],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.split()[0] for line in out.splitlines() if len(line.split()) > 1]


class PolicyOverlay(Git):
    """The repository as git reads it, except that every commit's ``oracle-gate.toml`` is ``policy``."""

    def __init__(self, repo: Path, policy: bytes) -> None:
        super().__init__(repo)
        self.policy = policy

    def read_blobs(self, rev: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        found = super().read_blobs(rev, [p for p in paths if p != POLICY_PATH])
        return {p: self.policy if p == POLICY_PATH else found[p] for p in paths}


def sweep(repo: Path, commits: Iterable[str], policy: bytes | None = None) -> Tally:
    tally = Tally()
    git = PolicyOverlay(repo, policy) if policy is not None else None
    for commit in commits:
        try:
            verdict = run_check(CheckRequest(repo=repo, base=f"{commit}^1", head=commit), git)
        except GateError as error:
            tally.errors.append((commit, str(error)))
            continue
        tally.add(commit, verdict)
    return tally


def share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f} %" if total else "-"


def render(name: str, tally: Tally, seconds: float, examples: bool) -> str:
    """The three Markdown tables."""
    total = tally.judged
    lines = [f"### {name}: {total} first-parent commits judged without a map ({seconds:.0f} s)", ""]
    lines += ["| verdict | commits | share |", "|---|---:|---:|"]
    for verdict in (o.value for o in Outcome):
        lines.append(f"| {verdict} | {tally.verdicts[verdict]} | {share(tally.verdicts[verdict], total)} |")
    if tally.errors:
        lines.append(f"| (gate could not run) | {len(tally.errors)} | |")
    lines += ["", "| reason code | commits | share |", "|---|---:|---:|"]
    for code, commits in sorted(tally.by_code.items(), key=lambda item: (-len(item[1]), item[0])):
        lines.append(f"| `{code}` | {len(commits)} | {share(len(commits), total)} |")
    header = "| reason code | path pattern | commits | share |" + (" example |" if examples else "")
    lines += ["", header, "|---|---|---:|---:|" + ("---|" if examples else "")]
    for (code, pattern), commits in sorted(tally.by_pattern.items(), key=lambda i: (i[0][0], -len(i[1]))):
        row = f"| `{code}` | `{pattern}` | {len(commits)} | {share(len(commits), total)} |"
        if examples:
            row += f" {tally.example[(code, pattern)].replace('|', '/')} |"
        lines.append(row)
    return "\n".join(lines)


def as_json(tally: Tally) -> dict[str, object]:
    return {
        "judged": tally.judged,
        "errors": tally.errors,
        "verdicts": dict(tally.verdicts),
        "by_code": {code: sorted(commits) for code, commits in sorted(tally.by_code.items())},
        "by_pattern": [
            {"code": code, "pattern": pattern, "commits": sorted(commits)}
            for (code, pattern), commits in sorted(tally.by_pattern.items())
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a local clone (its history is read, nothing is written)")
    parser.add_argument("--rev", default="HEAD", help="the tip whose first-parent history is swept")
    parser.add_argument("--limit", type=int, default=0, help="judge only the newest N commits")
    parser.add_argument("--name", help="the project's name in the heading (default: the folder's)")
    parser.add_argument("--examples", action="store_true", help="one example commit per row")
    parser.add_argument("--policy", type=Path, help="judge as if every parent's oracle-gate.toml were this")
    parser.add_argument("--json", type=Path, help="also write the commits behind every row here")
    args = parser.parse_args(argv)
    commits = first_parent_commits(args.repo, args.rev)
    if args.limit:
        commits = commits[-args.limit :]
    started = time.perf_counter()
    tally = sweep(args.repo, commits, args.policy.read_bytes() if args.policy else None)
    print(render(args.name or args.repo.resolve().name, tally, time.perf_counter() - started, args.examples))
    if args.json:
        args.json.write_text(json.dumps(as_json(tally), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
