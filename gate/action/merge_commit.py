"""Which commits are judged: the pull request's test merge, its first parent, and the head.

What is judged is GitHub's test-merge commit of the pull request (``refs/pull/N/merge``) against
its **first parent**, the base tip the merge was computed on. Under ``pull_request`` that commit is
``GITHUB_SHA`` (already checked out, maybe shallowly); under every other event it is fetched into
the private ref ``refs/oracle-gate/pull/N/merge``. Only git objects are fetched: nothing of the
pull request is checked out or run. The check run goes on the pull request's **head** commit, the
merge commit's second parent, which is verified to be the head GitHub reports.

Whether a test merge may be judged (fresh: computed, of the head, onto the base's current tip) is
decided by :mod:`oracle_gate.review.freshness`, the rule the bot applies too; the Action supplies its
look at the merge and waits ``merge-wait-ms`` between two looks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.events import PullRequestRef
from oracle_gate.action.workflow_io import Log
from oracle_gate.errors import GateError
from oracle_gate.git import Git, credential_environment
from oracle_gate.github.publisher import Publisher, PublishError, PullInfo
from oracle_gate.review.freshness import Sighting, fresh_merge

PRIVATE_MERGE_REF = "refs/oracle-gate/pull/{number}/merge"


class HeadUnknown(GateError):
    """The pull request's head commit (where the check run goes) cannot be learned."""


class MergeUnavailable(GateError):
    """The pull request's test-merge commit (or its parent) cannot be had."""


@dataclass(frozen=True)
class Commits:
    """The test merge, its first parent (the base it is judged against) and its second (the head)."""

    merge: str
    parent: str
    head: str


def head_sha_of(pr: PullRequestRef, publisher: Publisher) -> str:
    """The PR head (where the check run goes): from the payload, else from ``pulls/get``."""
    if pr.head_sha:
        return pr.head_sha
    try:
        return publisher.pull_request(pr.number).head_sha
    except PublishError as exc:
        raise HeadUnknown(f"cannot learn the head commit of pull request #{pr.number}: {exc}") from exc


def private_ref(pr: PullRequestRef) -> str:
    return PRIVATE_MERGE_REF.format(number=pr.number)


def private_base_ref(pr: PullRequestRef) -> str:
    """Where the base branch's tip is fetched beside the test merge."""
    return f"refs/oracle-gate/pull/{pr.number}/base"


def branch_or_none(name: str | None) -> str | None:
    """``name`` when it can go in a refspec as a branch name, else None (then not checked)."""
    if not name or name.startswith("-") or set(name) & set(" :^~?*[\\\t\n"):
        return None
    return name


