"""``oracle-gate freeze add|remove|list``: the freeze's life cycle (issue 18, contract v3.7).

A person quarantines a flaky test in a pull request of their own; these commands write that
pull request's ``freeze.json`` (the path the working tree's policy names) so its diff reads well:
entries sorted by node id, one block per entry, keys in a fixed order, keys the command does not
know kept as they were. ``add`` binds the entry to the current commit's full SHA and refuses a node
id that matches no test pytest collects; ``list`` shows each entry's age (from its bound commit's
date), owner, expiry, whether its test still exists and, given a map, the lines only it observes.

Every refusal is one line and exit 3 (:class:`~oracle_gate.errors.UsageError`). Its
declaration (``COMMAND``, at the end) registers the three commands in the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, TEXT_OR_JSON
from oracle_gate.commands.output import line, write_file
from oracle_gate.errors import GateError, UsageError
from oracle_gate.exit_status import ExitStatus
from oracle_gate.git import Git
from oracle_gate.judge.freeze import ISO_DATE, LOGIN, nodeid_matches
from oracle_gate.judge.policy import POLICY_PATH, Policy, parse_policy
from oracle_gate.maps.node_ids import CollectionFailed, collect_node_ids
from oracle_gate.maps.testpaths import default_test_paths_in

KEY_ORDER = ("nodeid", "reason", "bound_sha", "owner", "expires")
COLLECT_SECONDS = 600


# -- the file -------------------------------------------------------------------------------------


def freeze_path(repo: Path) -> Path:
    """The freeze manifest the working tree's policy names."""
    return repo / working_policy(repo).freeze


def working_policy(repo: Path) -> Policy:
    policy_file = repo / POLICY_PATH
    return parse_policy(policy_file.read_bytes() if policy_file.is_file() else None)


def load(path: Path) -> dict[str, Any]:
    """The manifest as a document (an empty schema-1 one when the file does not exist)."""
    if not path.exists():
        return {"schema": 1, "frozen": []}
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UsageError(f"{path}: cannot read it as JSON ({' '.join(str(exc).split())[:120]})") from exc
    if not isinstance(doc, dict) or doc.get("schema") != 1 or not isinstance(doc.get("frozen"), list):
        raise UsageError(f"{path}: not a schema-1 freeze manifest ({{'schema': 1, 'frozen': [...]}})")
    if not all(isinstance(e, dict) and isinstance(e.get("nodeid"), str) for e in doc["frozen"]):
        raise UsageError(
            f"{path}: every entry must be an object with a string 'nodeid'; fix it by hand first"
        )
    return doc


def render(doc: dict[str, Any]) -> str:
    """The stable layout: entries sorted by node id, known keys first in a fixed order."""
    entries = sorted(doc["frozen"], key=lambda e: str(e["nodeid"]))
    out = {"schema": 1, **{k: v for k, v in doc.items() if k not in ("schema", "frozen")}}
    out["frozen"] = [_ordered(e) for e in entries]
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _ordered(entry: dict[str, Any]) -> dict[str, Any]:
    known = {k: entry[k] for k in KEY_ORDER if k in entry}
    return {**known, **{k: entry[k] for k in sorted(entry) if k not in KEY_ORDER}}


# -- add / remove ---------------------------------------------------------------------------------


