"""``oracle-gate doctor``: is the check real? Read through the API, one line per check, with the fix.

Run from the repository's checkout (as ``init``): the workflows ``init`` would write are rendered
from it and compared with the default branch's. Exit 0 only when nothing is missing, 1 when
something is, 3 when doctor could not run (no token, no such repository).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from oracle_gate.adopt import DEFAULT_API_URL, DEFAULT_CHECK_NAME
from oracle_gate.adopt.api import Api
from oracle_gate.adopt.detect import detect
from oracle_gate.adopt.doctor_checks import CHECKS, DoctorContext, pinned_ref
from oracle_gate.adopt.init import plan
from oracle_gate.adopt.render import DEFAULT_MAP_REPEAT, POLICY, SETUPS, WORKFLOWS, read_header
from oracle_gate.errors import UsageError

REPOSITORY = re.compile(r"[A-Za-z0-9-]+/[A-Za-z0-9._-]+")


def origin_repository(checkout: Path) -> str | None:
    """OWNER/NAME of the checkout's ``origin`` on GitHub, if it has one."""
    proc = subprocess.run(
        ["git", "-C", str(checkout), "remote", "get-url", "origin"],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"github\.com[:/]([^/\s]+/[^/\s]+?)(?:\.git)?/?$", proc.stdout.strip())
    return found[1] if found else None


def run_doctor(
    checkout: Path,
    *,
    token: str,
    api_url: str | None,
    repo: str | None,
    setup: str | None,
    app_slug: str | None,
    check_name: str = DEFAULT_CHECK_NAME,
    out: Callable[[str], None],
    output_format: str = "text",
    fix: bool = False,
) -> int:
    if not token:
        raise UsageError("GITHUB_TOKEN is not set (the token is read from the environment, never a flag)")
    full_name = repo or origin_repository(checkout)
    if full_name is None or not REPOSITORY.fullmatch(full_name):
        raise UsageError(f"--repo must be OWNER/NAME (no GitHub origin in {checkout}), got {full_name!r}")
    api = Api(token, api_url or DEFAULT_API_URL)
    info = api.get(api.repo(full_name))
    if not info.ok or not isinstance(info.body, dict):
        raise UsageError(f"cannot read the repository {full_name}: {info.problem}")
    branch = str(info.body.get("default_branch") or "main")
    ctx = DoctorContext(api, full_name, branch, check_name, setup or "primary", app_slug, {})
    data, _ = ctx.file(POLICY)
    header = read_header(data.decode("utf-8", "replace")) if data else None
    ctx.setup = setup or (header.setup if header and header.setup in SETUPS else "primary")
    ctx.app_slug = app_slug or (header.app_slug if header else None)
    first, _ = ctx.file(f"{WORKFLOWS}/{SETUPS[ctx.setup][0]}")
    ref = pinned_ref(first.decode("utf-8", "replace")) if first else None
    repeat = header.map_repeat if header and header.map_repeat else DEFAULT_MAP_REPEAT
    ctx.expected = {
        p.path: p.text
        for p in plan(detect(checkout), ctx.setup, ctx.app_slug, ref, repeat)
        if p.path.startswith(f"{WORKFLOWS}/")
    }
    findings = [check(ctx) for check in CHECKS]
    fixed: list[str] = []
    if fix:
        from oracle_gate.adopt.doctor_fix import FIXES

        fixed = [FIXES[f.what](ctx) for f in findings if not f.ok and f.what in FIXES]
        if fixed:
            findings = [check(ctx) for check in CHECKS]  # read again: what the fixes left
    missing = sum(not finding.ok for finding in findings)
    if output_format == "json":
        report = {
            "repository": full_name,
            "default_branch": branch,
            "setup": ctx.setup,
            "findings": [{"what": f.what, "ok": f.ok, "detail": f.detail, "fix": f.fix} for f in findings],
            "missing": missing,
            "fixed": fixed,
        }
        out(json.dumps(report, indent=2))
        return 0 if missing == 0 else 1
    out(f"oracle-gate doctor: {full_name}, default branch {branch!r}, setup {ctx.setup}")
    for line in fixed:
        out(f"  fix      {line}")
    for finding in findings:
        first_line, _, rest = finding.detail.partition("\n")
        if finding.ok:
            out(f"  ok       {finding.what}: {first_line}")
        else:
            out(f"  MISSING  {finding.what}: {first_line} -> fix: {finding.fix}")
            if rest:
                out("\n".join(f"           {line}" for line in rest.splitlines()))
    out("Nothing is missing." if not missing else f"{missing} thing(s) missing.")
    return 0 if missing == 0 else 1
