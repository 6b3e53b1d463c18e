"""The Action's ports for the one judgement (:mod:`oracle_gate.judgement`): its checkout, its token.

What is judged is GitHub's test-merge commit of the pull request (``refs/pull/N/merge``) against
its **first parent**, the base tip the merge was computed on. Under ``pull_request`` that commit is
``GITHUB_SHA`` (already checked out, maybe shallowly) and is looked at once (it cannot change);
under every other event each look asks ``pulls/get`` and fetches the merge with the base's tip into
the private refs ``refs/oracle-gate/pull/N/{merge,base}``. Only git objects are fetched: nothing of
the pull request is checked out or run. Whether a look's merge may be judged is the shared rule
(:mod:`oracle_gate.review.freshness`), applied by the sequence.

The parent's map is ``coverage-file`` (used only when :mod:`oracle_gate.action.map_trust` finds
nothing the pull request could have fed; otherwise its problems are the map's), else one built with
``coverage-command`` on the parent by this run, else none.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.context import Context
from oracle_gate.action.map_trust import map_trust_problems, same_run_map_trusted, trusted_source
from oracle_gate.errors import GateError, PublishError, UsageError
from oracle_gate.git import credential_environment
from oracle_gate.github.pulls import PullInfo
from oracle_gate.judge.problems import Problem
from oracle_gate.judgement.core import InProcess
from oracle_gate.judgement.github_ports import PostedChecks, PostedComments
from oracle_gate.judgement.ports import MergeGroupAsked, ParentMap, Rules
from oracle_gate.judgement.repository import GitAnswers
from oracle_gate.judgement.sequence import Door
from oracle_gate.review.freshness import LOOKS, Sighting

QUEUE_REF = "refs/oracle-gate/merge-group"
QUEUED_HEAD_REF = "refs/oracle-gate/merge-group-pull"  # v3.9.2: the group's pull request's head


class MergeUnavailable(GateError):
    """The pull request's test-merge commit (or its parent) cannot be had."""


def private_ref(number: int) -> str:
    return f"refs/oracle-gate/pull/{number}/merge"


def private_base_ref(number: int) -> str:
    """Where the base branch's tip is fetched beside the test merge."""
    return f"refs/oracle-gate/pull/{number}/base"


def merge_ref(number: int) -> str:
    return f"refs/pull/{number}/merge"


def branch_or_none(name: str | None) -> str | None:
    """``name`` when it can go in a refspec as a branch name, else None (then not checked)."""
    if not name or name.startswith("-") or set(name) & set(" :^~?*[\\\t\n"):
        return None
    return name


def rules_of(config: ActionConfig, default_branch: str | None) -> Rules:
    """The judgement's rules from the Action's inputs."""
    return Rules(
        check_name=config.check_name,
        allowed_bases=config.allowed_bases,
        default_branch=default_branch,
        max_changed_bytes=config.max_changed_bytes,
        merge_wait=config.merge_wait,
        max_annotations=config.max_annotations,
        comment=config.comment,
        extra_protected=config.protected,
        allow_failing_parent=config.allow_failing_parent,
    )


