"""Write ``openapi-subset.json``: the listed operations of GitHub's OpenAPI description and every
component they reach through ``$ref`` (discriminator mappings included), nothing hand-written.

The source is npm ``@octokit/openapi@23.0.2``, ``generated/api.github.com.json`` (see
``/work/shared/github/README.md``). Fetch it without installing anything::

    tmp=$(mktemp -d) && (cd "$tmp" && npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-*.tgz)
    python tests/data/github/extract_subset.py "$tmp/package/generated/api.github.com.json"

To add an operation, add its ``operationId`` to :data:`OPERATIONS` and run the script again; the
fake GitHub (tests/github_fake) then routes and validates it, and needs a handler for it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SOURCE = "npm package @octokit/openapi@23.0.2, file generated/api.github.com.json (OpenAPI 3.0.3)"
OUTPUT = Path(__file__).resolve().parent / "openapi-subset.json"
DESCRIPTION_NOTE = (
    " -- SUBSET: only the operations a PR-verdict bot uses, "
    "with every transitively $ref'd component included."
)
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
OPERATIONS = (
    # the Action and the bot: checks, comments, statuses, pull requests, repositories
    "checks/create",
    "checks/update",
    "checks/get",
    "checks/list-for-ref",
    "checks/rerequest-run",
    "issues/list-comments",
    "issues/create-comment",
    "issues/get-comment",
    "issues/update-comment",
    "issues/delete-comment",
    "reactions/create-for-issue-comment",
    "issues/list-labels-on-issue",
    "pulls/get",
    "pulls/list-files",
    "repos/compare-commits-with-basehead",
    "repos/get",
    "repos/get-content",
    "repos/get-commit",
    "repos/create-commit-status",
    "repos/get-collaborator-permission-level",
    # contract v3.5 approvals: the pull request's reviews, a named team's membership
    "pulls/list-reviews",
    "teams/get-membership-for-user-in-org",
    "teams/get-by-name",
    # contract v3.9.1: when the pull request's base branch last changed (its base_ref_changed events)
    "issues/list-events",
    "apps/get-repo-installation",
    "apps/create-installation-access-token",
    "apps/get-authenticated",
    "rate-limit/get",
    # the Action: the token's own identity, the only author whose comment is the sticky one
    "users/get-authenticated",
    # the bot's trusted map store: the map workflow's runs, their artifacts, the artifact's zip
    "actions/list-workflow-runs",
    "actions/list-workflow-run-artifacts",
    "actions/download-artifact",
    # the bot's redelivery of failed webhook deliveries on start (App JWT)
    "apps/list-webhook-deliveries",
    "apps/redeliver-webhook-delivery",
    # oracle-gate doctor: what makes the check real (required check and its source, the App key's
    # environment, the App's permissions and events, the default branch's map)
    "repos/get-branch",
    "repos/get-branch-protection",
    "repos/get-branch-rules",
    "repos/get-environment",
    "repos/list-deployment-branch-policies",
    "actions/list-environment-secrets",
    "apps/get-by-slug",
    "actions/get-actions-cache-list",
    # oracle-gate doctor --fix: what the API can set up (never a secret); the App's client id is an
    # environment variable (actions/create-github-app-token v3 takes client-id)
    "actions/list-environment-variables",
    "actions/create-environment-variable",
    "repos/create-or-update-environment",
    "repos/create-deployment-branch-policy",
    "repos/create-repo-ruleset",
)


def refs_in(node: Any) -> Iterator[str]:
    """Every ``#/components/...`` reference below ``node`` (``$ref`` values and discriminator mappings)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key == "mapping" and isinstance(value, dict):
                yield from (v for v in value.values() if isinstance(v, str))
            else:
                yield from refs_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs_in(item)


def _component(full: dict[str, Any], ref: str) -> tuple[str, str, Any]:
    prefix = "#/components/"
    if not ref.startswith(prefix) or ref.count("/") != 3:
        raise SystemExit(f"extract_subset: unexpected reference {ref!r}")
    kind, name = ref[len(prefix) :].split("/")
    return kind, name, full["components"][kind][name]


def closure(full: dict[str, Any], roots: Any) -> dict[str, dict[str, Any]]:
    """The components reachable from ``roots``, by kind."""
    found: dict[str, dict[str, Any]] = {}
    pending = list(refs_in(roots))
    while pending:
        kind, name, value = _component(full, pending.pop())
        if name in found.setdefault(kind, {}):
            continue
        found[kind][name] = value
        pending.extend(refs_in(value))
    return found


def select_paths(full: dict[str, Any], wanted: set[str]) -> dict[str, dict[str, Any]]:
    """The paths holding a wanted operation, with only the wanted methods (and shared parameters)."""
    paths: dict[str, dict[str, Any]] = {}
    for template, item in full["paths"].items():
        ops = {m: op for m, op in item.items() if m in METHODS and op.get("operationId") in wanted}
        if ops:
            shared = {k: v for k, v in item.items() if k not in METHODS}
            paths[template] = {**shared, **ops}
    found = {op["operationId"] for item in paths.values() for m, op in item.items() if m in METHODS}
    missing = wanted - found
    if missing:
        raise SystemExit(f"extract_subset: not in the source: {', '.join(sorted(missing))}")
    return paths


def subset(full: dict[str, Any], operations: tuple[str, ...] = OPERATIONS) -> dict[str, Any]:
    paths = select_paths(full, set(operations))
    used_tags = {t for item in paths.values() for op in item.values() if isinstance(op, dict)
                 for t in op.get("tags", [])}  # fmt: skip
    info = dict(full["info"])
    info["description"] = info.get("description", "") + DESCRIPTION_NOTE
    out = {k: v for k, v in full.items() if k not in ("paths", "components", "tags", "info", "x-webhooks")}
    out.update(
        info=info,
        paths=paths,
        components=closure(full, paths),
        tags=[t for t in full.get("tags", []) if t.get("name") in used_tags],
        **{"x-subset-source": SOURCE},
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="generated/api.github.com.json of @octokit/openapi@23.0.2")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    full = json.loads(args.source.read_text(encoding="utf-8"))
    if full.get("info", {}).get("version") != "23.0.2":
        print(f"extract_subset: expected @octokit/openapi 23.0.2, got {full.get('info', {}).get('version')}")
        return 1
    doc = subset(full)
    args.output.write_text(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    print(f"extract_subset: {len(OPERATIONS)} operations, {sum(map(len, doc['components'].values()))} "
          f"components -> {args.output}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
