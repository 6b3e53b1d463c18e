"""Posting check runs: created completed (or started in progress and completed later), annotation
batches, the commit-status fallback, exactly once across lost answers and crashes.

It posts the content it is given (:class:`~oracle_gate.github.values.CheckContent`) where the
:class:`~oracle_gate.github.values.CheckTarget` says, and renders nothing. Choices, with the GitHub
behaviour they rest on (D = https://docs.github.com/en):

* **Completed checks.** A check is created already completed, so it never hangs pending on a
  half-published run. Which conclusion and which status state a verdict gets is the content's choice
  (:mod:`oracle_gate.github.content`).
* **Annotations.** At most 50 per request (D/rest/checks/runs): the first 50 go with the create, the
  rest are appended by PATCHes of 50.
* **Status fallback.** Only GitHub Apps (GITHUB_TOKEN is one) may write check runs; a personal access
  token, or a GITHUB_TOKEN granted ``statuses`` but not ``checks``, gets 403. Then a commit status
  with the same context name is posted, with the content's status state and description.
* **Ours.** With a stable ``external_id`` (the bot), a run an earlier attempt posted is found again
  and finished; only a run posted by the App ``app`` counts as ours (an ``external_id`` alone can be
  imitated by any workflow of the pull request).
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from github.CheckRun import CheckRun
from github.Repository import Repository

from oracle_gate.github.client import NotPermitted, PublishError, RequestRejected, github_call
from oracle_gate.github.limits import ANNOTATIONS_PER_REQUEST
from oracle_gate.github.values import CheckContent, CheckResult, CheckTarget, NotPosted, not_posted
from oracle_gate.github.writes import POSTING_LOGGER, WriteBudget, post_exactly_once

MAX_ANNOTATIONS_PER_REQUEST = ANNOTATIONS_PER_REQUEST  # D/rest/checks/runs
Annotations = list[dict[str, str | int]]

_log = logging.getLogger(POSTING_LOGGER)


@dataclass(frozen=True)
class Checks:
    """One repository's check runs. ``writes`` is the run's write budget (shared with its comments);
    ``app`` the App slug whose runs count as ours (None: any, e.g. GITHUB_TOKEN's Action)."""

    repo: Repository = field(repr=False)
    writes: WriteBudget
    app: str | None = None

    # -- the three posts -------------------------------------------------------------------------------

    def publish(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        """A completed check run with the content's conclusion and every annotation.

        Falls back to a commit status when the token may not write check runs.
        Raises :class:`PublishError` only when neither could be posted.
        """
        adopted = self._adopt(content, target)
        if adopted is not None:
            return self._finish_adopted(adopted[0], content, target, adopted[1])
        batches = _batches(content.annotations, MAX_ANNOTATIONS_PER_REQUEST)
        try:
            run, content = self._create_or_minimal(content, target, batches[0] if batches else [])
        except NotPermitted as err:
            _log.info("%s; posting a commit status instead", err)
            return self._status_fallback(content, target, err)
        posted = len(batches[0]) if batches else 0
        return self._append_the_rest(run, content, batches[1:], posted)

    def start(self, content: CheckContent, target: CheckTarget) -> int:
        """An ``in_progress`` check run under the target's ``external_id`` (required), its id; completed
        later by :meth:`complete`. The run an earlier attempt of the same job posted is reused whatever
        its state, so a job run again after a crash never adds a second run; a completed one is left
        completed until :meth:`complete` (its earlier conclusion stands meanwhile)."""
        external_id = _stable(target)
        run = self._find(target, external_id)
        if run is None:
            run = post_exactly_once(
                lambda: self._create_in_progress(content, target, external_id),
                lambda: self._find(target, external_id),
                "check runs",
            )
        elif run.status != "completed":
            with self.writes.write("update the check run in progress"):
                run.edit(output=_output(content, []))
        return int(run.id)

    def complete(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        """Complete the run :meth:`start` posted under the target's ``external_id`` with the content (any
        state: a re-run updates it) and its annotations; created completed when there is none."""
        run = self._find(target, _stable(target))
        if run is None:
            return self.publish(content, target)
        batches = _batches(content.annotations, MAX_ANNOTATIONS_PER_REQUEST)
        first = batches[0] if batches else []
        with self.writes.write("complete the check run"):
            run.edit(
                status="completed",
                conclusion=content.conclusion,
                output=_output(content, first),
                **_link(target),
            )
        if content.annotations:
            return self._append_the_rest(run, content, batches[1:], len(first))
        return CheckResult(
            conclusion=content.conclusion, check_run_id=run.id, summary_truncated=content.summary_truncated
        )

    # -- finding our runs ------------------------------------------------------------------------------

    def _adopt(self, content: CheckContent, target: CheckTarget) -> tuple[CheckRun, int] | None:
        """The check run an earlier attempt of the same job posted (same ``external_id``, posted by
        :attr:`app`, same conclusion and title), and how many annotations it already has.

        Only with a stable ``external_id``. A run of another App is never adopted (a pull request's
        workflow can post a run with any ``external_id``; and it could not be updated). A run of a
        different verdict is not adopted either: annotations cannot be removed from a run, so a new
        verdict gets a new run (the newest run of a name is the one GitHub shows); nor is any run
        but our newest of the name."""
        if target.external_id is None:
            return None
        with github_call(f"list the check runs of {target.head_sha[:12]}"):
            ours = [run for run in self._runs(target) if self._ours(run)]
            # Only our newest run of the name: adopting an older one (success, then failure, then
            # success again) would leave the newer run, the one GitHub shows, as it was.
            newest = max(ours, key=lambda run: run.id, default=None)
            if (
                newest is not None
                and newest.external_id == target.external_id
                and newest.conclusion == content.conclusion
                and newest.output.title == content.title
            ):
                return newest, int(newest.output.annotations_count or 0)
        return None

    def _find(self, target: CheckTarget, external_id: str) -> CheckRun | None:
        with github_call(f"list the check runs of {target.head_sha[:12]}"):
            return next(
                (run for run in self._runs(target) if run.external_id == external_id and self._ours(run)),
                None,
            )

    def _runs(self, target: CheckTarget) -> Any:
        return self.repo.get_commit(target.head_sha).get_check_runs(check_name=target.name, filter="all")

    def _ours(self, run: CheckRun) -> bool:
        """Posted by :attr:`app` (when it is known): an ``external_id`` alone can be imitated."""
        return self.app is None or run.app.slug == self.app

    # -- writing ---------------------------------------------------------------------------------------

    def _finish_adopted(
        self, run: CheckRun, content: CheckContent, target: CheckTarget, already: int
    ) -> CheckResult:
        """Bring an adopted run up to ``content``: summary and link again, then the annotations it
        does not have yet (a crash may have come between two batches)."""
        batches = _batches(content.annotations[already:], MAX_ANNOTATIONS_PER_REQUEST) or [[]]
        with self.writes.write("update the check run an earlier attempt posted"):
            run.edit(conclusion=content.conclusion, output=_output(content, batches[0]), **_link(target))
        return self._append_the_rest(run, content, batches[1:], already + len(batches[0]))

    def _create_or_minimal(
        self, content: CheckContent, target: CheckTarget, annotations: Annotations
    ) -> tuple[CheckRun, CheckContent]:
        """Create the check run; if GitHub refuses it as invalid (422: a summary over its size limit
        is the case recognised), try once more with the content's minimal summary, so that a verdict is
        posted rather than nothing. Returns the run and the content it carries."""
        try:
            return self._create_once(content, target, annotations), content
        except RequestRejected as err:
            if not _is_size_refusal(err) or content.minimal_summary is None:
                raise
            _log.warning("%s; posting the check run again with a minimal summary", err)
            minimal = replace(content, summary=content.minimal_summary, summary_truncated=True)
            return self._create_once(minimal, target, annotations), minimal

    def _create_once(self, content: CheckContent, target: CheckTarget, annotations: Annotations) -> CheckRun:
        """Create the check run exactly once, even when an answer is lost.

        A POST that failed with a 5xx or a timeout may have been applied (GitHub has no idempotency
        keys), so before each new attempt the head's check runs are re-listed and one carrying this
        attempt's ``external_id`` is adopted instead of creating a second one.
        """
        external_id = target.external_id or f"oracle-gate:{uuid.uuid4().hex}"
        return post_exactly_once(
            lambda: self._create_completed(content, target, annotations, external_id),
            lambda: self._find(target, external_id),
            "check runs",
        )

    def _create_completed(
        self, content: CheckContent, target: CheckTarget, annotations: Annotations, external_id: str
    ) -> CheckRun:
        """Created completed: a required check never sits pending on a half-published run."""
        with self.writes.write("create the check run"):
            return self.repo.create_check_run(
                name=target.name,
                head_sha=target.head_sha,
                status="completed",
                conclusion=content.conclusion,
                output=_output(content, annotations),
                external_id=external_id,
                **_link(target),
            )

    def _create_in_progress(self, content: CheckContent, target: CheckTarget, external_id: str) -> CheckRun:
        with self.writes.write("create the check run in progress"):
            return self.repo.create_check_run(
                name=target.name,
                head_sha=target.head_sha,
                status="in_progress",
                output=_output(content, []),
                external_id=external_id,
                **_link(target),
            )

    def _append_the_rest(
        self, run: CheckRun, content: CheckContent, rest: list[Annotations], posted: int
    ) -> CheckResult:
        """Append the remaining annotation batches to ``run`` (``posted`` already there); the first
        batch GitHub refuses ends the appending, and the result says which annotations are missing."""
        missing: list[NotPosted] = []
        for batch in rest:
            try:
                # GitHub appends annotations (title and summary are re-sent as is).
                with self.writes.write("append annotations to the check run"):
                    run.edit(output=_output(content, batch))
            except PublishError as err:
                what = f"annotations {posted + 1}-{len(content.annotations)} of {len(content.annotations)}"
                missing.append(not_posted(what, err))
                break
            posted += len(batch)
        return CheckResult(
            conclusion=content.conclusion,
            check_run_id=run.id,
            annotations_total=len(content.annotations),
            annotations_posted=posted,
            summary_truncated=content.summary_truncated,
            not_posted=tuple(missing),
        )

    def _status_fallback(
        self, content: CheckContent, target: CheckTarget, refused: NotPermitted
    ) -> CheckResult:
        with self.writes.write("post the commit status (fallback for the refused check run)"):
            self.repo.get_commit(target.head_sha).create_status(
                state=content.status_state,
                description=content.status_description,
                context=target.name,
                **({"target_url": target.details_url} if target.details_url else {}),
            )
        missing = [not_posted("check run", refused)]
        if content.annotations:
            missing.append(
                NotPosted(
                    f"{len(content.annotations)} annotation(s)", "a commit status carries no annotations"
                )
            )
        return CheckResult(
            conclusion=content.conclusion,
            used_status_fallback=True,
            status_state=content.status_state,
            annotations_total=len(content.annotations),
            summary_truncated=content.summary_truncated,
            not_posted=tuple(missing),
        )


def _stable(target: CheckTarget) -> str:
    if target.external_id is None:
        raise ValueError("a check run in progress needs a stable external_id")
    return target.external_id


def _link(target: CheckTarget) -> dict[str, Any]:
    return {"details_url": target.details_url} if target.details_url else {}


def _output(content: CheckContent, annotations: Annotations) -> dict[str, Any]:
    output: dict[str, Any] = {"title": content.title, "summary": content.summary}
    if annotations:
        output["annotations"] = annotations
    return output


#: How GitHub words a 422 on a check run's size ("Only 65535 characters are allowed; 78664 were
#: supplied.", as users report it) and how the fake words it.
_SIZE_REFUSAL = re.compile(r"(?i)characters are allowed|too long|longer than|larger than")


def _is_size_refusal(err: RequestRejected) -> bool:
    return err.status == 422 and _SIZE_REFUSAL.search(err.why) is not None


def _batches(items: Annotations, size: int) -> list[Annotations]:
    return [items[i : i + size] for i in range(0, len(items), size)]
