"""Bounded work (TRUST.md invariant 8) shared between jobs: one installation token per installation at
a time, one download per map, and the fetches of one mirror batched."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import cast

from oracle_gate.bot.jobs import mirror
from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, StoreSettings
from oracle_gate.errors import GitError
from oracle_gate.git import Git
from tests.bot.harness import BotFactory, Origin, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub

PARENT = "b" * 40


def test_a_cold_start_mints_one_installation_token(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """Eight pull requests queued before the server starts: four workers want a token at once."""
    heads = {n: open_pull(github, origin, n, f"pull {n}") for n in range(1, 9)}
    github.slow_next("POST", "/app/installations/*/access_tokens", 0.5)  # they all ask meanwhile
    bot = bot_factory(concurrency=4)
    for number, head in heads.items():
        bot.deliver("pull_request", pull_request_event("opened", number, head, origin.main))
    bot.wait_idle()
    assert len(github.check_runs(REPO)) == 8
    assert len(github.installation_tokens) == 1
    assert len(github.log("GET", "/app")) == 1


def test_jobs_sharing_a_parent_download_its_map_once(tmp_path: Path, github: FakeGitHub) -> None:
    run = github.add_workflow_run(REPO, WORKFLOW, PARENT)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, PARENT, run.id))
    github.slow_next("GET", f"/repos/{REPO}/actions/artifacts/*", 0.5)
    store = ArtifactMapStore(StoreSettings(WORKFLOW, ARTIFACT, tmp_path / "maps"), github.url, pacing=None)
    found: list[Path | None] = []

    def job() -> None:
        found.append(store.find(REPO, PARENT, github.token).manifest)

    threads = [threading.Thread(target=job) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(found) == 6
    assert None not in found
    assert len(set(found)) == 1
    assert len(github.log("GET", f"/repos/{REPO}/actions/artifacts/*")) == 1


class RecordingGit:
    """A mirror's :class:`Git` that records each fetch (and takes a while, as a real one does)."""

    def __init__(self, path: Path, refuse: str = "") -> None:
        self.repo = path
        self.fetches: list[list[str]] = []
        self.refuse = refuse
        self._guard = threading.Lock()

    def fetch(self, url: str, refspecs: list[str], *, extra_env: object = None) -> None:
        with self._guard:
            self.fetches.append(list(refspecs))
        time.sleep(0.2)
        if self.refuse and any(self.refuse in r for r in refspecs):
            raise GitError(f"couldn't find remote ref {self.refuse}")


def fetch_side_by_side(git: RecordingGit, numbers: range) -> dict[int, BaseException | None]:
    outcome: dict[int, BaseException | None] = {}

    def job(n: int) -> None:
        try:
            mirror.fetch(cast(Git, git), "file:///origin", [f"+refs/pull/{n}/merge:refs/x/{n}"], None)
            outcome[n] = None
        except GitError as exc:
            outcome[n] = exc

    threads = [threading.Thread(target=job, args=(n,)) for n in numbers]
    for t in threads:
        t.start()
        time.sleep(0.01)
    for t in threads:
        t.join(timeout=60)
    return outcome


def test_fetches_of_one_mirror_that_wait_are_batched_into_one(tmp_path: Path) -> None:
    git = RecordingGit(tmp_path / "a.git")
    outcome = fetch_side_by_side(git, range(1, 11))
    assert outcome == dict.fromkeys(range(1, 11))
    assert len(git.fetches) <= 3  # the first alone, then everything that arrived meanwhile
    assert sorted(r for f in git.fetches for r in f) == sorted(
        f"+refs/pull/{n}/merge:refs/x/{n}" for n in range(1, 11)
    )


def test_one_missing_ref_in_a_batch_fails_only_its_own_job(tmp_path: Path) -> None:
    git = RecordingGit(tmp_path / "b.git", refuse="refs/pull/4/")
    outcome = fetch_side_by_side(git, range(1, 7))
    assert [n for n, error in outcome.items() if error is not None] == [4]
