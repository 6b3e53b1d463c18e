"""The one judgement sequence (oracle_gate.judgement.sequence) over fake ports: milliseconds a row.

Each row is what a front door asks and what its ports answer; the sequence decides. The verdict is
made by the real core on evidence built here (``oracle_gate.judgement.core.verdict_of``), so what a
door withholds (no map, a refused map, unreadable approvals) is judged as it is in production.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.context import Context
from oracle_gate.action.door import ActionMaps
from oracle_gate.action.door import rules_of as action_rules
from oracle_gate.action.workflow_io import Log
from oracle_gate.bot.app.config import BotConfig
from oracle_gate.bot.jobs.context import NoMaps
from oracle_gate.bot.jobs.door import StoreMaps
from oracle_gate.bot.jobs.door import rules_of as bot_rules
from oracle_gate.errors import GateError, PublishError
from oracle_gate.git import Git
from oracle_gate.github.pulls import PullInfo
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.github.reviews import Review
from oracle_gate.github.values import (
    CheckContent,
    CheckResult,
    CheckTarget,
    CommentAction,
    CommentResult,
    StickyComment,
)
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import Outcome, ReasonCode, Verdict
from oracle_gate.judgement import stale
from oracle_gate.judgement.core import verdict_of
from oracle_gate.judgement.ports import (
    Facts,
    Judged,
    MergeGroupAsked,
    NotJudged,
    ParentMap,
    ParentMaps,
    PullRequestAsked,
    Rules,
    Superseded,
)
from oracle_gate.judgement.sequence import Answer, Door, answer, explain, judge, post, post_moved
from oracle_gate.maps.build import build_map
from oracle_gate.review.approvals import ReviewSource
from oracle_gate.review.commands import Command, parse_command
from oracle_gate.review.freshness import LOOKS, Sighting
from tests.support.factories import change_set, evidence, modified, numbered, observed

NAME = "Oracle Gate"
BASE = "c" * 40  # main's tip: the test merge's first parent
MERGE = "d" * 40
HEAD = "e" * 40
NEWER = "f" * 40
SRC = "src/mod.py"
MAP = ParentMap(Path("parent.coverage.manifest.json"))


def source_edit() -> tuple[object, ...]:
    return (modified(SRC, numbered(5), numbered(5).replace(b"3\n", b"three\n")),)


# -- fakes -------------------------------------------------------------------------------------------


@dataclass
class FakeReviews:
    """``ReviewSource``: the reviews of every pull request, each login's permission."""

    reviews_of: dict[int, list[Review]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    fails: str | None = None

    def reviews(self, number: int) -> list[Review]:
        if self.fails:
            raise PublishError("list reviews", self.fails)
        return self.reviews_of.get(number, [])

    def active_member(self, team: str, login: str) -> bool:
        return False

    def team_exists(self, team: str) -> bool:
        return True

    def permission(self, login: str) -> str:
        return self.permissions.get(login, "read")

    def base_changed_at(self, number: int) -> datetime | None:
        return None


@dataclass
class FakePulls:
    pulls: dict[int, PullInfo] = field(default_factory=dict)
    reviews: FakeReviews = field(default_factory=FakeReviews)
    asked: list[int] = field(default_factory=list)
    unreachable: str | None = None

    def pull_request(self, number: int) -> PullInfo:
        self.asked.append(number)
        if self.unreachable:
            raise PublishError("ask GitHub", self.unreachable)
        return self.pulls[number]

    def commit_parents(self, sha: str) -> tuple[str, ...]:
        return ()

    def review_reader(self) -> ReviewSource:
        return self.reviews

    def permission_of(self, login: str) -> str:
        if self.unreachable:
            raise PublishError("ask GitHub", self.unreachable)
        return self.reviews.permission(login)


@dataclass
class FakeLook:
    """Each look answers the next sighting (the last one again once they run out)."""

    sightings: list[Sighting] = field(default_factory=list)
    looks: int = LOOKS
    rules: ApprovalRules | None = None
    size: int = 100
    group: tuple[str, str] = (MERGE, BASE)
    looked: int = 0

    @property
    def git(self) -> Git:
        raise AssertionError("the sequence asks git nothing in these rows")

    @property
    def repo(self) -> Path:
        return Path("/nowhere")

    def approval_rules(self, parent: str) -> ApprovalRules | None:
        return self.rules

    def changed_bytes(self, parent: str, merge: str) -> int:
        return self.size

    def look(self, number: int, head: str) -> Sighting:
        self.looked += 1
        return self.sightings[min(self.looked, len(self.sightings)) - 1]

    def group_commits(self, group: MergeGroupAsked) -> tuple[str, str]:
        return self.group

    def fetch_pull_head(self, number: int) -> None:
        raise AssertionError("no group approvals in these rows")


@dataclass
class FakeMaps:
    found: ParentMap = MAP
    asked: list[str] = field(default_factory=list)

    def find(self, parent: str) -> ParentMap:
        self.asked.append(parent)
        return self.found


@dataclass
class CoreJudge:
    """The real core on built evidence: a map observes every line of ``src/mod.py`` by a live test."""

    edits: tuple[object, ...] = field(default_factory=source_edit)
    facts: list[Facts] = field(default_factory=list)

    def judge(self, facts: Facts) -> Verdict:
        self.facts.append(facts)
        changes = change_set(*self.edits, parent=facts.parent, head=facts.merge)  # type: ignore[arg-type]
        if facts.parent_map.usable is not None:
            coverage = observed({SRC: {n: ["tests/test_mod.py::test_live"] for n in range(1, 6)}})
        else:
            coverage = ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))
        return verdict_of(evidence(changes, coverage=coverage), facts)