class ActionLook(GitAnswers):
    """The Action's :class:`~oracle_gate.judgement.ports.MergeLook`: its checkout, fetching with its token."""

    def __init__(self, ctx: Context, *, use_event_sha: bool = False, event_base: str | None = None) -> None:
        super().__init__(ctx.git)
        self.ctx = ctx
        self.use_event_sha = use_event_sha
        self.event_base = event_base

    @property
    def looks(self) -> int:
        return 1 if self.use_event_sha else LOOKS

    def look(self, number: int, head: str) -> Sighting:
        if self.use_event_sha:
            return self.event_sighting(number, head)
        return self.fetched_sighting(number)

    def event_sighting(self, number: int, head: str) -> Sighting:
        """``pull_request``: GITHUB_SHA is the test merge GitHub computed for this very event, onto the
        base's tip of that moment (its first parent, by construction): only its second parent can
        disagree with the head."""
        merge = self.event_merge(number)
        self.complete_history(merge, number)
        first = self.git.commit(f"{merge}^1")
        base = self.event_base or "the base branch"
        return Sighting(number, head, base, first, True, merge, first, self.second_parent(merge))

    def fetched_sighting(self, number: int) -> Sighting:
        """Every other event, one look: ``pulls/get`` says the head, whether GitHub has computed the
        test merge (``mergeable``) and the base branch; once it has, one fetch brings
        ``refs/pull/N/merge`` and the base's tip into private refs, one moment's view of both."""
        pull = self.pull_info(number)
        base = branch_or_none(pull.base_ref)
        if base is None:
            raise MergeUnavailable(
                f"pulls/get names the base branch {pull.base_ref!r} of pull request #{number}: "
                "not a branch name"
            )
        if pull.mergeable is not True:
            return Sighting(number, pull.head_sha, base, None, pull.mergeable)
        refspecs = [
            f"+{merge_ref(number)}:{private_ref(number)}",
            f"+refs/heads/{base}:{private_base_ref(number)}",
        ]
        self.fetch(refspecs, what=merge_ref(number), number=number, unshallow=self.git.is_shallow())
        merge = self.git.commit(private_ref(number))
        self.complete_history(merge, number)
        first, tip = self.git.commit(f"{merge}^1"), self.git.commit(private_base_ref(number))
        return Sighting(number, pull.head_sha, base, tip, True, merge, first, self.second_parent(merge))

    def pull_info(self, number: int) -> PullInfo:
        """``pulls/get``: without it nothing says the test merge is computed, so it is not judged."""
        try:
            return self.ctx.github.pulls.pull_request(number)
        except PublishError as exc:
            raise MergeUnavailable(
                f"cannot ask GitHub whether {merge_ref(number)} is computed (pulls/get): {exc}"
            ) from exc

    def event_merge(self, number: int) -> str:
        """``pull_request``: GITHUB_SHA is the test merge; fetch it when the checkout does not have it."""
        sha = self.ctx.config.sha
        if not self.git.has_commit(sha):
            self.fetch(
                [f"+{merge_ref(number)}:{private_ref(number)}"],
                what=merge_ref(number),
                number=number,
                quiet=True,
            )
        if not self.git.has_commit(sha):
            self.fetch([f"+{sha}:{private_ref(number)}"], what=sha, number=number)
        return self.git.commit(sha)

    def complete_history(self, merge: str, number: int) -> None:
        """Unshallow a shallow clone: the parent must be here, and the freeze manifest's
        ``bound_sha`` entries are checked against the parent's whole history."""
        if self.git.is_shallow():
            self.ctx.log.line(
                "oracle-gate: the clone is shallow; fetching its whole history (fetch-depth: 0 avoids this)"
            )
            refspec = f"+{merge}:{private_ref(number)}"
            self.fetch([refspec], what=f"the history of {merge[:12]}", number=number, unshallow=True)
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

    def group_commits(self, group: MergeGroupAsked) -> tuple[str, str]:
        """The queue's merge commit and its base, fetched (with their whole history) when not here."""
        git = self.git
        if not git.has_commit(group.head_sha) or git.is_shallow():
            source, env = self.fetch_source()
            try:
                git.fetch(
                    source, [f"+{group.head_ref}:{QUEUE_REF}"], unshallow=git.is_shallow(), extra_env=env
                )
            except GateError as exc:
                raise MergeUnavailable(f"cannot fetch the merge queue's {group.head_ref}: {exc}") from exc
        for sha, what in ((group.head_sha, "merge commit"), (group.base_sha, "base")):
            if not git.has_commit(sha):
                raise MergeUnavailable(
                    f"the merge queue's {what} {sha[:12]} is not in the repository after a fetch"
                )
        head, parent = git.commit(group.head_sha), git.commit(group.base_sha)
        if not git.is_ancestor(parent, head):
            raise MergeUnavailable(
                f"the merge queue's base {parent[:12]} is not an ancestor of its merge commit {head[:12]}"
            )
        return head, parent

    def fetch_pull_head(self, number: int) -> None:
        source, env = self.fetch_source()
        self.git.fetch(source, [f"+refs/pull/{number}/head:{QUEUED_HEAD_REF}"], extra_env=env)

    def fetch(
        self, refspecs: list[str], *, what: str, number: int, unshallow: bool = False, quiet: bool = False
    ) -> None:
        source, env = self.fetch_source()
        try:
            self.git.fetch(source, refspecs, unshallow=unshallow, extra_env=env)
        except GateError as exc:
            if quiet:
                return
            missing = what == merge_ref(number) and "couldn't find remote ref" in str(exc)
            hint = " (a pull request with merge conflicts has no test-merge commit)" if missing else ""
            raise MergeUnavailable(f"cannot fetch {what}{hint}: {exc}") from exc

    def fetch_source(self) -> tuple[str, dict[str, str]]:
        """Where to fetch from (``origin``, as actions/checkout sets it, else the server's URL), and
        the environment carrying the token to that one fetch when the clone keeps no credential.

        The token travels as ``GIT_CONFIG_*`` variables (``http.<server>/.extraheader``), which git
        scopes to URLs under the server: never on the command line, never in a config file.
        """
        config = self.ctx.config
        server = config.server_url.rstrip("/") + "/"
        url = self.git.remote_url("origin")
        source = "origin" if url is not None else f"{server}{config.repository}.git"
        url = url or source
        key = f"http.{server}.extraheader"
        if not url.startswith(server) or self.git.has_config(key):
            return source, {}  # another host, or actions/checkout persisted its credential
        return source, credential_environment(key, config.token)


