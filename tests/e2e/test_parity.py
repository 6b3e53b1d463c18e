"""Parity: scenarios run through both front doors as processes (issue 17, TRUST.md invariant 11).

Each row is one event and one repository state; the Action (in process, the e2e harness) and the
bot (``oracle-gate serve`` as a process, the bot harness) receive the same payload against the same
origin repository, each with a fake GitHub of its own seeded alike, and must post the same checks
(name, conclusion, annotation count), the same sticky comment (or none) and the same reactions. A
row one door cannot serve says why in ``not_served``.

Since issue 27 both doors walk one sequence (:mod:`oracle_gate.judgement`), so parity holds by
construction; the table's other rows are unit rows over fake ports (``tests/unit/test_judgement.py``,
milliseconds each). Kept here are the rows whose outcome rests on what each door does itself, with
real git and a real GitHub fake: the parent's map through each door's own map source (``clean``: a
coverage-file checked by map_trust, the store's verified artifact), each door's own fetch of the
test merge with the base's tip (``base-moved``), the base change each door heard of itself
(``retarget-after-approval``: the Action's event, the bot's stored delivery), and each door's fetch
of every queued pull request's head (``merge-queue-second-unapproved``).
"""

from __future__ import annotations

import hashlib
import io
import json
import stat
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from oracle_gate.github.defaults import DEFAULT_CHECK_NAME as NAME
from oracle_gate.maps.reader.manifest import Manifest
from oracle_gate.maps.reader.provenance import Producer
from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import FakeFactory
from tests.support import approved_pulls, events
from tests.support.bot_app import APP_ID, INSTALLATION, Origin, make_app_key
from tests.support.bot_process import Bot
from tests.support.harness import Runner
from tests.support.project import REPO, Project, PullRequest, git, seed_fake

STICKY = "<!-- oracle-gate:sticky -->"


@dataclass
class World:
    """What a row may change before the event: the pull request's base, the origin's main, the
    answers of pulls/get. ``undo`` restores the session's shared origin."""

    project: Project
    fake: FakeGitHub
    undo: list[Callable[[], object]] = field(default_factory=list)
    made: dict[str, PullRequest] = field(default_factory=dict)  # pull requests a row's setup made


@dataclass(frozen=True)
class Row:
    id: str
    action_event: str  # the Action's event (pull_request_target judges like the bot: a fetched merge)
    bot_event: str
    payload: Callable[[World], dict[str, Any]]
    checks: tuple[tuple[str, str], ...]  # (name, conclusion) of every check posted, in order
    comment: bool = False  # a sticky comment is posted
    reactions: tuple[str, ...] = ()  # on the row's comment
    summary_has: str = ""
    summary_lacks: str = ""  # no summary says this (empty: not asked)
    setup: Callable[[World], None] = lambda world: None
    with_map: bool = False  # the Action gets the parent's map (coverage-file); else neither door has one
    not_served: dict[str, str] = field(default_factory=dict)  # door -> why it cannot serve the row


def pr_event(number: int, base: str = "main") -> Callable[[World], dict[str, Any]]:
    return lambda w: events.pull_request(w.project, w.project.pulls[number], base_ref=base)


def base_moved(w: World) -> None:
    """main moves; GitHub has not recomputed refs/pull/1/merge (still on the old tip)."""
    env = ["-c", "user.name=someone", "-c", "user.email=someone@example.com"]
    tree = f"{w.project.main}^{{tree}}"
    moved = git(w.project.origin, *env, "commit-tree", tree, "-p", w.project.main, "-m", "main moves")
    w.project.git("update-ref", "refs/heads/main", moved)
    w.undo.append(lambda: w.project.git("update-ref", "refs/heads/main", w.project.main))


MAP_WORKFLOW = ".github/workflows/oracle-gate-map.yml"