def run_freeze_add(args: argparse.Namespace) -> ExitStatus:
    repo = args.repo
    if not args.reason.strip():
        raise UsageError("--reason must not be empty: say why the test is frozen")
    if args.owner is not None and not LOGIN.fullmatch(args.owner):
        raise UsageError(f"--owner {args.owner!r} is not a login (letters, digits, '-', '_', '.')")
    if args.expires is not None and not _is_date(args.expires):
        raise UsageError(f"--expires {args.expires!r} is not a date YYYY-MM-DD")
    path = freeze_path(repo)
    doc = load(path)
    if any(e["nodeid"] == args.nodeid for e in doc["frozen"]):
        raise UsageError(f"{args.nodeid!r} is already in {path.name}; remove it first to change it")
    collected = collect(repo)
    if not any(nodeid_matches(args.nodeid, test) for test in collected):
        raise UsageError(f"{args.nodeid!r} matches no test pytest collects in {repo}")
    entry: dict[str, Any] = {
        "nodeid": args.nodeid,
        "reason": args.reason,
        "bound_sha": Git(repo).commit("HEAD"),
    }
    entry.update({k: v for k, v in (("owner", args.owner), ("expires", args.expires)) if v is not None})
    doc["frozen"].append(entry)
    write_file(path, render(doc))
    line(f"froze {args.nodeid} at {entry['bound_sha'][:12]} in {path.name}")
    return ExitStatus.OK


def run_freeze_remove(args: argparse.Namespace) -> ExitStatus:
    path = freeze_path(args.repo)
    doc = load(path)
    kept = [e for e in doc["frozen"] if e["nodeid"] != args.nodeid]
    if len(kept) == len(doc["frozen"]):
        raise UsageError(f"{args.nodeid!r} is not an entry of {path.name}")
    doc["frozen"] = kept
    write_file(path, render(doc))
    line(f"unfroze {args.nodeid} in {path.name}")
    return ExitStatus.OK


def _is_date(text: str) -> bool:
    if not ISO_DATE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def collect(repo: Path) -> list[str]:
    """Every test pytest collects in ``repo`` (selected or deselected; exit 3 when it cannot): asked of
    pytest through a collection hook, so no ``addopts`` verbosity changes the answer
    (:mod:`oracle_gate.maps.node_ids`)."""
    try:
        # the tests the default map command runs (oracle_gate.maps.testpaths)
        paths = default_test_paths_in(repo, working_policy(repo).harness).paths
        return list(collect_node_ids(repo, paths, timeout=COLLECT_SECONDS).all)
    except CollectionFailed as exc:
        raise UsageError(str(exc)) from exc


# -- list -----------------------------------------------------------------------------------------


def run_freeze_list(args: argparse.Namespace) -> ExitStatus:
    repo = args.repo
    path = freeze_path(repo)
    entries = load(path)["frozen"]
    collected = None if args.no_collect else collect(repo)
    rows = entry_rows(
        entries, Git(repo), today=datetime.now(UTC).date(), collected=collected, coverage=args.coverage
    )
    sys.stdout.write(format_rows(rows, args.format))
    return ExitStatus.OK


def entry_rows(
    entries: list[dict[str, Any]],
    git: Git,
    *,
    today: date,
    collected: list[str] | None,
    coverage: Path | None,
) -> list[dict[str, Any]]:
    """One row per entry: what ``freeze list`` shows (its JSON is these rows)."""
    unique = unique_lines([str(e["nodeid"]) for e in entries], coverage, git.repo) if coverage else None
    rows = []
    for entry in sorted(entries, key=lambda e: str(e["nodeid"])):
        nodeid = str(entry["nodeid"])
        expires = entry.get("expires")
        row: dict[str, Any] = {
            "nodeid": nodeid,
            "reason": entry.get("reason"),
            "owner": entry.get("owner"),
            "expires": expires,
            "expired": isinstance(expires, str) and _is_date(expires) and date.fromisoformat(expires) < today,
            "bound_sha": entry.get("bound_sha"),
            "age_days": age_days(git, entry.get("bound_sha"), today),
            "exists": None if collected is None else any(nodeid_matches(nodeid, t) for t in collected),
        }
        if unique is not None:
            row["unique_lines"] = unique.get(nodeid, {})
        rows.append(row)
    return rows


def age_days(git: Git, sha: object, today: date) -> int | None:
    """Days since the bound commit's committer date (None when it names no commit here)."""
    if not isinstance(sha, str) or not sha:
        return None
    try:
        full = git.commit(sha)
        stamp = git.run(["show", "-s", "--format=%ct", full]).stdout.decode().strip()
    except GateError:
        return None
    return (today - datetime.fromtimestamp(int(stamp), UTC).date()).days


