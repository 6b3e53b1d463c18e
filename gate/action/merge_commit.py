"""Which commits are judged: the pull request's test merge, its first parent, and the head.

What is judged is GitHub's test-merge commit of the pull request (``refs/pull/N/merge``) against
its **first parent**, the base tip the merge was computed on. Under ``pull_request`` that commit is
``GITHUB_SHA`` (already checked out, maybe shallowly); under every other event it is fetched into
the private ref ``refs/oracle-gate/pull/N/merge``. Only git objects are fetched: nothing of the
pull request is checked out or run. The check run goes on the pull request's **head** commit, the
merge commit's second parent, which is verified to be the head GitHub reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.events import PullRequestRef
from oracle_gate.action.workflow_io import Log
from oracle_gate.errors import GateError
from oracle_gate.git import Git, credential_environment
from oracle_gate.github.publisher import Publisher, PublishError

MERGE_REF_ATTEMPTS = 3  # GitHub recomputes refs/pull/N/merge asynchronously after a push
MERGE_REF_WAIT = 5.0  # seconds between attempts
MERGEABLE_POLLS = 5  # pulls/get until mergeable is known (../shared/github/README.md, merge conflicts)
MERGEABLE_WAIT = 2.0  # seconds between polls
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
    """Locates (fetching when needed) the test merge whose second parent is the head."""

    def __init__(
        self,
        config: ActionConfig,
        git: Git,
        log: Log,
        sleep: Callable[[float], None],
        publisher: Publisher | None = None,
    ) -> None:
        """``publisher`` reads ``pulls/get`` for ``mergeable`` before fetching the test merge."""
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
        """The test-merge commit, present with its full history, whose second parent is ``head_sha``
        and, when fetched (not the event's own), whose first parent is the base's current tip
        (:mod:`oracle_gate.review.freshness`: a stale merge is never judged)."""
        for attempt in range(1, MERGE_REF_ATTEMPTS + 1):
            merge = self.event_merge(pr) if use_event_sha else self.fetch_merge_ref(pr)
            self.complete_history(merge, pr)
            second = self.second_parent(merge)
            why = (
                None
                if second == head_sha
                else f"merges {second[:12]}, not the pull request's head {head_sha[:12]}"
            )
            if why is None and not use_event_sha:
                why = self.stale_base(pr, merge)
            if why is None:
                return merge
            if use_event_sha or attempt == MERGE_REF_ATTEMPTS:
                raise MergeUnavailable(
                    f"the test-merge commit {merge[:12]} of pull request #{pr.number} {why}: GitHub has "
                    f"not updated {pr.merge_ref} for the latest push yet; re-run the gate"
                )
            self.log.line(f"oracle-gate: {pr.merge_ref} is not up to date yet; trying again")
            self.sleep(MERGE_REF_WAIT)
        raise AssertionError("unreachable")  # pragma: no cover

    def stale_base(self, pr: PullRequestRef, merge: str) -> str | None:
        """Why the fetched merge is not on the base's current tip (fetched with it), or None."""
        base_ref = private_base_ref(pr)
        if not self.git.has_commit(base_ref):
            return None  # the base branch is not known (no publisher to ask): the second parent decides
        first, tip = self.git.commit(f"{merge}^1"), self.git.commit(base_ref)
        if first == tip:
            return None
        return f"merges onto {first[:12]}, not onto the current tip {tip[:12]} of the base"

    def event_merge(self, pr: PullRequestRef) -> str:
        """``pull_request``: GITHUB_SHA is the test merge; fetch it when the checkout does not have it."""
        sha = self.config.sha
        if not self.git.has_commit(sha):
            self.fetch([f"+{pr.merge_ref}:{private_ref(pr)}"], what=pr.merge_ref, pr=pr, quiet=True)
        if not self.git.has_commit(sha):
            self.fetch([f"+{sha}:{private_ref(pr)}"], what=sha, pr=pr)
        return self.git.commit(sha)

    def fetch_merge_ref(self, pr: PullRequestRef) -> str:
        """Every other event: fetch ``refs/pull/N/merge`` into a private ref (never checked out),
        once GitHub says the test merge is computed (:meth:`wait_until_mergeable_known`), with the
        base branch's tip in the same fetch (its first parent must be that tip)."""
        base = self.wait_until_mergeable_known(pr)
        refspecs = [f"+{pr.merge_ref}:{private_ref(pr)}"]
        if base is not None:
            refspecs.append(f"+refs/heads/{base}:{private_base_ref(pr)}")
        self.fetch(refspecs, what=pr.merge_ref, pr=pr, unshallow=self.git.is_shallow())
        return self.git.commit(private_ref(pr))

    def wait_until_mergeable_known(self, pr: PullRequestRef) -> str | None:
        """Poll ``pulls/get`` until ``mergeable`` is not null (bounded: MERGEABLE_POLLS x
        MERGEABLE_WAIT): GitHub recomputes refs/pull/N/merge asynchronously after a push, and asks
        clients to wait for ``mergeable`` before trusting it. ``False`` (conflicts) is a
        :class:`MergeUnavailable`; so is a ``mergeable`` still unknown after the polls (the bot's rule
        too, oracle_gate.review.freshness: a merge GitHub has not finished is not judged).
        A ``pulls/get`` that fails is no reason to stop here: the fetch says what it finds.
        Returns the base branch ``pulls/get`` names (None when it could not be asked)."""
        publisher = self.publisher
        if publisher is None:
            return None
        base: str | None = None
        for poll in range(1, MERGEABLE_POLLS + 1):
            try:
                pull = publisher.pull_request(pr.number)
            except PublishError:
                return None
            mergeable, base = pull.mergeable, branch_or_none(pull.base_ref)
            if mergeable is False:
                raise MergeUnavailable(
                    f"pull request #{pr.number} has merge conflicts (GitHub answers mergeable: false), "
                    f"so {pr.merge_ref} is not a test merge of its head; resolve them and push"
                )
            if mergeable is True:
                return base
            if poll == MERGEABLE_POLLS:
                raise MergeUnavailable(
                    f"GitHub is still computing {pr.merge_ref} (mergeable is not known yet) after "
                    f"{MERGEABLE_POLLS} look(s); not judged (a stale merge is never judged): re-run later"
                )
            self.log.line(f"oracle-gate: GitHub is still computing {pr.merge_ref}; waiting")
            self.sleep(MERGEABLE_WAIT)
        return base

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