@dataclass
class FakeChecks:
    posted: list[tuple[CheckContent, CheckTarget]] = field(default_factory=list)

    def publish(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        self.posted.append((content, target))
        return CheckResult(content.conclusion, check_run_id=len(self.posted))


@dataclass
class FakeComments:
    stickies: list[tuple[int, StickyComment | None]] = field(default_factory=list)
    replies: list[tuple[int, str]] = field(default_factory=list)
    reactions: list[tuple[int, int, str]] = field(default_factory=list)

    def sticky(self, pr_number: int, comment: StickyComment | None) -> CommentResult:
        self.stickies.append((pr_number, comment))
        return CommentResult(CommentAction.CREATED if comment else CommentAction.SKIPPED, 7)

    def reply(self, issue_number: int, body: str) -> int | None:
        self.replies.append((issue_number, body))
        return 9

    def react(self, issue_number: int, comment_id: int, reaction: str) -> None:
        self.reactions.append((issue_number, comment_id, reaction))


def fresh(head: str = HEAD, base_tip: str = BASE, first: str = BASE, second: str | None = None) -> Sighting:
    return Sighting(1, head, "main", base_tip, True, MERGE, first, second or head)


def pull(number: int = 1, head: str = HEAD, base: str = "main", author: str = "agent") -> PullInfo:
    return PullInfo(number, head, BASE, "topic", base, False, author, mergeable=True)


@dataclass
class World:
    pulls: FakePulls = field(default_factory=lambda: FakePulls({1: pull()}))
    look: FakeLook = field(default_factory=lambda: FakeLook([fresh()]))
    maps: FakeMaps = field(default_factory=FakeMaps)
    judge: CoreJudge = field(default_factory=CoreJudge)
    checks: FakeChecks = field(default_factory=FakeChecks)
    comments: FakeComments = field(default_factory=FakeComments)
    rules: Rules = field(default_factory=lambda: Rules(NAME, default_branch="main"))
    slept: list[float] = field(default_factory=list)

    def door(self) -> Door:
        return Door(
            self.pulls,
            self.look,
            self.maps,
            self.judge,
            self.checks,
            self.comments,
            self.rules,
            self.slept.append,
        )


def judged(world: World, asked: PullRequestAsked | MergeGroupAsked) -> Judged:
    result = judge(world.door(), asked)
    assert isinstance(result, Judged), result
    return result


# -- the sequence's own cases ----------------------------------------------------------------------


def test_a_fresh_merge_with_the_parents_map_is_judged_and_posted_check_then_comment() -> None:
    world = World()
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.verdict.verdict == Outcome.PASS_CLEAN
    assert (result.parent, result.merge, result.head) == (BASE, MERGE, HEAD)
    assert world.maps.asked == [BASE]
    assert world.pulls.asked == []  # the event said the head and base: pulls/get is not asked
    published = post(world.door(), result)
    assert published is not None
    assert published.check.conclusion == "success"
    ((_content, target),) = world.checks.posted
    assert target == CheckTarget(HEAD, NAME)
    assert world.comments.stickies[0][0] == 1


def test_a_stale_merge_is_never_judged_and_a_failure_check_says_why() -> None:
    world = World(look=FakeLook([fresh(base_tip=NEWER)]))  # merged onto an old tip, every look
    result = judge(world.door(), PullRequestAsked(1, HEAD, "main"))
    assert isinstance(result, NotJudged)
    assert "not onto the current tip" in result.why
    assert "never judged" in result.why
    assert world.look.looked == LOOKS
    assert len(world.slept) == LOOKS - 1
    assert world.judge.facts == []
    assert world.maps.asked == []
    post(world.door(), result)
    ((content, target),) = world.checks.posted
    assert content.conclusion == "failure"
    assert target.head_sha == HEAD
    assert world.comments.stickies == []


def test_a_merge_github_is_still_computing_is_looked_at_again_then_judged() -> None:
    computing = Sighting(1, HEAD, "main", None, None)
    world = World(look=FakeLook([computing, computing, fresh()]))
    assert judged(world, PullRequestAsked(1, HEAD, "main")).merge == MERGE
    assert world.look.looked == 3


def test_a_merge_that_cannot_change_is_looked_at_once() -> None:
    world = World(look=FakeLook([fresh(second=NEWER)], looks=1))
    result = judge(world.door(), PullRequestAsked(1, HEAD, "main"))
    assert isinstance(result, NotJudged)
    assert world.look.looked == 1
    assert world.slept == []


def test_a_head_that_moved_while_waiting_is_superseded_and_nothing_is_posted() -> None:
    world = World(look=FakeLook([fresh(head=NEWER)]))
    result = judge(world.door(), PullRequestAsked(1, HEAD, "main"))
    assert isinstance(result, Superseded)
    assert NEWER in result.why
    assert post(world.door(), result) is None
    assert world.checks.posted == []
    assert world.judge.facts == []


def test_a_base_that_is_not_allowed_gets_the_check_name_with_its_base() -> None:
    world = World()
    result = judged(world, PullRequestAsked(1, HEAD, "mine"))
    assert result.check_name == f"{NAME} (base: mine)"
    post(world.door(), result)
    assert world.checks.posted[0][1].name == f"{NAME} (base: mine)"


def test_the_head_and_base_come_from_pulls_get_when_the_event_lacks_them() -> None:
    world = World()
    assert judged(world, PullRequestAsked(1)).head == HEAD
    assert world.pulls.asked == [1]  # once, for both


def test_no_head_known_is_not_judged_and_nothing_can_be_posted() -> None:
    world = World(pulls=FakePulls(unreachable="503"))
    result = judge(world.door(), PullRequestAsked(1))
    assert isinstance(result, NotJudged)
    assert result.head is None
    assert "head commit" in result.why
    assert post(world.door(), result) is None
    assert world.checks.posted == []


@pytest.mark.parametrize(
    "found",
    [
        ParentMap(),  # the Action with neither coverage-file nor coverage-command
        ParentMap(missing="no map of this parent yet", waiting=True),  # the bot's store
        ParentMap(MAP.manifest, refused=(Problem("parent.coverage", "written by the pull request's run"),)),
    ],
    ids=["none-given", "store-has-none", "refused"],
)
def test_a_missing_or_refused_map_is_unscored_never_a_pass(found: ParentMap) -> None:
    world = World(maps=FakeMaps(found))
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.verdict.verdict == Outcome.UNSCORED
    assert ReasonCode.ORACLE_INCOMPLETE in result.verdict.codes
    assert not result.had_map
    post(world.door(), result)
    assert world.checks.posted[0][0].conclusion == "action_required"
    said = " ".join(r.detail for r in result.verdict.reasons)
    assert (found.missing or (found.refused[0].message if found.refused else "no coverage map")) in said


def test_a_change_over_the_byte_budget_is_unscored_and_neither_read_nor_mapped() -> None:
    world = World(
        look=FakeLook([fresh()], size=4096), rules=Rules(NAME, default_branch="main", max_changed_bytes=1024)
    )
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.verdict.verdict == Outcome.UNSCORED
    assert "over the 1024-byte budget" in result.verdict.reasons[0].detail
    assert world.maps.asked == []
    assert world.judge.facts == []


def test_unreadable_approvals_are_judged_without_and_said() -> None:
    reviews = FakeReviews(fails="500 on pulls/list-reviews")
    world = World(
        pulls=FakePulls({1: pull()}, reviews),
        look=FakeLook([fresh()], rules=ApprovalRules(oracle=("alice",))),
    )
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.approvals is not None
    assert result.approvals.approvals is None
    assert result.verdict.approvals_seen is not None
    assert "500 on pulls/list-reviews" in (result.verdict.approvals_seen.unreadable or "")
    assert world.judge.facts[0].approvals is result.approvals


def test_approvals_on_the_head_go_to_the_core_with_the_pull_requests_head() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    reviews = FakeReviews({1: [Review("alice", "APPROVED", HEAD, when)]}, {"alice": "write"})
    world = World(
        pulls=FakePulls({1: pull()}, reviews),
        look=FakeLook([fresh()], rules=ApprovalRules(oracle=("alice",))),
    )
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.approvals is not None
    assert [a.login for a in result.approvals.approvals or ()] == ["alice"]
    assert result.approvals.head == HEAD


def test_an_author_that_cannot_be_read_leaves_the_approvals_unread_not_empty() -> None:
    world = World(look=FakeLook([fresh()], rules=ApprovalRules(oracle=("alice",))))
    world.pulls.unreachable = "404"
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    assert result.approvals is not None
    assert "404" in (result.approvals.seen.unreadable or "")


def test_git_failing_mid_judgement_is_not_judged() -> None:
    class Broken(FakeLook):
        def changed_bytes(self, parent: str, merge: str) -> int:
            raise GateError("git cat-file failed")

    world = World(look=Broken([fresh()]), rules=Rules(NAME, default_branch="main", max_changed_bytes=10))
    result = judge(world.door(), PullRequestAsked(1, HEAD, "main"))
    assert isinstance(result, NotJudged)
    assert result.why == "git cat-file failed"
    assert result.head == HEAD


def test_a_merge_group_is_judged_against_its_base_and_posts_no_comment() -> None:
    world = World()
    group = MergeGroupAsked(MERGE, "refs/heads/gh-readonly-queue/main/pr-1", BASE, "main")
    result = judged(world, group)
    assert (result.parent, result.merge, result.head, result.number) == (BASE, MERGE, MERGE, None)
    assert result.verdict.verdict == Outcome.PASS_CLEAN
    post(world.door(), result)
    assert world.checks.posted[0][1] == CheckTarget(MERGE, NAME)
    assert world.comments.stickies == []


def test_a_merge_group_to_another_base_is_named_for_it() -> None:
    world = World()
    result = judged(world, MergeGroupAsked(MERGE, "refs/heads/gh-readonly-queue/dev/pr-1", BASE, "dev"))
    assert result.check_name == f"{NAME} (base: dev)"


def test_an_unscored_verdict_on_a_new_parent_says_the_last_verdict_is_stale() -> None:
    world = World(maps=FakeMaps(ParentMap(missing="no map of this parent yet", waiting=True)))
    result = judged(world, PullRequestAsked(1, HEAD, "main"))
    post(world.door(), result, earlier=stale.Earlier(parent=NEWER, verdict="pass_clean"), external_id="x")
    content, target = world.checks.posted[0]
    assert content.title.startswith("Stale")
    assert target.external_id == "x"


def test_a_moved_default_branch_replaces_the_check_at_once() -> None:
    world = World()
    post_moved(world.door(), stale.Earlier(BASE, "pass_clean"), NEWER, CheckTarget(HEAD, NAME))
    assert world.checks.posted[0][0].conclusion == "action_required"


# -- commands ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("permission", "expected", "reaction"),
    [("write", Answer.RERUN, "eyes"), ("admin", Answer.RERUN, "eyes"), ("read", Answer.REFUSED, "-1")],
)
def test_a_command_acts_only_once_its_authors_permission_is_known(
    permission: str, expected: Answer, reaction: str
) -> None:
    world = World()
    world.pulls.reviews.permissions["someone"] = permission
    answered = answer(world.door(), Command.RERUN, user="someone", pr_number=1, comment_id=5)
    assert answered.answer == expected
    assert world.comments.reactions == [(1, 5, reaction)]


