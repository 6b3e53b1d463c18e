"""The Action's run: event -> parent and head -> verdict -> publish -> outputs, summary, exit status.

Everything is passed in (:func:`run`): the typed config, the :class:`~gate.git.Git` of the
workspace, the :class:`~gate.action.publisher.Publisher` and the map builder. Nothing here reads the
environment or builds a client; ``entrypoint.py`` does that once.

What is judged is GitHub's test-merge commit of the pull request (``refs/pull/N/merge``) against
its **first parent**, the base tip the merge was computed on. Under ``pull_request`` that commit is
``GITHUB_SHA`` (already checked out, maybe shallowly); under every other event it is fetched into
the private ref ``refs/oracle-gate/pull/N/merge``. Only git objects are fetched: nothing of the
pull request is checked out or run. The check run goes on the pull request's **head** commit, the
merge commit's second parent, which is verified to be the head GitHub reports.

Exit status: 0 the verdict is not in ``fail-on`` (or nothing to do), 1 it is, 3 the gate could
not run (then a ``failure`` check says why, so a required check never hangs pending). Publishing
never changes the verdict nor the exit status.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from gate import report
from gate.action.config import ActionConfig
from gate.action.events import Command, PullRequestRef, plan_for
from gate.action.publisher import (
    CheckResult,
    CommentAction,
    CommentMode,
    NotPosted,
    Publisher,
    PublishError,
    PublishResult,
)
from gate.action.workflow_io import Log, append_text, fit_summary, format_outputs, redact
from gate.check import CheckRequest, run_check
from gate.errors import GateError, UsageError
from gate.files import write_atomically
from gate.git import Git, credential_environment
from gate.judge.verdict import Verdict
from gate.maps.build import MapResult, build_map
from gate.maps.read import MANIFEST_SUFFIX

EXIT_OK = 0
EXIT_VERDICT = 1  # the verdict is one of fail-on
EXIT_CANNOT_RUN = 3
ERROR_VERDICT = "error"  # the `verdict` output when the gate could not run

#: Permission levels (repos/get-collaborator-permission-level) whose comments may command the bot.
COMMAND_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ACCEPTED_REACTION, REFUSED_REACTION = "eyes", "-1"

MERGE_REF_ATTEMPTS = 3  # GitHub recomputes refs/pull/N/merge asynchronously after a push
MERGE_REF_WAIT = 5.0  # seconds between attempts
PRIVATE_MERGE_REF = "refs/oracle-gate/pull/{number}/merge"
VERDICT_FILE = "verdict.json"

FORK_SAFE_HINT = (
    "The token may not write to this repository (a pull request from a fork, or one by Dependabot, "
    "gets a read-only GITHUB_TOKEN), so nothing was posted. The verdict is still in verdict.json, the "
    "step outputs and the job summary. To post it, use the two-stage workflow "
    "(examples/oracle-gate-fork-safe.yml computes with the read-only token, "
    "examples/oracle-gate-fork-safe-publish.yml posts with `oracle-gate publish`), or run the gate on "
    "pull_request_target, where it only fetches the pull request's git objects and never runs them."
)

OUTPUT_NAMES = (
    "verdict",
    "reasons",
    "overlap-count",
    "overlap-ratio",
    "check-run-id",
    "comment-id",
    "verdict-json",
)


class EventError(GateError):
    """The event payload cannot be read or lacks what the event must carry."""


class HeadUnknown(GateError):
    """The pull request's head commit (where the check run goes) cannot be learned."""


class MergeUnavailable(GateError):
    """The pull request's test-merge commit (or its parent) cannot be had."""


class MapBuilder(Protocol):
    def __call__(self, git: Git, rev: str, out: Path, command: Sequence[str] | None = None) -> MapResult: ...


# -- outputs and exit status: pure -----------------------------------------------------------------------


def exit_status(verdict: str, fail_on: Iterable[str]) -> int:
    """1 when the verdict is one the workflow asked to fail on, else 0 (the check run's
    conclusion does not depend on it)."""
    return EXIT_VERDICT if verdict in set(fail_on) else EXIT_OK


