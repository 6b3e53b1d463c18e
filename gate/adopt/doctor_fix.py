"""``oracle-gate doctor --fix``: the settings the API can make, made, where the token allows.

Two findings can be fixed through the API, each by creating what is missing and nothing else:

* the environment that holds the App's key: created (or updated) with "Selected branches" and a
  deployment branch policy for the default branch. A policy for another branch is never deleted
  (it stays a finding: the maintainer decides); the secrets are never written, by design: the
  App's private key goes from the maintainer's hands into GitHub's, not through this tool.
* the required check: a branch ruleset on the default branch requiring the check with the App as
  its only accepted source (``integration_id``), the App read from its public page (``--app-slug``).

Anything else (the App itself, its permissions, the secrets, the map, the files) stays a step for a
person; doctor says which. A write the token may not make is reported with its HTTP answer.
"""

from __future__ import annotations

from collections.abc import Callable

from oracle_gate.adopt.doctor_checks import CLIENT_ID_VARIABLE, ENVIRONMENT, DoctorContext

RULESET_NAME = "Oracle Gate"


def fix_environment(ctx: DoctorContext) -> str:
    """Make the environment usable by the default branch only; say what was done or why not."""
    path = ctx.api.repo(ctx.repo, f"/environments/{ENVIRONMENT}")
    policy = {"protected_branches": False, "custom_branch_policies": True}
    made = ctx.api.write("PUT", path, {"deployment_branch_policy": policy})
    if not made.ok:
        return f"could not create or update the environment {ENVIRONMENT!r}: {made.problem}"
    listed = ctx.api.get(f"{path}/deployment-branch-policies")
    names = (
        {str(p.get("name")) for p in listed.body.get("branch_policies") or [] if isinstance(p, dict)}
        if listed.ok and isinstance(listed.body, dict)
        else set()
    )
    if ctx.branch not in names:
        added = ctx.api.write(
            "POST", f"{path}/deployment-branch-policies", {"name": ctx.branch, "type": "branch"}
        )
        if not added.ok:
            return f"could not allow {ctx.branch!r} to deploy to {ENVIRONMENT!r}: {added.problem}"
    done = f"environment {ENVIRONMENT!r}: deployment branches 'Selected branches' = {ctx.branch}"
    return done + _client_id_variable(ctx, path) + " (its secret is yours to add: doctor never writes one)"


def _client_id_variable(ctx: DoctorContext, path: str) -> str:
    """Set the App's client id (public) as the environment's variable, unless one is there."""
    app = ctx.app()
    client_id = app.body.get("client_id") if app and app.ok and isinstance(app.body, dict) else None
    if not isinstance(client_id, str) or not client_id:
        return f"; {CLIENT_ID_VARIABLE} not set (no --app-slug to read the App's client id from)"
    listed = ctx.api.get(f"{path}/variables")
    if listed.ok and isinstance(listed.body, dict):
        names = {str(v.get("name")) for v in listed.body.get("variables") or [] if isinstance(v, dict)}
        if CLIENT_ID_VARIABLE in names:
            return f"; {CLIENT_ID_VARIABLE} kept as it is"
    made = ctx.api.write("POST", f"{path}/variables", {"name": CLIENT_ID_VARIABLE, "value": client_id})
    if not made.ok:
        return f"; could not set {CLIENT_ID_VARIABLE}: {made.problem}"
    return f"; {CLIENT_ID_VARIABLE} = {client_id} ({ctx.app_slug}'s client id)"


def fix_required_check(ctx: DoctorContext) -> str:
    """Require the check on the default branch with the App as its source, by a new ruleset."""
    app = ctx.app()
    if app is None or not app.ok or not isinstance(app.body, dict) or not isinstance(app.body.get("id"), int):
        return "cannot require the check without the App (--app-slug SLUG of your App)"
    rule = {
        "type": "required_status_checks",
        "parameters": {
            "strict_required_status_checks_policy": False,
            "required_status_checks": [{"context": ctx.check_name, "integration_id": app.body["id"]}],
        },
    }
    ruleset = {
        "name": RULESET_NAME,
        "target": "branch",
        "enforcement": "active",
        "conditions": {"ref_name": {"include": ["~DEFAULT_BRANCH"], "exclude": []}},
        "rules": [rule],
    }
    made = ctx.api.write("POST", ctx.api.repo(ctx.repo, "/rulesets"), ruleset)
    if not made.ok:
        return f"could not create the ruleset {RULESET_NAME!r}: {made.problem}"
    return f"ruleset {RULESET_NAME!r}: '{ctx.check_name}' required on {ctx.branch!r}, source {ctx.app_slug}"


#: finding (``Finding.what`` of :mod:`oracle_gate.adopt.doctor_checks`) -> its fix
FIXES: dict[str, Callable[[DoctorContext], str]] = {
    f"environment {ENVIRONMENT!r}": fix_environment,
    "required check": fix_required_check,
}