def test_a_permission_that_cannot_be_learned_changes_nothing() -> None:
    world = World(pulls=FakePulls(unreachable="502"))
    answered = answer(world.door(), Command.EXPLAIN, user="someone", pr_number=1, comment_id=5)
    assert answered.answer == Answer.UNKNOWN
    assert isinstance(answered.error, PublishError)
    assert world.comments.reactions == []


def test_explain_replies_with_the_verdict_and_posts_no_check() -> None:
    world = World()
    world.pulls.reviews.permissions["someone"] = "maintain"
    assert (
        answer(world.door(), Command.EXPLAIN, user="someone", pr_number=1, comment_id=5).answer
        == Answer.EXPLAIN
    )
    explained = explain(world.door(), judge(world.door(), PullRequestAsked(1)), 1)
    assert explained is not None
    assert explained.comment_id == 9
    assert world.checks.posted == []
    assert "pass_clean" in world.comments.replies[0][1]


def test_explain_of_a_merge_not_judged_says_why_in_the_reply() -> None:
    world = World(look=FakeLook([fresh(base_tip=NEWER)]))
    explain(world.door(), judge(world.door(), PullRequestAsked(1, HEAD, "main")), 1)
    assert "not onto the current tip" in world.comments.replies[0][1]
    assert world.checks.posted == []