def verdict_outputs(
    v: Verdict | None,
    *,
    verdict_json: str = "",
    check_run_id: int | None = None,
    comment_id: int | None = None,
) -> dict[str, str]:
    """Every output of action.yml, as strings; all empty but ``verdict`` when there is no verdict."""
    values = dict.fromkeys(OUTPUT_NAMES, "")
    if v is not None:
        values.update(
            {
                "verdict": v.verdict,
                "reasons": ",".join(v.codes),
                "overlap-count": str(v.overlap_count),
                "overlap-ratio": str(v.overlap_ratio),
            }
        )
    values.update(
        {
            "verdict-json": verdict_json,
            "check-run-id": "" if check_run_id is None else str(check_run_id),
            "comment-id": "" if comment_id is None else str(comment_id),
        }
    )
    return values


# -- what was posted, in words ----------------------------------------------------------------------------


def nothing_posted_for_permission(result: PublishResult) -> bool:
    """The token could write neither a check run nor a status: a read-only token (fork, Dependabot)."""
    return not result.check.posted and any(n.refused for n in result.check.not_posted)


def check_line(check: CheckResult, check_name: str) -> str:
    """One markdown line on what the check step posted."""
    name = report.md_code(check_name)
    if check.check_run_id is not None:
        notes = f"{check.annotations_posted} of {check.annotations_total} annotation(s)"
        if check.summary_truncated:
            notes += ", summary truncated"
        return f"Check run {name} (id {check.check_run_id}): `{check.conclusion}`, {notes}."
    if check.status_state is not None:
        return (
            f"Commit status {name}: `{check.status_state}` (the token may not write check runs, "
            "so a commit status was posted instead; it carries no annotations)."
        )
    return f"Check run {name}: **not posted** (conclusion would have been `{check.conclusion}`)."


def comment_line(action: CommentAction, comment_id: int | None, mode: str) -> str:
    where = f" (id {comment_id})" if comment_id is not None else ""
    words = {
        CommentAction.CREATED: f"Sticky comment: created{where}.",
        CommentAction.UPDATED: f"Sticky comment: updated in place{where}.",
        CommentAction.UNCHANGED: f"Sticky comment: already up to date{where}, not touched.",
        CommentAction.SKIPPED: f"Sticky comment: none posted (comment mode `{mode}`).",
        CommentAction.FAILED: "Sticky comment: **not posted**.",
    }
    return words[action]


# -- the run --------------------------------------------------------------------------------------------


@dataclass
class RunState:
    """What the run has learned so far, for ``entrypoint.py`` to fail closed after a crash."""

    head_sha: str | None = None
    check_posted: bool = False