class MergeFinder:
    """Locates (fetching when needed) the test merge whose second parent is the head.

    Whether a test merge may be judged is the shared rule (:func:`oracle_gate.review.freshness.fresh_merge`,
    the bot's too); this class only supplies the Action's look at the merge and the wait between two
    looks, the shared setting ``merge-wait-ms``."""

    def __init__(
        self,
        config: ActionConfig,
        git: Git,
        log: Log,
        sleep: Callable[[float], None],
        publisher: Publisher | None = None,
    ) -> None:
        """``publisher`` reads ``pulls/get`` (``mergeable`` and the base branch) before each fetch of
        the test merge; without one only the event's own merge can be looked at."""
        self.config = config
        self.git = git
        self.log = log
        self.sleep = sleep
        self.publisher = publisher

    def commits(self, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> Commits:
        """The test merge of ``pr`` with its full history, and its parents. Raises GateError."""
        merge = self.merge_commit(pr, head_sha, use_event_sha=use_event_sha)
        return Commits(merge=merge, parent=self.git.commit(f"{merge}^1"), head=head_sha)

    def merge_commit(self, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> str:
        """The test-merge commit, present with its full history, that is fresh
        (:func:`~oracle_gate.review.freshness.why_not_fresh`): its second parent is ``head_sha`` and,
        when fetched, its first parent is the base's tip fetched with it. The event's own merge is
        looked at once (it cannot change); a fetched one up to
        :data:`~oracle_gate.review.freshness.LOOKS` times, ``merge-wait-ms`` apart. Raises GateError
        (:class:`~oracle_gate.review.freshness.MergeNotReady`: a stale merge is never judged)."""
        if use_event_sha:
            seen = fresh_merge(lambda: self.event_sighting(pr, head_sha), self.sleep, wait=0, looks=1)
        else:
            seen = fresh_merge(
                lambda: self.fetched_sighting(pr, head_sha),
                self.sleep,
                wait=self.config.merge_wait,
                note=lambda why: self.log.line(f"oracle-gate: {why}"),
            )
        if seen.merge is None:  # pragma: no cover - why_not_fresh never passes a merge not seen
            raise MergeUnavailable(f"no test-merge commit of pull request #{pr.number} was seen")
        return seen.merge

    def event_sighting(self, pr: PullRequestRef, head_sha: str) -> Sighting:
        """``pull_request``: GITHUB_SHA is the test merge GitHub computed for this very event, onto the
        base's tip of that moment (its first parent, by construction): only its second parent can
        disagree with the head."""
        merge = self.event_merge(pr)
        self.complete_history(merge, pr)
        first = self.git.commit(f"{merge}^1")
        base = pr.base_ref or "the base branch"
        return Sighting(pr.number, head_sha, base, first, True, merge, first, self.second_parent(merge))

    def fetched_sighting(self, pr: PullRequestRef, head_sha: str) -> Sighting:
        """Every other event, one look: ``pulls/get`` says whether GitHub has computed the test merge
        (``mergeable``) and names the base branch; once it has, one fetch brings ``refs/pull/N/merge``
        and the base's tip into private refs (never checked out), one moment's view of both."""
        pull = self.pull_info(pr)
        base = branch_or_none(pull.base_ref)
        if base is None:
            raise MergeUnavailable(
                f"pulls/get names the base branch {pull.base_ref!r} of pull request #{pr.number}: "
                "not a branch name"
            )
        if pull.mergeable is not True:
            return Sighting(pr.number, head_sha, base, None, pull.mergeable)
        refspecs = [f"+{pr.merge_ref}:{private_ref(pr)}", f"+refs/heads/{base}:{private_base_ref(pr)}"]
        self.fetch(refspecs, what=pr.merge_ref, pr=pr, unshallow=self.git.is_shallow())
        merge = self.git.commit(private_ref(pr))
        self.complete_history(merge, pr)
        first, tip = self.git.commit(f"{merge}^1"), self.git.commit(private_base_ref(pr))
        return Sighting(pr.number, head_sha, base, tip, True, merge, first, self.second_parent(merge))

    def pull_info(self, pr: PullRequestRef) -> PullInfo:
        """``pulls/get``: without it nothing says the test merge is computed, so it is not judged."""
        if self.publisher is None:
            raise MergeUnavailable(f"no GitHub client to ask whether {pr.merge_ref} is computed")
        try:
            return self.publisher.pull_request(pr.number)
        except PublishError as exc:
            raise MergeUnavailable(
                f"cannot ask GitHub whether {pr.merge_ref} is computed (pulls/get): {exc}"
            ) from exc

    def event_merge(self, pr: PullRequestRef) -> str:
        """``pull_request``: GITHUB_SHA is the test merge; fetch it when the checkout does not have it."""
        sha = self.config.sha
        if not self.git.has_commit(sha):
            self.fetch([f"+{pr.merge_ref}:{private_ref(pr)}"], what=pr.merge_ref, pr=pr, quiet=True)
        if not self.git.has_commit(sha):
            self.fetch([f"+{sha}:{private_ref(pr)}"], what=sha, pr=pr)
        return self.git.commit(sha)

    def complete_history(self, merge: str, pr: PullRequestRef) -> None:
        """Unshallow a shallow clone: the parent must be here, and the freeze manifest's
        ``bound_sha`` entries are checked against the parent's whole history."""
        if self.git.is_shallow():
            self.log.line(
                "oracle-gate: the clone is shallow; fetching its whole history (fetch-depth: 0 avoids this)"
            )
            refspec = f"+{merge}:{private_ref(pr)}"
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