@pytest.mark.parametrize(
    "body", ["thanks\n/oracle-gate rerun", "\n" * (1 << 20) + "x", "/oracle-gate rerun now"]
)
def test_no_command_is_read_where_none_is_given(body: str) -> None:
    assert parse_command(body) is None


# -- parity: the rows of tests/e2e/test_parity.py through each door's own adapter code ---------------
#
# Each door contributes what is its own: its rules (from its own configuration: the Action's inputs,
# the bot's settings) and its answer to "no map" (the Action with neither coverage-file nor
# coverage-command, the bot with no trusted store). The rest is the one sequence over shared fakes,
# so both doors post the same check name and conclusion, the same annotations and the same comment.


def action_door_parts() -> tuple[Rules, ParentMaps]:
    config = ActionConfig.from_environ(ACTION_ENV)
    ctx = Context(
        config, cast(Git, None), cast(GitHubRepo, None), Log(io.StringIO()), build_map, lambda s: None
    )
    ctx.default_branch = "main"
    return action_rules(config, "main"), ActionMaps(ctx, Path("/nowhere"))


def bot_door_parts() -> tuple[Rules, ParentMaps]:
    config = BotConfig(app_id=1, private_key="", webhook_secret=b"")
    return bot_rules(config, "main"), StoreMaps(lambda parent: NoMaps().find("octo/widgets", parent, "token"))