class ActionRun:
    """One run of the Action; see the module docstring. Use :func:`run`."""

    def __init__(
        self,
        config: ActionConfig,
        git: Git,
        publisher: Publisher,
        *,
        map_builder: MapBuilder = build_map,
        out: TextIO = sys.stdout,
        state: RunState | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.git = git
        self.publisher = publisher
        self.map_builder = map_builder
        self.log = Log(out, (config.token,))
        self.state = state if state is not None else RunState()
        self.sleep = sleep

    # -- dispatch --------------------------------------------------------------------------------

    def run(self) -> int:
        try:
            plan = plan_for(self.config.event_name, self.read_event(), self.config.check_name)
        except (KeyError, TypeError, ValueError) as exc:
            event = self.config.event_name
            return self.cannot_run(f"the {event} payload lacks what the event carries ({exc!r})")
        except EventError as exc:
            return self.cannot_run(str(exc))
        if plan.action == "ignore":
            self.log.notice(f"Oracle Gate has nothing to do: {plan.why}")
            self.write_outputs(verdict_outputs(None))
            return EXIT_OK
        if plan.action == "command" and plan.command is not None and plan.pr is not None:
            return self.command(plan.command, plan.pr)
        if plan.action == "judge" and plan.pr is not None:
            return self.judge(plan.pr, use_event_sha=plan.use_event_sha)
        return self.cannot_run(f"no pull request to act on in this {self.config.event_name} event")

    def read_event(self) -> dict[str, Any]:
        path = self.config.event_path
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise EventError(f"cannot read the event payload {path}: {exc.strerror or exc}") from exc
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EventError(f"the event payload {path} is not valid JSON: {exc}") from exc
        if not isinstance(payload, dict):
            raise EventError(f"the event payload {path} is not a JSON object")
        return payload

    # -- judging ---------------------------------------------------------------------------------

    def judge(self, pr: PullRequestRef, *, use_event_sha: bool) -> int:
        """Compute the verdict for the pull request and publish it (``pull_request*``, ``check_run``,
        ``/oracle-gate rerun``)."""
        try:
            head_sha = self.head_sha_of(pr)
        except HeadUnknown as exc:
            return self.cannot_run(str(exc))
        try:
            verdict = self.compute(pr, head_sha, use_event_sha=use_event_sha)
        except GateError as exc:
            return self.cannot_run(str(exc), head_sha=head_sha)
        return self.publish(verdict, pr.number, head_sha)

    def head_sha_of(self, pr: PullRequestRef) -> str:
        """The PR head (where the check run goes): from the payload, else from ``pulls/get``."""
        if pr.head_sha:
            self.state.head_sha = pr.head_sha
            return pr.head_sha
        try:
            head = self.publisher.pull_request(pr.number).head_sha
        except PublishError as exc:
            raise HeadUnknown(f"cannot learn the head commit of pull request #{pr.number}: {exc}") from exc
        self.state.head_sha = head
        return head

    def compute(self, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> Verdict:
        """The verdict of the test-merge commit against its first parent. Raises GateError."""
        merge = self.merge_commit(pr, head_sha, use_event_sha=use_event_sha)
        parent = self.git.commit(f"{merge}^1")
        self.log.line(
            f"oracle-gate: judging pull request #{pr.number}: test merge {merge[:12]} against its first "
            f"parent {parent[:12]} (head {head_sha[:12]})"
        )
        with tempfile.TemporaryDirectory(prefix="oracle-gate-action-") as tmp:
            coverage = self.coverage(parent, merge, Path(tmp))
            request = CheckRequest(
                repo=self.config.repo_dir,
                base=parent,
                head=merge,
                coverage=coverage,
                coverage_sha=self.config.coverage_sha if self.config.coverage_file else None,
                extra_protected=self.config.protected,
                allow_failing_parent=self.config.allow_failing_parent,
            )
            return run_check(request, self.git)

    # -- finding the commits -----------------------------------------------------------------------

    def merge_commit(self, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> str:
        """The test-merge commit, present with its full history, whose second parent is ``head_sha``."""
        for attempt in range(1, MERGE_REF_ATTEMPTS + 1):
            merge = self.event_merge(pr) if use_event_sha else self.fetch_merge_ref(pr)
            self.complete_history(merge, pr)
            second = self.second_parent(merge)
            if second == head_sha:
                return merge
            if use_event_sha or attempt == MERGE_REF_ATTEMPTS:
                raise MergeUnavailable(
                    f"the test-merge commit {merge[:12]} of pull request #{pr.number} merges {second[:12]}, "
                    f"not the pull request's head {head_sha[:12]}: GitHub has not updated "
                    f"{pr.merge_ref} for the latest push yet; re-run the gate"
                )
            self.log.line(f"oracle-gate: {pr.merge_ref} is not up to date yet; trying again")
            self.sleep(MERGE_REF_WAIT)
        raise AssertionError("unreachable")  # pragma: no cover

    def event_merge(self, pr: PullRequestRef) -> str:
        """``pull_request``: GITHUB_SHA is the test merge; fetch it when the checkout does not have it."""
        sha = self.config.sha
        if not self.git.has_commit(sha):
            self.fetch([f"+{pr.merge_ref}:{self.private_ref(pr)}"], what=pr.merge_ref, pr=pr, quiet=True)
        if not self.git.has_commit(sha):
            self.fetch([f"+{sha}:{self.private_ref(pr)}"], what=sha, pr=pr)
        return self.git.commit(sha)

    def fetch_merge_ref(self, pr: PullRequestRef) -> str:
        """Every other event: fetch ``refs/pull/N/merge`` into a private ref (never checked out)."""
        refspec = f"+{pr.merge_ref}:{self.private_ref(pr)}"
        self.fetch([refspec], what=pr.merge_ref, pr=pr, unshallow=self.git.is_shallow())
        return self.git.commit(self.private_ref(pr))

    def complete_history(self, merge: str, pr: PullRequestRef) -> None:
        """Unshallow a shallow clone: the parent must be here, and the freeze manifest's
        ``bound_sha`` entries are checked against the parent's whole history."""
        if self.git.is_shallow():
            self.log.line(
                "oracle-gate: the clone is shallow; fetching its whole history (fetch-depth: 0 avoids this)"
            )
            refspec = f"+{merge}:{self.private_ref(pr)}"
            self.fetch([refspec], what=f"the history of {merge[:12]}", pr=pr, unshallow=True)
        if not self.git.has_commit(f"{merge}^1"):
            raise MergeUnavailable(
                f"the first parent of the test-merge commit {merge[:12]} is not in the repository"
            )

    def second_parent(self, merge: str) -> str:
        if not self.git.has_commit(f"{merge}^2"):
            raise MergeUnavailable(
                f"{merge[:12]} is not a merge commit: it cannot be a pull request's test merge"
            )
        return self.git.commit(f"{merge}^2")

    @staticmethod
    def private_ref(pr: PullRequestRef) -> str:
        return PRIVATE_MERGE_REF.format(number=pr.number)

    def fetch(
        self,
        refspecs: list[str],
        *,
        what: str,
        pr: PullRequestRef,
        unshallow: bool = False,
        quiet: bool = False,
    ) -> None:
        source, env = self.fetch_source()
        try:
            self.git.fetch(source, refspecs, unshallow=unshallow, extra_env=env)
        except GateError as exc:
            if quiet:
                return
            missing = what == pr.merge_ref and "couldn't find remote ref" in str(exc)
            hint = " (a pull request with merge conflicts has no test-merge commit)" if missing else ""
            raise MergeUnavailable(f"cannot fetch {what}{hint}: {exc}") from exc

    def fetch_source(self) -> tuple[str, dict[str, str]]:
        """Where to fetch from (``origin``, as actions/checkout sets it, else the server's URL), and
        the environment carrying the token to that one fetch when the clone keeps no credential.

        The token travels as ``GIT_CONFIG_*`` variables (``http.<server>/.extraheader``), which git
        scopes to URLs under the server: never on the command line, never in a config file.
        """
        server = self.config.server_url.rstrip("/") + "/"
        url = self.git.remote_url("origin")
        source = "origin" if url is not None else f"{server}{self.config.repository}.git"
        url = url or source
        key = f"http.{server}.extraheader"
        if not url.startswith(server) or self.git.has_config(key):
            return source, {}  # another host, or actions/checkout persisted its credential
        return source, credential_environment(key, self.config.token)

    # -- coverage --------------------------------------------------------------------------------

    def coverage(self, parent: str, merge: str, scratch: Path) -> Path | None:
        """The parent's map: ``coverage-file``, else one built with ``coverage-command``, else none
        (the core then reports ``oracle_incomplete``)."""
        if self.config.coverage_file:
            path = self.config.repo_dir / self.config.coverage_file
            for candidate in (path, path.with_name(path.name + MANIFEST_SUFFIX)):
                self.refuse_if_from_change(candidate, parent, merge)
            return path
        if self.config.coverage_command:
            try:
                argv = shlex.split(self.config.coverage_command)
            except ValueError as exc:
                raise UsageError(f"input 'coverage-command' cannot be split into words: {exc}") from exc
            self.log.line(f"oracle-gate: building the parent's map with: {shlex.join(argv)}")
            result = self.map_builder(self.git, parent, scratch / "parent.coverage", argv)
            self.log.line(
                f"oracle-gate: mapped {result.tests} test(s) of {parent[:12]} in {result.seconds:.1f}s"
            )
            return result.manifest
        return None

    def refuse_if_from_change(self, path: Path, parent: str, merge: str) -> None:
        """Under ``pull_request`` the workspace is the pull request's checkout: a map file there that
        is exactly the pull request's own version of a tracked file (or a symlink the change made,
        or one resolving to such a file) came from the change, not from the workflow, and would let
        a change vouch for itself."""
        for rel, on_disk in self._as_git_sees(path):
            head_blob = self.git.read_blob(merge, f"./{rel}")
            if (
                head_blob is None
                or on_disk != head_blob
                or self.git.read_blob(parent, f"./{rel}") == head_blob
            ):
                continue
            raise UsageError(
                f"coverage file {rel} is the pull request's own version of that file, not a map made by "
                "the workflow; refusing to let the change supply its own map"
            )

    def _as_git_sees(self, path: Path) -> list[tuple[str, bytes]]:
        """``path`` as repo-relative paths with the bytes git would store there: the symlink itself
        (its target) when it is one, and the file it resolves to. Paths outside the repository and
        absent files are left out (the core reports a missing map)."""
        repo = Path(os.path.abspath(self.config.repo_dir))
        named = Path(os.path.abspath(path))
        views: list[tuple[str | None, bytes]] = []
        if named.is_symlink():
            views.append((_inside(named, repo), os.readlink(named).encode("utf-8", "surrogateescape")))
        with contextlib.suppress(OSError):  # absent: the core reports the missing map
            views.append((_inside(named.resolve(), repo.resolve()), named.read_bytes()))
        return [(rel, data) for rel, data in views if rel is not None]

    # -- publishing ------------------------------------------------------------------------------

    def publish(self, verdict: Verdict, pr_number: int, head_sha: str) -> int:
        rel = self.write_verdict_json(verdict)
        self.log.untrusted(report.to_text(verdict))
        mode = CommentMode(self.config.comment)
        result = self.publisher.publish(verdict, head_sha=head_sha, pr_number=pr_number, comment_mode=mode)
        self.state.check_posted = result.check.posted
        self.log_publication(result)
        self.write_outputs(
            verdict_outputs(
                verdict,
                verdict_json=rel,
                check_run_id=result.check.check_run_id,
                comment_id=result.comment.comment_id,
            )
        )
        posted = [
            check_line(result.check, self.config.check_name),
            comment_line(result.comment.action, result.comment.comment_id, self.config.comment),
        ]
        self.write_summary(
            report.render(
                "action_summary.md.j2",
                verdict,
                report_md=report.to_markdown(verdict),
                posted=posted,
                not_posted=result.not_posted,
                permission_hint=FORK_SAFE_HINT if nothing_posted_for_permission(result) else "",
            )
        )
        status = exit_status(verdict.verdict, self.config.fail_on)
        fails = "is" if status else "is not"
        self.log.line(f"oracle-gate: verdict {verdict.verdict} {fails} in fail-on: exit status {status}")
        return status

    def log_publication(self, result: PublishResult) -> None:
        for missing in result.not_posted:
            self.log.warning(f"Oracle Gate: {missing.what} not posted: {missing.why}")
        if nothing_posted_for_permission(result):
            self.log.warning(FORK_SAFE_HINT)

    def cannot_run(self, why: str, *, head_sha: str | None = None) -> int:
        """No verdict: say why everywhere, and post a ``failure`` check so a required check does not
        hang pending."""
        self.log.error(f"Oracle Gate could not run: {why}")
        check: CheckResult | None = None
        failure: NotPosted | None = None
        if head_sha is not None:
            try:
                check = self.publisher.publish_error(head_sha, why)
                self.state.check_posted = check.posted
            except PublishError as exc:
                failure = NotPosted("failure check", str(exc))
                self.log.warning(f"Oracle Gate: the failure check was not posted either: {exc}")
        self.write_outputs({**verdict_outputs(None), "verdict": ERROR_VERDICT, "check-run-id": _id(check)})
        self.write_summary(
            report.environment()
            .get_template("action_error.md.j2")
            .render(
                why=why,
                check=check_line(check, self.config.check_name) if check is not None else None,
                failure=failure,
                head_known=head_sha is not None,
            )
        )
        return EXIT_CANNOT_RUN

    # -- bot commands ----------------------------------------------------------------------------

    def command(self, cmd: Command, pr: PullRequestRef) -> int:
        """``/oracle-gate rerun|explain`` from a comment: only people who may write may command."""
        try:
            permission = self.publisher.permission_of(cmd.user)
        except PublishError as exc:
            return self.cannot_run(
                f"cannot check the permission of {cmd.user} for /oracle-gate {cmd.name}: {exc}"
            )
        if permission not in COMMAND_PERMISSIONS:
            self.react(pr.number, cmd.comment_id, REFUSED_REACTION)
            self.log.notice(
                f"/oracle-gate {cmd.name} by {cmd.user} ignored: their permission is '{permission}'; "
                f"commands need {', '.join(sorted(COMMAND_PERMISSIONS))}"
            )
            self.write_outputs(verdict_outputs(None))
            return EXIT_OK
        self.react(pr.number, cmd.comment_id, ACCEPTED_REACTION)
        self.log.line(f"oracle-gate: /oracle-gate {cmd.name} by {cmd.user} ({permission}) on #{pr.number}")
        if cmd.name == "rerun":
            return self.judge(pr, use_event_sha=False)
        return self.explain(pr)

    def react(self, issue_number: int, comment_id: int, content: str) -> None:
        try:
            self.publisher.react(issue_number, comment_id, content)
        except PublishError as exc:
            self.log.warning(f"Oracle Gate: reaction not posted: {exc}")

    def explain(self, pr: PullRequestRef) -> int:
        """Compute the verdict and reply with every reason and the full overlap listing (no check run:
        that is what ``rerun`` is for). Exits 0 once answered, whatever the verdict."""
        try:
            head_sha = self.head_sha_of(pr)
        except HeadUnknown as exc:
            return self.cannot_run(str(exc))
        try:
            verdict = self.compute(pr, head_sha, use_event_sha=False)
        except GateError as exc:
            self.reply(pr.number, f"**Oracle Gate could not compute the verdict:** {report.md_escape(exc)}")
            return self.cannot_run(str(exc))
        rel = self.write_verdict_json(verdict)
        body, truncated = report.explain_markdown(verdict)
        comment_id = self.reply(pr.number, body)
        self.log.untrusted(report.to_text(verdict))
        self.write_outputs(verdict_outputs(verdict, verdict_json=rel, comment_id=comment_id))
        full, _ = report.explain_markdown(verdict, limit=sys.maxsize)
        note = "Replied" if comment_id is not None else "**Could not reply**"
        cut = " (cut to GitHub's comment size; the whole listing is below)" if truncated else ""
        self.write_summary(f"{note} on #{pr.number}{cut}.\n\n{full}")
        return EXIT_OK

    def reply(self, issue_number: int, body: str) -> int | None:
        try:
            return self.publisher.reply(issue_number, body)
        except PublishError as exc:
            self.log.warning(f"Oracle Gate: reply not posted: {exc}")
            return None

    # -- files -----------------------------------------------------------------------------------

    def write_verdict_json(self, verdict: Verdict) -> str:
        """``verdict.json`` (exactly the contract's JSON) at the workspace root; returns its relative path."""
        path = self.config.workspace / VERDICT_FILE
        if path.is_symlink():  # the checkout may be the pull request's: never write through its links
            path.unlink()
        write_atomically(path, report.format_verdict(verdict, "json"))
        return VERDICT_FILE

    def write_outputs(self, values: Mapping[str, str]) -> None:
        if self.config.output_path is None:
            return
        clean = {k: redact(v, self.log.secrets) for k, v in values.items()}
        append_text(self.config.output_path, format_outputs(clean))

    def write_summary(self, markdown: str) -> None:
        if self.config.summary_path is None:
            return
        append_text(self.config.summary_path, fit_summary(redact(markdown, self.log.secrets)))


def _inside(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _id(check: CheckResult | None) -> str:
    return "" if check is None or check.check_run_id is None else str(check.check_run_id)


def run(
    config: ActionConfig,
    git: Git,
    publisher: Publisher,
    *,
    map_builder: MapBuilder = build_map,
    out: TextIO = sys.stdout,
    state: RunState | None = None,
) -> int:
    """Run the Action once; returns the exit status (0, 1 or 3). ``state`` tells the caller what was
    learned (the head SHA, whether a check was posted) if this raises."""
    return ActionRun(config, git, publisher, map_builder=map_builder, out=out, state=state).run()
