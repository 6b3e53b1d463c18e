"""The repository settings ``oracle-gate doctor`` reads: branches, branch protection, rulesets,
environments (their branch policies and secret names), public Apps, Actions caches and file contents.

State lives in :class:`Settings` (``fake.settings``), seeded by a test as a maintainer would click it
together; the handlers answer from it with the spec's own examples (``responses._rebased``), with
only the fields this state decides overwritten, and the server validates every answer against the
spec as for any other operation.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.github_fake import responses

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.github_fake.server import Call, FakeGitHub, Reply


@dataclass
class Environment:
    #: None: any branch may deploy; else the deployment branch policies' names
    branch_policies: list[str] | None = None
    protected_branches: bool = False
    secrets: list[str] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)


@dataclass
class PublicApp:
    app_id: int
    permissions: dict[str, str]
    events: list[str]


@dataclass
class Settings:
    branches: dict[tuple[str, str], str] = field(default_factory=dict)  # (repo, branch) -> head SHA
    #: (repo, branch) -> [(context, app_id)] of branch protection's required status checks
    protection: dict[tuple[str, str], list[tuple[str, int | None]]] = field(default_factory=dict)
    #: (repo, branch) -> [(context, integration_id)] of rulesets' required status checks
    rules: dict[tuple[str, str], list[tuple[str, int | None]]] = field(default_factory=dict)
    environments: dict[tuple[str, str], Environment] = field(default_factory=dict)
    apps: dict[str, PublicApp] = field(default_factory=dict)
    caches: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # repo -> [(key, ref)]
    files: dict[tuple[str, str, str], bytes] = field(default_factory=dict)  # (repo, ref, path)

    def set_branch(self, repo: str, branch: str, sha: str) -> None:
        self.branches[(repo, branch)] = sha

    def require_check(
        self, repo: str, branch: str, context: str, app_id: int | None, *, ruleset: bool = False
    ) -> None:
        (self.rules if ruleset else self.protection).setdefault((repo, branch), []).append((context, app_id))

    def add_environment(self, repo: str, name: str, environment: Environment) -> None:
        self.environments[(repo, name)] = environment

    def publish_app(self, slug: str, app_id: int, permissions: dict[str, str], events: list[str]) -> None:
        self.apps[slug] = PublicApp(app_id, permissions, events)

    def add_cache(self, repo: str, key: str, ref: str) -> None:
        self.caches.setdefault(repo, []).append((key, ref))

    def put_file(self, repo: str, ref: str, path: str, data: bytes) -> None:
        self.files[(repo, ref, path)] = data


def _settings(fake: FakeGitHub) -> Settings:
    return fake.settings


def branch_get(fake: FakeGitHub, call: Call) -> Reply:
    sha = _settings(fake).branches.get((call.repo, call.params["branch"]))
    if sha is None:
        return fake._not_found()
    data = responses._rebased("branch-get", fake.url, call.repo)
    data["name"] = call.params["branch"]
    data["commit"]["sha"] = sha
    data["protected"] = (call.repo, call.params["branch"]) in _settings(fake).protection
    return _reply(200, data)


def branch_protection_get(fake: FakeGitHub, call: Call) -> Reply:
    checks = _settings(fake).protection.get((call.repo, call.params["branch"]))
    if checks is None:
        return _reply(404, responses.error("Branch not protected", 404))
    data = responses._rebased("branch-protection", fake.url, call.repo)
    # A rule that requires status checks only: no review or push restrictions (the example's teams
    # lack the required 'type', so the official example does not validate with them anyway).
    data.pop("required_pull_request_reviews", None)
    data.pop("restrictions", None)
    required = data["required_status_checks"]
    required["contexts"] = [context for context, _ in checks]
    required["checks"] = [{"context": context, "app_id": app_id} for context, app_id in checks]
    return _reply(200, data)


def branch_rules_get(fake: FakeGitHub, call: Call) -> Reply:
    checks = _settings(fake).rules.get((call.repo, call.params["branch"]), [])
    if not checks:
        return _reply(200, [])
    template = responses._rebased_value("repository-rule-items", fake.url, call.repo)[0]
    required = [
        {"context": context, **({"integration_id": app_id} if app_id is not None else {})}
        for context, app_id in checks
    ]
    rule = {
        key: template[key]
        for key in ("ruleset_id", "ruleset_source", "ruleset_source_type")
        if key in template
    }
    rule["ruleset_source"] = call.repo
    rule["type"] = "required_status_checks"
    rule["parameters"] = {"required_status_checks": required, "strict_required_status_checks_policy": True}
    return _reply(200, [rule])


def _environment(fake: FakeGitHub, call: Call) -> Environment | None:
    return _settings(fake).environments.get((call.repo, call.params["environment_name"]))


def environment_get(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None:
        return fake._not_found()
    data = responses._rebased("environment", fake.url, call.repo)
    data["name"] = call.params["environment_name"]
    data["protection_rules"] = []
    if env.branch_policies is None and not env.protected_branches:
        data["deployment_branch_policy"] = None
    else:
        data["deployment_branch_policy"] = {
            "protected_branches": env.protected_branches,
            "custom_branch_policies": env.branch_policies is not None,
        }
    return _reply(200, data)


def deployment_branch_policies_list(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None:
        return fake._not_found()
    template = responses._rebased("deployment-branch-policies-list", fake.url, call.repo)["branch_policies"][
        0
    ]
    policies = [
        {**template, "id": 1000 + index, "name": name, "type": "branch"}
        for index, name in enumerate(env.branch_policies or [])
    ]
    return _reply(200, {"total_count": len(policies), "branch_policies": policies})


def environment_secrets_list(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None:
        return fake._not_found()
    template = responses._rebased("actions-secret-paginated", fake.url, call.repo)["secrets"][0]
    secrets = [{**template, "name": name} for name in env.secrets]
    return _reply(200, {"total_count": len(secrets), "secrets": secrets})


def client_id(app_id: int) -> str:
    """The fake's client id of the App ``app_id`` (GitHub's are opaque strings like this)."""
    return f"Iv23li{app_id:014d}"


def environment_variables_list(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None:
        return fake._not_found()
    template = responses._rebased("actions-variables-paginated", fake.url, call.repo)["variables"][0]
    variables = [{**template, "name": name, "value": value} for name, value in env.variables.items()]
    return _reply(200, {"total_count": len(variables), "variables": variables})


def environment_variable_create(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None:
        return fake._not_found()
    name = str(call.body["name"])
    if name in env.variables:
        return _reply(409, responses.error("Already exists - Variable already exists", 409))
    env.variables[name] = str(call.body["value"])
    return _reply(201, {})


def app_get_by_slug(fake: FakeGitHub, call: Call) -> Reply:
    slug = call.params["app_slug"]
    app = _settings(fake).apps.get(slug)
    if app is None:
        return fake._not_found()
    data = responses.app(app.app_id, slug, fake.url)
    data.update(permissions=app.permissions, events=app.events, client_id=client_id(app.app_id))
    return _reply(200, data)


def caches_list(fake: FakeGitHub, call: Call) -> Reply:
    key = call.query.get("key", "")
    found = [(k, ref) for k, ref in _settings(fake).caches.get(call.repo, []) if k.startswith(key)]
    template = responses._rebased("actions-cache-list", fake.url, call.repo)["actions_caches"][0]
    caches = [{**template, "id": 500 + index, "key": k, "ref": ref} for index, (k, ref) in enumerate(found)]
    return _reply(200, {"total_count": len(caches), "actions_caches": caches})


def content_get(fake: FakeGitHub, call: Call) -> Reply:
    path = call.params["path"]
    ref = call.query.get("ref", "")
    data = _settings(fake).files.get((call.repo, ref, path))
    if data is None:
        return fake._not_found()
    answer = responses._rebased("content-file-response-if-content-is-a-file", fake.url, call.repo)
    answer.update(
        content=base64.encodebytes(data).decode(),
        encoding="base64",
        size=len(data),
        name=path.rsplit("/", 1)[-1],
        path=path,
        sha=hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),  # noqa: S324  # git's blob id
    )
    return _reply(200, answer)


# -- what ``oracle-gate doctor --fix`` may create (never a secret) -----------------------------------


def environment_put(fake: FakeGitHub, call: Call) -> Reply:
    """Create or update an environment: its deployment branch policy; its secrets are kept."""
    body = call.body or {}
    policy = body.get("deployment_branch_policy")
    current = _environment(fake, call) or Environment()
    if policy is None:
        current.branch_policies, current.protected_branches = None, False
    elif policy.get("custom_branch_policies") == policy.get("protected_branches"):
        return _reply(
            422, responses.error("exactly one of protected_branches and custom_branch_policies", 422)
        )
    else:
        current.protected_branches = bool(policy["protected_branches"])
        if policy["custom_branch_policies"]:
            current.branch_policies = current.branch_policies or []
        else:
            current.branch_policies = None
    _settings(fake).environments[(call.repo, call.params["environment_name"])] = current
    return environment_get(fake, call)


def deployment_branch_policy_create(fake: FakeGitHub, call: Call) -> Reply:
    env = _environment(fake, call)
    if env is None or env.branch_policies is None:
        return fake._not_found()  # GitHub: only with custom_branch_policies set
    name = str(call.body["name"])
    if name not in env.branch_policies:
        env.branch_policies.append(name)
    template = responses._rebased_value("deployment-branch-policy-single-branch", fake.url, call.repo)
    return _reply(
        200, {**template, "id": 1000 + env.branch_policies.index(name), "name": name, "type": "branch"}
    )


def ruleset_create(fake: FakeGitHub, call: Call) -> Reply:
    """A branch ruleset: its required status checks apply to the branches it includes (by name,
    ``refs/heads/NAME``, or ``~DEFAULT_BRANCH``)."""
    body = call.body
    default = fake.state.repos[call.repo].default_branch
    include = ((body.get("conditions") or {}).get("ref_name") or {}).get("include") or []
    branches = [default if ref == "~DEFAULT_BRANCH" else ref.removeprefix("refs/heads/") for ref in include]
    for rule in body.get("rules") or []:
        if rule.get("type") != "required_status_checks" or body.get("enforcement") != "active":
            continue
        for check in rule["parameters"]["required_status_checks"]:
            for branch in branches:
                _settings(fake).require_check(
                    call.repo, branch, check["context"], check.get("integration_id"), ruleset=True
                )
    data = responses._rebased("repository-ruleset", fake.url, call.repo)
    data.update(name=body["name"], target=body.get("target", "branch"), enforcement=body["enforcement"])
    data.update(conditions=body.get("conditions"), rules=body.get("rules", []))
    return _reply(201, data)


def _reply(status: int, body: Any) -> Reply:
    from tests.github_fake.server import Reply

    return Reply(status, body)


HANDLERS: dict[str, Callable[[FakeGitHub, Call], Reply]] = {
    "repos/get-branch": branch_get,
    "repos/get-branch-protection": branch_protection_get,
    "repos/get-branch-rules": branch_rules_get,
    "repos/get-environment": environment_get,
    "repos/list-deployment-branch-policies": deployment_branch_policies_list,
    "actions/list-environment-secrets": environment_secrets_list,
    "apps/get-by-slug": app_get_by_slug,
    "actions/get-actions-cache-list": caches_list,
    "repos/get-content": content_get,
    "repos/create-or-update-environment": environment_put,
    "actions/list-environment-variables": environment_variables_list,
    "actions/create-environment-variable": environment_variable_create,
    "repos/create-deployment-branch-policy": deployment_branch_policy_create,
    "repos/create-repo-ruleset": ruleset_create,
}