ACTION_ENV = {
    "GITHUB_REPOSITORY": "octo/widgets",
    "GITHUB_EVENT_NAME": "pull_request_target",
    "GITHUB_EVENT_PATH": "/github/workflow/event.json",
    "GITHUB_SHA": "a" * 40,
    "GITHUB_WORKSPACE": "/github/workspace",
    "INPUT_GITHUB-TOKEN": "ghs_x",
}
DOORS: dict[str, Callable[[], tuple[Rules, ParentMaps]]] = {
    "action": action_door_parts,
    "bot": bot_door_parts,
}


@dataclass(frozen=True)
class Posted:
    checks: tuple[tuple[str, str], ...]
    annotations: tuple[int, ...]
    comment: bool
    reactions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Row:
    id: str
    asked: PullRequestAsked | MergeGroupAsked | Command | None
    checks: tuple[tuple[str, str], ...]
    comment: bool = False
    reactions: tuple[str, ...] = ()
    with_map: bool = False
    world: Callable[[World], None] = lambda world: None


def through(door_parts: Callable[[], tuple[Rules, ParentMaps]], row: Row) -> Posted:
    rules, maps = door_parts()
    world = World(rules=rules)
    row.world(world)
    world.maps = FakeMaps(MAP) if row.with_map else maps  # type: ignore[assignment]
    door = world.door()
    asked = row.asked
    if isinstance(asked, Command):
        answered = answer(door, asked, user="someone", pr_number=1, comment_id=5)
        asked = PullRequestAsked(1) if answered.answer == Answer.RERUN else None
    if asked is not None:
        post(door, judge(door, asked))
    return Posted(
        checks=tuple((target.name, content.conclusion) for content, target in world.checks.posted),
        annotations=tuple(len(content.annotations) for content, _ in world.checks.posted),
        comment=any(comment is not None for _, comment in world.comments.stickies),
        reactions=tuple(reaction for _, _, reaction in world.comments.reactions),
    )


