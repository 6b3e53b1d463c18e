"""Each of ``oracle-gate doctor``'s checks: what makes the required check real, read through the API.

A check returns one :class:`Finding`: what it found and, when something is missing, the fix in one
line. Anything the token may not read is missing too (doctor cannot vouch for what it cannot see),
and so is an answer doctor cannot use.
"""

from __future__ import annotations

import base64
import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from oracle_gate.adopt.api import Answer, Api
from oracle_gate.adopt.render import PLACEHOLDER, REVIEW_WORKFLOWS, WORKFLOWS, strip_header
from oracle_gate.github.defaults import APP_EVENTS, APP_PERMISSIONS

ENVIRONMENT = "oracle-gate"
SECRETS = ("ORACLE_GATE_APP_KEY",)
#: the App's client id (not a secret: it is on the App's public page); doctor --fix sets it
CLIENT_ID_VARIABLE = "ORACLE_GATE_APP_CLIENT_ID"
RANK = {"read": 1, "write": 2, "admin": 3}
PERMISSIONS = {
    "action": {"checks": "write", "contents": "read", "pull_requests": "write"},
    "bot": APP_PERMISSIONS,  # the bot's manifest asks for exactly these
}
BOT_EVENTS = tuple(APP_EVENTS)
DIFF_LINES = 40


@dataclass(frozen=True)
class Finding:
    ok: bool
    what: str
    detail: str
    fix: str = ""


@dataclass
class DoctorContext:
    """What every doctor check reads: the API, the repository, its default branch, the expected files."""

    api: Api
    repo: str
    branch: str
    check_name: str
    setup: str
    app_slug: str | None
    expected: dict[str, str]  # path -> the text init writes for this repository and version
    _app: Answer | None = field(default=None, repr=False)

    def app(self) -> Answer | None:
        if self.app_slug is None:
            return None
        if self._app is None:
            self._app = self.api.get(f"/apps/{self.app_slug}")
        return self._app

    def file(self, path: str) -> tuple[bytes | None, str]:
        """The default branch's bytes of ``path`` (None: no such file), or a problem."""
        answer = self.api.get(self.api.repo(self.repo, f"/contents/{path}"), ref=self.branch)
        if answer.status == 404:
            return None, ""
        if not answer.ok or not isinstance(answer.body, dict) or answer.body.get("encoding") != "base64":
            return None, answer.problem or "not a file"
        try:
            return base64.b64decode(str(answer.body.get("content", ""))), ""
        except ValueError:
            return None, "its content is not base64"


def _cannot_read(what: str, answer: Answer, needs: str) -> Finding:
    return Finding(False, what, f"cannot read it: {answer.problem}", f"give the token {needs}")


def required_check(ctx: DoctorContext) -> Finding:
    what = "required check"
    fix_source = (
        f"in the branch protection rule or ruleset of {ctx.branch!r}, require '{ctx.check_name}' "
        f"with its expected source set to {ctx.app_slug or 'your App'}"
    )
    app = ctx.app()
    if app is None or not app.ok or not isinstance(app.body, dict):
        return Finding(False, what, "the App is not known (--app-slug)", "pass --app-slug SLUG")
    app_id = app.body.get("id")
    sources = []
    protection = ctx.api.get(ctx.api.repo(ctx.repo, f"/branches/{ctx.branch}/protection"))
    if protection.ok and isinstance(protection.body, dict):
        checks = (protection.body.get("required_status_checks") or {}).get("checks") or []
        sources += [
            ("branch protection", c.get("app_id")) for c in checks if c.get("context") == ctx.check_name
        ]
    elif protection.status not in (404,):
        return _cannot_read(what, protection, "administration: read on the repository")
    rules = ctx.api.get(ctx.api.repo(ctx.repo, f"/rules/branches/{ctx.branch}"))
    if not rules.ok or not isinstance(rules.body, list):
        return _cannot_read(what, rules, "metadata: read on the repository")
    for rule in rules.body:
        if isinstance(rule, dict) and rule.get("type") == "required_status_checks":
            for check in (rule.get("parameters") or {}).get("required_status_checks") or []:
                if check.get("context") == ctx.check_name:
                    sources.append(("ruleset", check.get("integration_id")))
    if not sources:
        return Finding(False, what, f"'{ctx.check_name}' is not required on {ctx.branch!r}", fix_source)
    pinned = [where for where, source in sources if source == app_id]
    if pinned:
        return Finding(True, what, f"'{ctx.check_name}' required by {pinned[0]}, source {ctx.app_slug}")
    return Finding(
        False,
        what,
        f"'{ctx.check_name}' is required but its source is not {ctx.app_slug} (any App could post it)",
        fix_source,
    )