def unique_lines(nodeids: list[str], coverage: Path, root: Path) -> dict[str, dict[str, list[int]]]:
    """Per entry, the lines (path -> lines) that only the tests it freezes observe in the map."""
    from oracle_gate.errors import InputError
    from oracle_gate.maps.reader.data import open_map
    from oracle_gate.maps.reader.manifest import locate

    try:
        data, _manifest = locate(coverage)
        reader, _digest = open_map(data)
        found: dict[str, dict[str, list[int]]] = {}
        for measured in sorted(reader.measured_files()):
            for line, tests in sorted(reader.tests_by_line(measured).items()):
                owners = {n for n in nodeids if any(nodeid_matches(n, t) for t in tests)}
                alone = all(any(nodeid_matches(n, t) for n in owners) for t in tests)
                if len(owners) == 1 and alone:
                    (owner,) = owners
                    found.setdefault(owner, {}).setdefault(_relative(measured, root), []).append(line)
    except InputError as exc:
        raise UsageError(f"--coverage {exc.source}: {exc.problem}") from exc
    return found


def _relative(measured: str, root: Path) -> str:
    path = Path(measured)
    try:
        return path.relative_to(root).as_posix() if path.is_absolute() else measured
    except ValueError:
        return measured


def format_rows(rows: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return "no freeze entries\n"
    out = []
    for row in rows:
        age = "?" if row["age_days"] is None else f"{row['age_days']}d"
        exists = {True: "exists", False: "NO LONGER COLLECTED", None: "not checked"}[row["exists"]]
        expiry = row["expires"] or "no expiry"
        if row["expired"]:
            expiry += " (EXPIRED)"
        out.append(f"{row['nodeid']}  age {age}  owner {row['owner'] or '(none)'}  {expiry}  {exists}")
        for path, lines in sorted(row.get("unique_lines", {}).items()):
            out.append(f"    unique: {path}: {_ranges(lines)}")
        if "unique_lines" in row and not row["unique_lines"]:
            out.append("    unique: none (every line it observes is observed by another test too)")
    return "\n".join(out) + "\n"


def _ranges(lines: list[int]) -> str:
    from oracle_gate.judge.verdict import ranges_text

    return ranges_text(lines)


# -- the declaration ------------------------------------------------------------------------------


def add_add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("nodeid", metavar="NODEID", help="the test id to freeze (as pytest prints it)")
    p.add_argument("--reason", required=True, help="why it is frozen (required, not empty)")
    p.add_argument("--owner", metavar="LOGIN", help="who triages it (a GitHub login)")
    p.add_argument("--expires", metavar="YYYY-MM-DD", help="when it must be looked at again")


def add_remove_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("nodeid", metavar="NODEID")


def add_list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--coverage", type=Path, metavar="MAP", help="a map: also list each entry's unique lines")
    p.add_argument("--no-collect", action="store_true", help="do not run pytest to see which tests exist")


COMMAND = Subcommand(
    "freeze",
    help="add, remove or list freeze entries (writes freeze.json with a stable layout)",
    description="Edit or show the working tree's freeze manifest (the path its oracle-gate.toml names, "
    "default freeze.json). Exit 0 done, 3 refused (one line says why).",
    subcommands=(
        Subcommand(
            "add",
            help="freeze a test, bound to the current commit",
            options=(REPO,),
            add_arguments=add_add_arguments,
            run=run_freeze_add,
        ),
        Subcommand(
            "remove",
            help="unfreeze a test (the entry with exactly this node id)",
            options=(REPO,),
            add_arguments=add_remove_arguments,
            run=run_freeze_remove,
        ),
        Subcommand(
            "list",
            help="each entry's age, owner, expiry, whether its test exists",
            options=(REPO, TEXT_OR_JSON),
            add_arguments=add_list_arguments,
            run=run_freeze_list,
        ),
    ),
)
