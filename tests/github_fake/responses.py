"""Response bodies built from the spec's own ``components/examples``, never hand-written shapes.

Each builder takes a fresh copy of the official example, points its URLs at
the fake (``api`` is the fake's base URL, GHES prefix included, so a client
that follows a returned ``url`` comes back here) and overwrites the fields the
fake keeps state for. Every other field keeps the example's value, so the
shape is GitHub's; the server validates each response against the spec too.
"""

from __future__ import annotations

import copy
import hashlib
import json
import zlib
from base64 import b64encode
from typing import Any

from tests.github_fake.spec import example
from tests.github_fake.state import (
    ArtifactState,
    CheckRunState,
    CommentState,
    CommitState,
    HookDeliveryState,
    PullFileState,
    PullState,
    ReactionState,
    RepoState,
    StatusState,
    WorkflowRunState,
)

HTML = "https://github.com"
_EXAMPLE_API = "https://api.github.com"
_EXAMPLE_REPOS = ("octocat/Hello-World", "github/hello-world")


def _rebased_value(name: str, api: str, full_name: str) -> Any:
    """The example ``name`` with its API host and example repository replaced by the fake's."""
    text = json.dumps(example(name)).replace(_EXAMPLE_API, api)
    for repo in _EXAMPLE_REPOS:
        text = text.replace(repo, full_name)
    return json.loads(text)


def _rebased(name: str, api: str, full_name: str) -> dict[str, Any]:
    value = _rebased_value(name, api, full_name)
    if not isinstance(value, dict):
        raise TypeError(f"example {name} is not an object")
    return value


def stable_id(text: str) -> int:
    """A positive id derived from a name, so a login or a repo keeps one id across responses."""
    return zlib.crc32(text.encode()) % 10_000_000 + 1


def node_id(kind: str, number: int) -> str:
    return b64encode(f"0:{kind}{number}".encode()).decode()


def authenticated_user(login: str, api: str) -> dict[str, Any]:
    """``users/get-authenticated`` (``GET /user``) for a user token: the spec's private-user example
    with ``login``'s name, id and URLs."""
    data = example("private-user-response-with-public-and-private-profile-information")
    text = json.dumps(data).replace(_EXAMPLE_API, api).replace("/users/octocat", f"/users/{login}")
    out: dict[str, Any] = json.loads(text)
    # GitHub sends the discriminator the spec's oneOf needs; the example predates it.
    out.update(
        login=login, id=stable_id(login), node_id=node_id("User", stable_id(login)), user_view_type="private"
    )
    return out


def user(login: str, api: str) -> dict[str, Any]:
    """A ``simple-user`` for ``login``, from the example comment's author."""
    data = example("issue-comment")["user"]
    text = json.dumps(data).replace(_EXAMPLE_API, api).replace("/users/octocat", f"/users/{login}")
    out: dict[str, Any] = json.loads(text)
    out.update(
        login=login,
        id=stable_id(login),
        node_id=node_id("User", stable_id(login)),
        type="Bot" if login.endswith("[bot]") else "User",
        html_url=f"{HTML}/{login}",
        site_admin=False,
    )
    return out


def repository(repo: RepoState, api: str) -> dict[str, Any]:
    """``repos/get``: the full repository example for ``repo``."""
    data = _rebased("full-repository-default-response", api, repo.full_name)
    _name_repository(data, repo.full_name, repo.id, fork=False)
    data.update(private=repo.private, default_branch=repo.default_branch, visibility=_visibility(repo))
    data.pop("parent", None)
    data.pop("source", None)
    return data


def _visibility(repo: RepoState) -> str:
    return "private" if repo.private else "public"


def _name_repository(data: dict[str, Any], full_name: str, repo_id: int, *, fork: bool) -> None:
    owner, name = full_name.split("/", 1)
    data.update(
        id=repo_id,
        node_id=node_id("Repository", repo_id),
        name=name,
        full_name=full_name,
        fork=fork,
        html_url=f"{HTML}/{full_name}",
    )
    if isinstance(data.get("owner"), dict):
        data["owner"].update(login=owner, id=stable_id(owner), html_url=f"{HTML}/{owner}")


