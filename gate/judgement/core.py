"""The judgement itself: facts in, the core's verdict out, in whatever process the door runs it.

The one module of the doors' rooms that reads the repository for a verdict (:mod:`oracle_gate.check`):
the Action calls :func:`judge_facts` in its own process, the bot in its bounded child process
(:mod:`oracle_gate.bot.jobs.bounded`). What the door could not give is evidence the core judges
(a refused map is the map's problems; no map is said by the store's words), never a verdict the
door edits after the fact.
"""

from __future__ import annotations

from dataclasses import replace

from oracle_gate.check import CheckRequest, gather
from oracle_gate.git import Git
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.verdict import Evidence, Verdict, evaluate
from oracle_gate.judgement.ports import Facts
from oracle_gate.review.approvals import request_fields


def request_of(facts: Facts) -> CheckRequest:
    """The read side's request: the map only when it may be used; the approvals' head is set on the
    evidence (:func:`judge_facts`), not resolved by git (a shallow checkout may lack it)."""
    return CheckRequest(
        repo=facts.repo,
        base=facts.parent,
        head=facts.merge,
        coverage=facts.parent_map.usable,
        coverage_sha=facts.parent_map.coverage_sha if facts.parent_map.usable else None,
        extra_protected=facts.extra_protected,
        allow_failing_parent=facts.allow_failing_parent,
        **request_fields(facts.approvals, pr_head=False),
    )


def judge_facts(facts: Facts, git: Git | None = None) -> Verdict:
    """The verdict on ``facts`` (raises GateError when git cannot answer)."""
    return verdict_of(gather(git or Git(facts.repo), request_of(facts)), facts)


def verdict_of(evidence: Evidence, facts: Facts) -> Verdict:
    """The core's verdict on what was read, with what the door withheld as evidence: a refused map
    is the map's problems, no map is said in the door's words, the approvals' head is the pull
    request's (pure: the sequence's unit tests call it on evidence they build)."""
    if facts.parent_map.refused:
        evidence = replace(evidence, coverage=ParentCoverage(problems=facts.parent_map.refused))
    if facts.approvals is not None:
        seen = facts.approvals.seen
        evidence = replace(evidence, approved_head=facts.approvals.head, approvals_seen=seen)
    if facts.parent_map.usable is None and facts.parent_map.missing is not None:
        evidence = replace(evidence, map_missing=facts.parent_map.missing)
    return evaluate(evidence)


class InProcess:
    """The :class:`~oracle_gate.judgement.ports.Judge` that judges in this process (the Action, the
    bot with no memory limit)."""

    def __init__(self, git: Git | None = None) -> None:
        self.git = git

    def judge(self, facts: Facts) -> Verdict:
        return judge_facts(facts, self.git)