def environment(ctx: DoctorContext) -> Finding:
    what = f"environment {ENVIRONMENT!r}"
    if ctx.setup == "bot":
        return Finding(True, what, "not used by the bot setup (the key stays on the bot's server)")
    return _deployment_branches(ctx, what) or _environment_secrets(ctx, what)


def _deployment_branches(ctx: DoctorContext, what: str) -> Finding | None:
    """A finding when a branch other than the default one may use the environment, else None."""
    answer = ctx.api.get(ctx.api.repo(ctx.repo, f"/environments/{ENVIRONMENT}"))
    fix = (
        f"Settings > Environments > {ENVIRONMENT}: deployment branches 'Selected branches' = "
        f"{ctx.branch} (and gh-readonly-queue/{ctx.branch}/* with a merge queue) only"
    )
    if answer.status == 404:
        return Finding(False, what, "does not exist", f"create it; {fix}")
    if not answer.ok or not isinstance(answer.body, dict):
        return _cannot_read(what, answer, "actions: read on the repository")
    policy = answer.body.get("deployment_branch_policy")
    if not isinstance(policy, dict) or not policy.get("custom_branch_policies"):
        detail = "protected branches may use it" if isinstance(policy, dict) else "every branch may use it"
        return Finding(False, what, detail, fix)
    policies = ctx.api.get(ctx.api.repo(ctx.repo, f"/environments/{ENVIRONMENT}/deployment-branch-policies"))
    if not policies.ok or not isinstance(policies.body, dict):
        return _cannot_read(what, policies, "actions: read on the repository")
    names = {str(p.get("name")) for p in policies.body.get("branch_policies") or [] if isinstance(p, dict)}
    allowed = {ctx.branch, f"gh-readonly-queue/{ctx.branch}/*"}
    if ctx.branch not in names or names - allowed:
        others = ", ".join(sorted(names - allowed)) or "none"
        return Finding(False, what, f"deployment branches {sorted(names)} (others: {others})", fix)
    return None


def _environment_secrets(ctx: DoctorContext, what: str) -> Finding:
    secrets = ctx.api.get(ctx.api.repo(ctx.repo, f"/environments/{ENVIRONMENT}/secrets"))
    if not secrets.ok or not isinstance(secrets.body, dict):
        return _cannot_read(what, secrets, "secrets: read on the repository")
    present = {s.get("name") for s in secrets.body.get("secrets") or [] if isinstance(s, dict)}
    missing = [name for name in SECRETS if name not in present]
    variables = ctx.api.get(ctx.api.repo(ctx.repo, f"/environments/{ENVIRONMENT}/variables"))
    if not variables.ok or not isinstance(variables.body, dict):
        return _cannot_read(what, variables, "environments: read on the repository")
    named = {
        str(v.get("name")): str(v.get("value"))
        for v in variables.body.get("variables") or []
        if isinstance(v, dict)
    }
    app = ctx.app()
    expected = app.body.get("client_id") if app and app.ok and isinstance(app.body, dict) else None
    problems = [f"no secret {', '.join(missing)}"] if missing else []
    if CLIENT_ID_VARIABLE not in named:
        problems.append(f"no variable {CLIENT_ID_VARIABLE}")
    elif expected and named[CLIENT_ID_VARIABLE] != expected:
        problems.append(f"{CLIENT_ID_VARIABLE} is not {ctx.app_slug}'s client id")
    if problems:
        fix = f"add the secret {', '.join(missing)} (gh secret set --env {ENVIRONMENT}); " if missing else ""
        return Finding(False, what, "; ".join(problems), fix + f"doctor --fix sets {CLIENT_ID_VARIABLE}")
    return Finding(
        True, what, f"only {ctx.branch} may use it; it holds {', '.join(SECRETS)} and {CLIENT_ID_VARIABLE}"
    )