def map_of_the_parent(w: World) -> None:
    """The bot's only map source: a successful push run of the map workflow on main uploading the
    project's measured parent map (the coverage.py data file the Action is given as coverage-file)
    and the manifest ``oracle-gate map`` writes beside it, with the run as its producer."""
    main, data = w.project.main, w.project.coverage.read_bytes()
    run = w.fake.add_workflow_run(REPO, MAP_WORKFLOW, main)
    producer = Producer(
        repository=REPO,
        workflow_ref=f"{REPO}/{MAP_WORKFLOW}@refs/heads/main",
        run_id=str(run.id),
        event="push",
        job="combine",
        ref="refs/heads/main",
        sha=main,
    )
    manifest = Manifest(
        path=Path("parent.coverage.manifest.json"),
        data=Path("parent.coverage"),
        sha=main,
        data_sha256=hashlib.sha256(data).hexdigest(),
        tests=1,
        extra={"producer": producer.to_document()},
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in (
            ("parent.coverage", data),
            (manifest.path.name, json.dumps(manifest.to_document())),
        ):
            entry = zipfile.ZipInfo(name)
            entry.external_attr = (stat.S_IFREG | 0o644) << 16  # a regular file, as upload-artifact zips it
            archive.writestr(entry, content)
    w.fake.add_artifact(run, "oracle-gate-map", out.getvalue())


TABLE = [
    Row(
        "base-moved",
        "pull_request_target",
        "pull_request",
        pr_event(1),
        ((NAME, "failure"),),
        summary_has="not onto the current tip",
        setup=base_moved,
    ),
    # Issue 29 (contract v3.9): approvals bound to what the approver saw. No map in either door, so
    # an approval that (wrongly) counts leaves unscored (action_required), one that does not, failure.
    Row(
        "retarget-after-approval",
        "pull_request_target",
        "pull_request",
        approved_pulls.retarget_event,
        ((NAME, "failure"),),
        comment=True,
        summary_has="submitted before the base branch changed",
        setup=approved_pulls.retargeted_after_approval,
    ),
    Row(  # v3.9.2: #35's oracle change approved, #36's not: the group's oracle change is not
        "merge-queue-second-unapproved",
        "merge_group",
        "merge_group",
        approved_pulls.group_event,
        ((NAME, "failure"),),
        summary_has="fixtures/more.json",
        summary_lacks="Approvals could not be read",  # judged with both pull requests' approvals, not without
        setup=approved_pulls.queued_second_unapproved,
    ),
    Row(
        "clean",
        "pull_request_target",
        "pull_request",
        pr_event(1),
        ((NAME, "success"),),
        with_map=True,
        setup=map_of_the_parent,  # the bot's map: the same data file, as a map workflow's artifact
    ),
]


COMMENTED = (1, 2, 3, *approved_pulls.NUMBERS)  # the pull requests whose sticky comment is looked for


@dataclass(frozen=True)
class Posted:
    checks: tuple[tuple[str, str], ...]
    annotations: tuple[int, ...]
    summaries: tuple[str, ...]
    comment: bool
    reactions: tuple[str, ...]


def posted(fake: FakeGitHub, comment_id: int | None) -> Posted:
    runs = fake.check_runs(REPO)
    return Posted(
        checks=tuple((r.name, r.conclusion or "") for r in runs),
        annotations=tuple(len(r.annotations) for r in runs),
        summaries=tuple(r.summary or "" for r in runs),
        comment=any(STICKY in c.body for n in COMMENTED for c in fake.comments(REPO, n)),
        reactions=tuple(r.content for r in fake.reactions(comment_id)) if comment_id else (),
    )


@pytest.fixture
def start_bot(tmp_path: Path, project: Project) -> Iterator[Callable[[FakeGitHub], Bot]]:
    key = make_app_key()
    key_file = tmp_path / "app.pem"
    key_file.write_text(key.private_pem)
    repos = tmp_path / "git" / REPO.split("/")[0]
    repos.mkdir(parents=True)
    (repos / REPO.split("/")[1]).symlink_to(project.origin)
    origin = cast(Origin, SimpleNamespace(url_template=f"file://{tmp_path}/git/{{repo}}"))
    started: list[Bot] = []

    def start(fake: FakeGitHub) -> Bot:
        fake.add_app(APP_ID, key.public_pem, "oracle-gate")
        bot = Bot(tmp_path / "bot-state", fake, key_file, origin, concurrency=1)
        bot.env["ORACLE_GATE_MERGE_WAIT_MS"] = "20"
        started.append(bot.start())
        return bot

    yield start
    for bot in started:
        bot.stop()


def through_the_action(row: Row, runner: Runner, world: World) -> Posted:
    payload = row.payload(world)
    comment_id = payload.get("comment", {}).get("id")
    inputs = {} if row.with_map else {"coverage-file": ""}
    sha = payload.get("merge_group", {}).get("head_sha") or world.project.main  # GITHUB_SHA
    runner.run(row.action_event, payload, runner.workspace(at="base"), sha=sha, inputs=inputs)
    return posted(world.fake, comment_id)


def through_the_bot(row: Row, bot: Bot, world: World) -> Posted:
    payload = row.payload(world)
    payload["installation"] = {"id": INSTALLATION, "node_id": "x"}
    comment_id = payload.get("comment", {}).get("id")
    started = time.monotonic()
    assert bot.deliver(row.bot_event, payload).status_code == 202
    assert time.monotonic() - started < 3.0  # answered at once, whatever the payload holds
    bot.wait_idle(timeout=120)
    return posted(world.fake, comment_id)


def run_row(row: Row, world: World, door: Callable[[World], Posted]) -> Posted:
    try:
        row.setup(world)
        return door(world)
    finally:
        for undo in reversed(world.undo):
            undo()


@pytest.mark.parametrize("row", TABLE, ids=[r.id for r in TABLE])
def test_both_front_doors_post_the_same(
    *,
    row: Row,
    runner: Runner,
    project: Project,
    fake: FakeGitHub,
    github_fake_factory: FakeFactory,
    start_bot: Callable[[FakeGitHub], Bot],
) -> None:
    if "both" in row.not_served:
        pytest.skip(row.not_served["both"])
    seen = {}
    if "action" not in row.not_served:
        seen["action"] = run_row(row, World(project, fake), lambda w: through_the_action(row, runner, w))
    if "bot" not in row.not_served:
        bot_fake = seed_fake(github_fake_factory(), project)
        bot = start_bot(bot_fake)
        seen["bot"] = run_row(row, World(project, bot_fake), lambda w: through_the_bot(row, bot, w))
    for door, got in seen.items():
        assert got.checks == row.checks, (door, got.summaries)
        assert got.comment == row.comment, door
        assert got.reactions == row.reactions, door
        assert all(row.summary_has in s for s in got.summaries), (door, got.summaries)
        lacking = [s for s in got.summaries if row.summary_lacks and row.summary_lacks in s]
        assert not lacking, (door, lacking)
    if len(seen) == 2:
        assert seen["action"].annotations == seen["bot"].annotations
