"""``oracle-gate init``: write a setup's workflows and ``oracle-gate.toml``, then say what is left.

Idempotent by construction: each file is rendered from the repository's detected values, and a file
already holding exactly that text is left alone and reported unchanged. A file is rewritten only
when ``init`` wrote it and nobody edited it since (its header's digest still matches,
:mod:`oracle_gate.adopt.render`); a file without our header, or one edited by hand, is kept unless
``--force`` says otherwise. What cannot be done from a checkout (the App, the environment, the
required check) ends the run as numbered steps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.adopt.detect import Detected, detect
from oracle_gate.adopt.render import (
    DEFAULT_MAP_REPEAT,
    DEPENDABOT,
    MAX_MAP_REPEAT,
    PLACEHOLDER,
    POLICY,
    SETUPS,
    WORKFLOWS,
    read_header,
    render_dependabot,
    render_policy,
    render_workflow,
    values_for,
    with_header,
)
from oracle_gate.errors import UsageError
from oracle_gate.files import write_atomically

DISTRIBUTION = "pr-oracle-gate"


@dataclass(frozen=True)
class Planned:
    path: str  # relative to the repository
    text: str  # with its header
    only_if_absent: bool = False  # any file already there is the maintainer's, and that is fine


@dataclass(frozen=True)
class FileOutcome:
    """What ``init`` did with one planned file (not a verdict's test outcome)."""

    path: str
    status: str  # written, updated, unchanged, overwritten, kept, exists (only_if_absent)
    why: str = ""


def installed_commit() -> str | None:
    """The commit the running gate was installed from (PEP 610 ``direct_url.json``), if any."""
    from importlib import metadata

    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        commit = json.loads(text or "{}").get("vcs_info", {}).get("commit_id")
    except (metadata.PackageNotFoundError, ValueError, AttributeError):
        return None
    return commit if isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}", commit) else None


def plan(
    detected: Detected,
    setup: str,
    app_slug: str | None,
    ref: str | None,
    map_repeat: int = DEFAULT_MAP_REPEAT,
) -> list[Planned]:
    values = values_for(detected, ref, map_repeat)
    files = [
        Planned(
            f"{WORKFLOWS}/{name}", with_header(render_workflow(name, values), setup, app_slug, map_repeat)
        )
        for name in SETUPS[setup]
    ]
    files.append(Planned(POLICY, with_header(render_policy(), setup, app_slug, map_repeat)))
    files.append(Planned(DEPENDABOT, with_header(render_dependabot(), setup, app_slug), only_if_absent=True))
    return files


def apply(repo: Path, planned: Planned, force: bool) -> FileOutcome:
    target = repo / planned.path
    if target.is_symlink() or (target.exists() and not target.is_file()):
        return FileOutcome(planned.path, "kept", "not a regular file")
    if not target.exists():
        status = "written"
    else:
        current = target.read_text(encoding="utf-8", errors="replace")
        if current == planned.text:
            return FileOutcome(planned.path, "unchanged")
        header = read_header(current)
        if planned.only_if_absent and header is None:
            return FileOutcome(planned.path, "exists", "yours: init writes it only where none exists")
        if header is not None and header.intact:
            status = "updated"
        elif not force:
            why = "edited since init wrote it" if header else "not written by oracle-gate init"
            return FileOutcome(planned.path, "kept", f"{why}; --force replaces it")
        else:
            status = "overwritten"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, planned.text)
    return FileOutcome(planned.path, status)