def edits(*made: object) -> Callable[[World], None]:
    def world(w: World) -> None:
        w.judge = CoreJudge(made)

    return world


def permission(level: str) -> Callable[[World], None]:
    def world(w: World) -> None:
        w.pulls.reviews.permissions["someone"] = level

    return world


def stale_merge(w: World) -> None:
    w.look = FakeLook([fresh(base_tip=NEWER)])


def never_computed(w: World) -> None:
    w.look = FakeLook([Sighting(1, HEAD, "main", None, None)])


UNSCORED = ((NAME, "action_required"),)
FROZEN_ONLY_EDIT = modified("src/frozen.py", numbered(3), numbered(3).replace(b"2\n", b"two\n"))
PARITY = [
    Row("no-map", PullRequestAsked(1, HEAD, "main"), UNSCORED, comment=True),
    Row(
        "oracle-edit",
        PullRequestAsked(1, HEAD, "main"),
        ((NAME, "failure"),),
        comment=True,
        world=edits(modified("fixtures/data.json", b"{}\n", b'{"a": 1}\n')),
    ),
    Row(
        "frozen-only",
        PullRequestAsked(1, HEAD, "main"),
        UNSCORED,
        comment=True,
        world=edits(FROZEN_ONLY_EDIT),
    ),
    Row(
        "other-base", PullRequestAsked(1, HEAD, "mine"), ((f"{NAME} (base: mine)", "action_required"),), True
    ),
    Row("base-moved", PullRequestAsked(1, HEAD, "main"), ((NAME, "failure"),), world=stale_merge),
    Row("merge-not-ready", PullRequestAsked(1, HEAD, "main"), ((NAME, "failure"),), world=never_computed),
    Row("rerun-by-writer", Command.RERUN, UNSCORED, True, ("eyes",), world=permission("write")),
    Row("rerun-by-reader", Command.RERUN, (), reactions=("-1",), world=permission("read")),
    Row("second-line-command", parse_command("thanks\n/oracle-gate rerun"), ()),
    Row("huge-comment", parse_command("\n" * (1 << 20) + "x"), ()),
    Row("re-run-button", PullRequestAsked(1), UNSCORED, comment=True),
    Row(
        "merge-group",
        MergeGroupAsked(MERGE, "refs/heads/gh-readonly-queue/main/pr-1", BASE, "main"),
        ((NAME, "success"),),
        with_map=True,
    ),
    Row("clean", PullRequestAsked(1, HEAD, "main"), ((NAME, "success"),), comment=True, with_map=True),
]


@pytest.mark.parametrize("row", PARITY, ids=[row.id for row in PARITY])
def test_both_doors_post_the_same(row: Row) -> None:
    seen = {door: through(parts, row) for door, parts in DOORS.items()}
    for door, got in seen.items():
        assert got.checks == row.checks, door
        assert got.comment == row.comment, door
        assert got.reactions == row.reactions, door
    assert seen["action"] == seen["bot"]


def test_both_doors_take_the_same_rules_from_their_defaults() -> None:
    """The shared settings (oracle_gate.review.settings) give both doors one judgement: only what is
    the Action's alone (its protected globs, allow-failing-parent) may differ, and by default does not."""
    (action, _), (bot, _) = action_door_parts(), bot_door_parts()
    assert action == bot


def test_no_map_is_the_core_s_verdict_in_both_doors_and_the_bot_says_its_store_s_words() -> None:
    verdicts = {}
    for door, parts in DOORS.items():
        rules, maps = parts()
        world = World(rules=rules, maps=maps)  # type: ignore[arg-type]
        verdicts[door] = judged(world, PullRequestAsked(1, HEAD, "main")).verdict
    assert {v.verdict for v in verdicts.values()} == {Outcome.UNSCORED}
    assert "no trusted map store is configured" in " ".join(r.detail for r in verdicts["bot"].reasons)