class ActionMaps:
    """The Action's :class:`~oracle_gate.judgement.ports.ParentMaps`: ``coverage-file`` (checked by
    :mod:`oracle_gate.action.map_trust`), else one built with ``coverage-command`` in ``scratch``."""

    def __init__(self, ctx: Context, scratch: Path) -> None:
        self.ctx = ctx
        self.scratch = scratch

    def find(self, parent: str) -> ParentMap:
        config = self.ctx.config
        if config.coverage_file:
            return ParentMap(
                config.repo_dir / config.coverage_file, config.coverage_sha, refused=tuple(self.refusals())
            )
        if config.coverage_command:
            return ParentMap(self.build(parent, config.coverage_command))
        return ParentMap()

    def refusals(self) -> list[Problem]:
        """Why the ``coverage-file`` may not be used; empty when it may."""
        ctx, config = self.ctx, self.ctx.config
        same_run = same_run_map_trusted(config.event_name, trust_same_run_map=config.trust_same_run_map)
        source = trusted_source(
            config.repository, ctx.default_branch, config.run_id, same_run_trusted=same_run
        )
        problems = map_trust_problems(
            config.repo_dir / (config.coverage_file or ""), repo_dir=config.repo_dir, source=source
        )
        for problem in problems:
            ctx.log.line(f"oracle-gate: the coverage-file is refused: {problem}")
        return list(problems)

    def build(self, parent: str, command: str) -> Path:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"input 'coverage-command' cannot be split into words: {exc}") from exc
        self.ctx.log.line(f"oracle-gate: building the parent's map with: {shlex.join(argv)}")
        result = self.ctx.map_builder(self.ctx.git, parent, self.scratch / "parent.coverage", argv)
        self.ctx.log.line(
            f"oracle-gate: mapped {result.tests} test(s) of {parent[:12]} in {result.seconds:.1f}s"
        )
        return result.manifest


@contextmanager
def action_door(
    ctx: Context, *, use_event_sha: bool = False, event_base: str | None = None
) -> Iterator[Door]:
    """The Action's door for one judgement (a scratch directory for a map it builds lives as long)."""
    with tempfile.TemporaryDirectory(prefix="oracle-gate-action-") as tmp:
        yield Door(
            pulls=ctx.github.pulls,
            look=ActionLook(ctx, use_event_sha=use_event_sha, event_base=event_base),
            maps=ActionMaps(ctx, Path(tmp)),
            judge=InProcess(ctx.git),
            checks=PostedChecks(ctx.github.checks, ctx.config.run_url),
            comments=PostedComments(ctx.github.comments, ctx.log.warning),
            rules=rules_of(ctx.config, ctx.default_branch),
            sleep=ctx.sleep,
            note=lambda line: ctx.log.line(f"oracle-gate: {line}"),
            on_head=lambda head: setattr(ctx.state, "head_sha", head),
        )