def manual_steps(
    setup: str, detected: Detected, app_slug: str | None, outcomes: list[FileOutcome]
) -> list[str]:
    branch = detected.default_branch
    app = f"`{app_slug}`" if app_slug else "your App"
    steps = []
    if any(o.path == DEPENDABOT and o.status == "exists" for o in outcomes):
        steps.append(
            f"Make sure {DEPENDABOT} has a `package-ecosystem: github-actions` entry for `directory: /`, "
            "so the actions these workflows pin by full SHA are kept current."
        )
    slug = f" --app-slug {app_slug}" if app_slug else ""
    doctor = "GITHUB_TOKEN=<a token with the repository's administration> oracle-gate doctor" + slug
    if setup == "bot":
        return [
            *steps,
            "Create the bot's App: oracle-gate app-manifest --hook-url https://<your host>/webhook, "
            "then run oracle-gate serve (docs/bot-operations.md).",
            f"Install the App on this repository; commit and push these files to {branch!r}.",
            f"Require the check: {doctor} --fix (a ruleset on {branch!r} requiring 'Oracle Gate' from "
            f"{app}; or by hand: require status checks, expected source {app}, not 'GitHub Actions').",
            f"Check it: {doctor}",
        ]
    return [
        *steps,
        "Create a GitHub App (permissions: checks write, contents read, pull requests write; "
        "no webhook) and install it on this repository.",
        "Name who may approve oracle changes: uncomment [approvals] in oracle-gate.toml and list "
        "them (the review workflows act on it; doctor reports it missing until then).",
        f"Commit and push these files to {branch!r}: the judging workflow runs from the default "
        "branch, and the push builds the first map.",
        f"Let the API do the settings: {doctor} --fix creates the environment 'oracle-gate' with "
        f"deployment branches 'Selected branches' = {branch} only, sets its variable "
        f"ORACLE_GATE_APP_CLIENT_ID to {app}'s client id, and adds a ruleset requiring 'Oracle Gate' "
        f"from {app} (by hand: Settings > Environments, and a ruleset with that expected source; add "
        f"gh-readonly-queue/{branch}/* with a merge queue).",
        "Add the App's private key to that environment (doctor never writes a secret): "
        "gh secret set ORACLE_GATE_APP_KEY --env oracle-gate < your-app.private-key.pem",
        f"Check it: {doctor}",
    ]


def run_init(
    repo: Path,
    *,
    setup: str,
    app_slug: str | None,
    ref: str | None,
    force: bool,
    out: Callable[[str], None],
    map_repeat: int = DEFAULT_MAP_REPEAT,
    output_format: str = "text",
) -> int:
    """Exit 0 when every file is as init renders it, 1 when one was kept (its line says why); a
    usage error (exit 3) when there is no release commit to pin: placeholders are never written."""
    if not 1 <= map_repeat <= MAX_MAP_REPEAT:
        raise UsageError(
            f"--map-repeat must be a whole number of runs from 1 to {MAX_MAP_REPEAT}, got {map_repeat}"
        )
    if app_slug is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,33}", app_slug):
        raise UsageError(f"--app-slug must be an App's slug (lowercase letters, digits, -), got {app_slug!r}")
    if ref is not None and not re.fullmatch(r"[0-9a-f]{40}", ref):
        raise UsageError(f"--ref must be a full 40-character commit SHA, got {ref!r}")
    pinned = ref or installed_commit()
    if pinned is None or pinned == PLACEHOLDER:
        # A placeholder pin cannot run, and a workflow that cannot run is no check at all: nothing
        # is written rather than files that look done.
        raise UsageError(
            "no release commit to pin: pass --ref <the full SHA of the gate's release commit you "
            "reviewed> (this gate was not installed from a commit)"
        )
    detected = detect(repo)
    planned_files = plan(detected, setup, app_slug, pinned, map_repeat)
    outcomes = [apply(repo, planned, force) for planned in planned_files]
    steps = manual_steps(setup, detected, app_slug, outcomes)
    status = 1 if any(outcome.status == "kept" for outcome in outcomes) else 0
    if output_format == "json":
        report = init_report(
            setup, ref=pinned, detected=detected, outcomes=outcomes, steps=steps, status=status
        )
        out(json.dumps(report, indent=2))
        return status
    for note in detected.notes:
        out(f"  detected: {note}")
    for outcome in outcomes:
        out(f"  {outcome.status:<11} {outcome.path}" + (f" ({outcome.why})" if outcome.why else ""))
    if all(outcome.status in ("unchanged", "exists") for outcome in outcomes):
        out("Nothing changed: every file is already as oracle-gate init writes it.")
    out("\nWhat is left to do by hand:")
    for number, step in enumerate(steps, 1):
        out(f"  {number}. {step}")
    return status


def init_report(
    setup: str, *, ref: str, detected: Detected, outcomes: list[FileOutcome], steps: list[str], status: int
) -> dict[str, object]:
    """``init --format json``: the same facts as the text, for a script."""
    return {
        "setup": setup,
        "ref": ref,
        "default_branch": detected.default_branch,
        "python": detected.python,
        "detected": list(detected.notes),
        "files": [{"path": o.path, "status": o.status, "why": o.why} for o in outcomes],
        "manual_steps": steps,
        "exit": status,
    }