def pull_request(pull: PullState, repo: RepoState, api: str) -> dict[str, Any]:
    """``pulls/get``: the pull-request example with this PR's number, refs, SHAs and fork flag."""
    data = _rebased("pull-request", api, repo.full_name)
    number, base_url = pull.number, f"{api}/repos/{repo.full_name}"
    data.update(
        id=pull.id,
        node_id=node_id("PullRequest", pull.id),
        number=number,
        title=pull.title,
        state="open" if pull.closed_at is None else "closed",
        locked=False,
        draft=False,
        merged=False,
        merged_at=None,
        closed_at=pull.closed_at,
        merge_commit_sha=None,
        user=user(pull.author, api),
        url=f"{base_url}/pulls/{number}",
        html_url=f"{HTML}/{repo.full_name}/pull/{number}",
        diff_url=f"{HTML}/{repo.full_name}/pull/{number}.diff",
        patch_url=f"{HTML}/{repo.full_name}/pull/{number}.patch",
        issue_url=f"{base_url}/issues/{number}",
        commits_url=f"{base_url}/pulls/{number}/commits",
        review_comments_url=f"{base_url}/pulls/{number}/comments",
        comments_url=f"{base_url}/issues/{number}/comments",
        statuses_url=f"{base_url}/statuses/{pull.head_sha}",
        labels=[],
        changed_files=len(pull.files),
    )
    head_repo_name = f"{pull.head_owner}/{repo.name}" if pull.fork else repo.full_name
    head_repo_id = stable_id(head_repo_name) if pull.fork else repo.id
    head_owner = head_repo_name.split("/", 1)[0]
    _name_repository(data["base"]["repo"], repo.full_name, repo.id, fork=False)
    data["base"].update(
        ref=pull.base_ref,
        sha=pull.base_sha,
        label=f"{repo.owner}:{pull.base_ref}",
        user=user(repo.owner, api),
    )
    head_repo = json.loads(json.dumps(data["head"]["repo"]).replace(repo.full_name, head_repo_name))
    _name_repository(head_repo, head_repo_name, head_repo_id, fork=pull.fork)
    data["head"].update(
        ref=pull.head_ref,
        sha=pull.head_sha,
        label=f"{head_owner}:{pull.head_ref}",
        user=user(head_owner, api),
        repo=head_repo,
    )
    links = data["_links"]
    for key, path in {
        "self": f"pulls/{number}",
        "issue": f"issues/{number}",
        "comments": f"issues/{number}/comments",
        "review_comments": f"pulls/{number}/comments",
        "commits": f"pulls/{number}/commits",
        "statuses": f"statuses/{pull.head_sha}",
    }.items():
        links[key]["href"] = f"{base_url}/{path}"
    links["html"]["href"] = data["html_url"]
    return data


def diff_entry(pull: PullState, entry: PullFileState, api: str) -> dict[str, Any]:
    """One ``diff-entry`` of ``pulls/list-files``, from the spec's ``diff-entry-items`` example."""
    data: dict[str, Any] = _rebased_value("diff-entry-items", api, pull.repo)[0]
    blob = f"{stable_id(entry.filename):040x}"[-40:]
    data.update(
        filename=entry.filename,
        status=entry.status,
        additions=entry.additions,
        deletions=entry.deletions,
        changes=entry.additions + entry.deletions,
        sha=None if entry.status == "removed" else blob,
        blob_url=f"{HTML}/{pull.repo}/blob/{pull.head_sha}/{entry.filename}",
        raw_url=f"{HTML}/{pull.repo}/raw/{pull.head_sha}/{entry.filename}",
        contents_url=f"{api}/repos/{pull.repo}/contents/{entry.filename}?ref={pull.head_sha}",
        patch=f"@@ -1,{entry.deletions} +1,{entry.additions} @@",
    )
    if entry.previous_filename is not None:
        data["previous_filename"] = entry.previous_filename
    return data


def commit(c: CommitState, api: str) -> dict[str, Any]:
    """``repos/get-commit``: the spec's ``commit`` example with this SHA and these parents. Its
    ``files`` are dropped: the example's do not validate (../shared/github/README.md) and the fake keeps
    no diff; ``stats`` goes with them."""
    data = _rebased("commit", api, c.repo)
    data.update(
        sha=c.sha,
        node_id=node_id("Commit", stable_id(c.repo + c.sha)),
        url=f"{api}/repos/{c.repo}/commits/{c.sha}",
        html_url=f"{HTML}/{c.repo}/commit/{c.sha}",
        comments_url=f"{api}/repos/{c.repo}/commits/{c.sha}/comments",
        parents=[
            {"sha": p, "url": f"{api}/repos/{c.repo}/commits/{p}", "html_url": f"{HTML}/{c.repo}/commit/{p}"}
            for p in c.parents
        ],
    )
    data["commit"]["url"] = f"{api}/repos/{c.repo}/git/commits/{c.sha}"
    data.pop("files", None)
    data.pop("stats", None)
    return data


