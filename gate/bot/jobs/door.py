"""The bot's ports for the one judgement (:mod:`oracle_gate.judgement`): its mirror, its trusted map
store, its bounded child process, its installation's pull requests, checks and comments."""

from __future__ import annotations

from collections.abc import Callable

from oracle_gate.bot.app.config import BotConfig
from oracle_gate.bot.jobs import bounded, merges, mirror
from oracle_gate.bot.jobs.mapstore import MapLookup
from oracle_gate.git import Git
from oracle_gate.github.pulls import PullInfo, Pulls
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judgement.github_ports import PostedChecks, PostedComments
from oracle_gate.judgement.ports import Facts, MergeGroupAsked, ParentMap, Rules
from oracle_gate.judgement.repository import GitAnswers
from oracle_gate.judgement.sequence import Door
from oracle_gate.review.freshness import LOOKS, Sighting

GROUP_REF = "refs/oracle-gate/group"
QUEUED_HEAD = "refs/oracle-gate/group-pull"  # v3.9.2: the merge group's pull request's head


def rules_of(config: BotConfig, default_branch: str | None) -> Rules:
    """The judgement's rules from the bot's settings."""
    return Rules(
        check_name=config.check_name,
        allowed_bases=config.allowed_bases,
        default_branch=default_branch,
        max_changed_bytes=config.max_changed_bytes,
        merge_wait=config.merge_wait,
        max_annotations=config.max_annotations,
        comment=config.comment,
    )


class MirrorLook(GitAnswers):
    """The bot's :class:`~oracle_gate.judgement.ports.MergeLook`: its mirror of the repository (opened
    on first use), fetched over ``url`` with the installation's token (:mod:`oracle_gate.bot.jobs.merges`)."""

    def __init__(
        self,
        git: Git | Callable[[], Git],
        url: str,
        token: str,
        pulls: Pulls,
        first: PullInfo | None = None,
    ) -> None:
        super().__init__(git)
        self.url = url
        self.token = token
        self.pulls = pulls
        self.first = first
        self._look: Callable[[], Sighting] | None = None

    @property
    def looks(self) -> int:
        return LOOKS

    def look(self, number: int, head: str) -> Sighting:
        """One look; the first uses the job's own ``pulls/get`` (``first``), each later one asks again."""
        if self._look is None:
            first = self.first if self.first is not None else self.pulls.pull_request(number)
            self._look = merges.looker(self.git, self.url, self.token, self.pulls, first)
        return self._look()

    def group_commits(self, group: MergeGroupAsked) -> tuple[str, str]:
        mirror.fetch(self.git, self.url, [f"+{group.head_ref}:{GROUP_REF}"], self.token)
        return self.git.commit(group.head_sha), self.git.commit(group.base_sha)

    def fetch_pull_head(self, number: int) -> None:
        mirror.fetch(self.git, self.url, [f"+refs/pull/{number}/head:{QUEUED_HEAD}"], self.token)


class StoreMaps:
    """The bot's :class:`~oracle_gate.judgement.ports.ParentMaps`: only the trusted map store."""

    def __init__(self, find: Callable[[str], MapLookup]) -> None:
        self._find = find

    def find(self, parent: str) -> ParentMap:
        found = self._find(parent)
        if found.manifest is not None:
            return ParentMap(found.manifest)
        return ParentMap(missing=found.why, waiting=found.waiting)


class BoundedJudge:
    """The bot's :class:`~oracle_gate.judgement.ports.Judge`: a child process under the job's limits
    (:mod:`oracle_gate.bot.jobs.bounded`)."""

    def __init__(self, limit_bytes: int, limit_seconds: float = 0.0) -> None:
        self.limit_bytes = limit_bytes
        self.limit_seconds = limit_seconds

    def judge(self, facts: Facts) -> Verdict:
        return bounded.judge(facts, self.limit_bytes, self.limit_seconds)


def bot_door(
    config: BotConfig,
    *,
    github: GitHubRepo,
    look: MirrorLook,
    maps: StoreMaps,
    default_branch: str | None,
    sleep: Callable[[float], object],
    clock: Callable[[], float],
    note: Callable[[str], None],
) -> Door:
    return Door(
        pulls=github.pulls,
        look=look,
        maps=maps,
        judge=BoundedJudge(config.job_memory_mb * bounded.MIB, config.job_seconds),
        checks=PostedChecks(github.checks),
        comments=PostedComments(github.comments),
        rules=rules_of(config, default_branch),
        sleep=sleep,
        note=note,
        clock=clock,
    )