def app_permissions(ctx: DoctorContext) -> Finding:
    what = "App permissions"
    app = ctx.app()
    if app is None or not app.ok or not isinstance(app.body, dict):
        problem = app.problem if app is not None else "no --app-slug"
        return Finding(False, what, f"the App cannot be read ({problem})", "pass --app-slug SLUG of your App")
    granted: dict[str, Any] = app.body.get("permissions") or {}
    wanted = PERMISSIONS["bot" if ctx.setup == "bot" else "action"]
    short = [
        f"{name}: {level}"
        for name, level in wanted.items()
        if RANK.get(str(granted.get(name)), 0) < RANK[level]
    ]
    events = set(app.body.get("events") or [])
    absent = [event for event in BOT_EVENTS if event not in events] if ctx.setup == "bot" else []
    if short or absent:
        parts = [f"needs {', '.join(short)}"] if short else []
        parts += [f"no events {', '.join(absent)}"] if absent else []
        detail = "; ".join(parts)
        return Finding(False, what, detail, f"edit the App {ctx.app_slug}'s permissions and events")
    return Finding(True, what, ", ".join(f"{k}: {v}" for k, v in wanted.items()))


def parent_map(ctx: DoctorContext) -> Finding:
    what = "map of the default branch's head"
    branch = ctx.api.get(ctx.api.repo(ctx.repo, f"/branches/{ctx.branch}"))
    if not branch.ok or not isinstance(branch.body, dict):
        return _cannot_read(what, branch, "contents: read on the repository")
    sha = str((branch.body.get("commit") or {}).get("sha", ""))
    fix = f"push to {ctx.branch!r} (the map workflow maps each push) and let it finish"
    if ctx.setup == "bot":
        runs = ctx.api.get(
            ctx.api.repo(ctx.repo, "/actions/workflows/oracle-gate-map.yml/runs"),
            head_sha=sha,
            status="success",
            event="push",
            branch=ctx.branch,
        )
        found = runs.ok and isinstance(runs.body, dict) and runs.body.get("total_count", 0) > 0
    else:
        key = f"oracle-gate-map-{sha}"
        caches = ctx.api.get(ctx.api.repo(ctx.repo, "/actions/caches"), key=key)
        entries = caches.body.get("actions_caches") if caches.ok and isinstance(caches.body, dict) else []
        found = any(e.get("key") == key and e.get("ref") == f"refs/heads/{ctx.branch}" for e in entries or [])
    if not found:
        return Finding(False, what, f"none for {sha[:12]}", fix)
    return Finding(True, what, f"built for {sha[:12]}")


def policy_and_freeze(ctx: DoctorContext) -> Finding:
    from oracle_gate.judge.freeze import parse_freeze
    from oracle_gate.judge.policy import POLICY_PATH, parse_policy

    what = "policy and freeze"
    data, problem = ctx.file(POLICY_PATH)
    if problem:
        return Finding(False, what, f"{POLICY_PATH}: {problem}", "give the token contents: read")
    policy = parse_policy(data)
    freeze_data, problem = ctx.file(policy.freeze)
    if problem:
        return Finding(False, what, f"{policy.freeze}: {problem}", "give the token contents: read")
    problems = [*policy.problems, *parse_freeze(freeze_data, policy.freeze).problems]
    if problems:
        first = problems[0]
        return Finding(
            False, what, f"{first.source}: {first.message}", f"fix {first.source} on {ctx.branch!r}"
        )
    return Finding(
        True, what, f"{POLICY_PATH} and {policy.freeze} parse" + ("" if data else " (no policy file)")
    )