def check_run(run: CheckRunState, pulls: list[PullState], api: str) -> dict[str, Any]:
    """A ``check-run``: the completed example with this run's state and its (non-fork) pull requests."""
    data = _rebased("check-run", api, run.repo)
    url = f"{api}/repos/{run.repo}/check-runs/{run.id}"
    data.update(
        id=run.id,
        node_id=node_id("CheckRun", run.id),
        name=run.name,
        head_sha=run.head_sha,
        status=run.status,
        conclusion=run.conclusion,
        details_url=run.details_url,
        external_id=run.external_id,
        started_at=run.started_at,
        completed_at=run.completed_at,
        url=url,
        html_url=f"{HTML}/{run.repo}/runs/{run.id}",
        check_suite={"id": stable_id(f"{run.repo}@{run.head_sha}")},
        output={
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": len(run.annotations),
            "annotations_url": f"{url}/annotations",
        },
    )
    template = data["pull_requests"][0] if data["pull_requests"] else None
    data["pull_requests"] = [_pull_ref(template, p, api) for p in pulls if template is not None]
    if isinstance(data.get("app"), dict):  # the App that posted it (a client may check whose run it is)
        data["app"] = dict(data["app"], slug=run.app_login, name=run.app_login)
        data["app"]["html_url"] = f"{HTML}/apps/{run.app_login}"
    return data


def _pull_ref(template: dict[str, Any], pull: PullState, api: str) -> dict[str, Any]:
    """The minimal pull request a check run lists (GitHub lists none for fork PRs)."""
    ref: dict[str, Any] = copy.deepcopy(template)
    ref.update(id=pull.id, number=pull.number, url=f"{api}/repos/{pull.repo}/pulls/{pull.number}")
    ref["head"].update(ref=pull.head_ref, sha=pull.head_sha)
    ref["base"].update(ref=pull.base_ref, sha=pull.base_sha)
    return ref


def issue_comment(comment: CommentState, api: str) -> dict[str, Any]:
    """An ``issue-comment`` with this comment's id, body, author, issue and URLs."""
    data = _rebased("issue-comment", api, comment.repo)
    data.update(
        id=comment.id,
        node_id=node_id("IssueComment", comment.id),
        body=comment.body,
        user=user(comment.user, api),
        created_at=comment.created_at,
        updated_at=comment.updated_at,
        url=f"{api}/repos/{comment.repo}/issues/comments/{comment.id}",
        issue_url=f"{api}/repos/{comment.repo}/issues/{comment.issue_number}",
        html_url=f"{HTML}/{comment.repo}/pull/{comment.issue_number}#issuecomment-{comment.id}",
        author_association="NONE",
    )
    return data


def status(st: StatusState, api: str) -> dict[str, Any]:
    """A commit ``status`` as ``repos/create-commit-status`` answers it."""
    data = _rebased("status", api, st.repo)
    data.update(
        id=st.id,
        node_id=node_id("Status", st.id),
        state=st.state,
        context=st.context,
        description=st.description,
        target_url=st.target_url,
        creator=user(st.creator, api),
        created_at=st.created_at,
        updated_at=st.created_at,
        url=f"{api}/repos/{st.repo}/statuses/{st.sha}",
    )
    return data


def reaction(r: ReactionState, api: str) -> dict[str, Any]:
    data = _rebased("reaction", api, r.repo)
    data.update(
        id=r.id,
        node_id=node_id("Reaction", r.id),
        content=r.content,
        user=user(r.user, api),
        created_at=r.created_at,
    )
    return data


LEGACY_PERMISSIONS = {"maintain": "write", "triage": "read"}


def collaborator_permission(repo: RepoState, login: str, api: str) -> dict[str, Any]:
    """``repos/get-collaborator-permission-level`` for ``login`` ("none" when not a collaborator)."""
    data = _rebased(
        "repository-collaborator-permission-response-if-user-has-admin-permissions", api, repo.full_name
    )
    permission = repo.permissions.get(login, "none")
    # GitHub's description: ``permission`` is the legacy base role (maintain reads write, triage read);
    # ``role_name`` is the role itself.
    data["permission"] = LEGACY_PERMISSIONS.get(permission, permission)
    data["role_name"] = permission
    data["user"].update(user(login, api))
    data["user"]["role_name"] = permission
    return data


def label(repo: RepoState, name: str, api: str) -> dict[str, Any]:
    data: dict[str, Any] = _rebased_value("label-items", api, repo.full_name)[0]
    label_id = stable_id(f"{repo.full_name}#{name}")
    data.update(
        id=label_id,
        node_id=node_id("Label", label_id),
        name=name,
        default=False,
        url=f"{api}/repos/{repo.full_name}/labels/{name}",
    )
    return data


def app(app_id: int, slug: str, api: str) -> dict[str, Any]:
    """``apps/get-authenticated``: the ``integration`` example with this App's id and slug."""
    data = _rebased("integration", api, "octocat/Hello-World")
    data.update(id=app_id, slug=slug, name=slug, html_url=f"{HTML}/apps/{slug}")
    return data


def installation_token(token: str, expires_at: str, api: str) -> dict[str, Any]:
    """``apps/create-installation-access-token``: the example with this token and expiry."""
    data = _rebased("installation-token", api, "octocat/Hello-World")
    data.update(token=token, expires_at=expires_at)
    return data


def rate_limit(api: str) -> dict[str, Any]:
    return _rebased("rate-limit-overview", api, "octocat/Hello-World")


def error(message: str, status: int, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """GitHub's error body: ``message``, ``documentation_url``, ``status`` and, on 422, ``errors``."""
    body: dict[str, Any] = {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": str(status),
    }
    if errors:
        body["errors"] = errors
    return body


def workflow_run(run: WorkflowRunState, repo: RepoState, api: str) -> dict[str, Any]:
    """One run of ``actions/list-workflow-runs``: the ``workflow-run-paginated`` example's run."""
    data: dict[str, Any] = _rebased("workflow-run-paginated", api, repo.full_name)["workflow_runs"][0]
    data.update(
        id=run.id,
        path=run.path,
        head_sha=run.head_sha,
        head_branch=run.head_branch,
        event=run.event,
        status=run.status,
        conclusion=run.conclusion,
        url=f"{api}/repos/{repo.full_name}/actions/runs/{run.id}",
        artifacts_url=f"{api}/repos/{repo.full_name}/actions/runs/{run.id}/artifacts",
    )
    _name_repository(data["repository"], repo.full_name, repo.id, fork=False)
    head_repo = run.head_repo or repo.full_name
    _name_repository(
        data["head_repository"], head_repo, stable_id(head_repo), fork=head_repo != repo.full_name
    )
    data["head_commit"]["id"] = run.head_sha
    return data


def artifact(item: ArtifactState, run: WorkflowRunState, repo: RepoState, api: str) -> dict[str, Any]:
    """One artifact of ``actions/list-workflow-run-artifacts``, from the ``artifact-paginated`` example."""
    data: dict[str, Any] = _rebased("artifact-paginated", api, repo.full_name)["artifacts"][0]
    base = f"{api}/repos/{repo.full_name}/actions/artifacts/{item.id}"
    data.update(
        id=item.id,
        name=item.name,
        size_in_bytes=len(item.zip_bytes),
        expired=item.expired,
        url=base,
        archive_download_url=f"{base}/zip",
        digest="sha256:" + hashlib.sha256(item.zip_bytes).hexdigest(),
    )
    data["workflow_run"].update(id=run.id, head_sha=run.head_sha, head_branch=run.head_branch)
    data["workflow_run"].update(repository_id=repo.id, head_repository_id=repo.id)
    return data


def hook_delivery(item: HookDeliveryState, api: str) -> dict[str, Any]:
    """One item of ``apps/list-webhook-deliveries``, from the ``hook-delivery-items`` example."""
    data: dict[str, Any] = dict(_rebased_value("hook-delivery-items", api, "octocat/Hello-World")[0])
    data.update(
        id=item.id,
        guid=item.guid,
        event=item.event,
        action=item.action,
        status=item.status,
        status_code=item.status_code,
        delivered_at=item.delivered_at,
        installation_id=item.installation_id,
        repository_id=item.repository_id,
        redelivery=item.redelivery,
    )
    return data