def workflows(ctx: DoctorContext) -> Finding:
    what = "workflows"
    differ = []
    for path, expected in ctx.expected.items():
        data, problem = ctx.file(path)
        if problem:
            return Finding(False, what, f"{path}: {problem}", "give the token contents: read")
        if data is None:
            differ.append((path, "missing", ""))
            continue
        text = data.decode("utf-8", "replace")
        if text != expected:
            diff = difflib.unified_diff(
                strip_header(text).splitlines(),
                strip_header(expected).splitlines(),
                "installed",
                "init",
                lineterm="",
            )
            differ.append((path, "differs from what init writes", "\n".join(list(diff)[:DIFF_LINES])))
    if not differ:
        return Finding(True, what, f"{len(ctx.expected)} file(s) as init writes them for this version")
    summary = "; ".join(f"{path} {why}" for path, why, _ in differ)
    diffs = "".join(f"\n{diff}" for _, _, diff in differ if diff)
    return Finding(False, what, summary + diffs, "run oracle-gate init (--force for a file you edited), push")


PLACEHOLDER_PIN = re.compile(rf"(?:oracle-gate/oracle-gate@|ORACLE_GATE_REF:\s*){PLACEHOLDER}")


def release_pin(ctx: DoctorContext) -> Finding:
    """A workflow that pins the all-zero placeholder cannot run the gate: no check would come."""
    what = "release pin"
    placeholders = []
    for path in ctx.expected:
        data, problem = ctx.file(path)
        if problem:
            return Finding(False, what, f"{path}: {problem}", "give the token contents: read")
        if data is not None and PLACEHOLDER_PIN.search(data.decode("utf-8", "replace")):
            placeholders.append(path)
    if placeholders:
        return Finding(
            False,
            what,
            f"{', '.join(placeholders)} pin the placeholder {PLACEHOLDER[:7]}...: the gate cannot run",
            "run oracle-gate init --ref <the full SHA of the gate's release commit you reviewed>, push",
        )
    return Finding(True, what, "every workflow pins a release commit")


def approvals_table(ctx: DoctorContext) -> Finding:
    """With the review workflows installed, the policy's ``[approvals]`` table is what they are for."""
    from oracle_gate.judge.policy import POLICY_PATH, parse_policy

    what = "approvals"
    reviews = [f"{WORKFLOWS}/{name}" for name in REVIEW_WORKFLOWS if f"{WORKFLOWS}/{name}" in ctx.expected]
    if not reviews:
        return Finding(True, what, f"the {ctx.setup} setup judges reviews without workflows of its own")
    data, problem = ctx.file(POLICY_PATH)
    if problem:
        return Finding(False, what, f"{POLICY_PATH}: {problem}", "give the token contents: read")
    if parse_policy(data).approvals is None:
        return Finding(
            False,
            what,
            f"{POLICY_PATH} has no [approvals] table: the review workflows can lift no oracle reason",
            f"uncomment [approvals] in {POLICY_PATH} and name who may approve oracle changes, push",
        )
    return Finding(True, what, f"{POLICY_PATH} names who may approve oracle changes")


def pinned_ref(text: str) -> str | None:
    found = re.search(r"oracle-gate/oracle-gate@([0-9a-f]{40})", text) or re.search(
        r"ORACLE_GATE_REF: ([0-9a-f]{40})", text
    )
    return found[1] if found and found[1] != PLACEHOLDER else None


CHECKS = (
    required_check,
    environment,
    app_permissions,
    parent_map,
    policy_and_freeze,
    workflows,
    release_pin,
    approvals_table,
)
