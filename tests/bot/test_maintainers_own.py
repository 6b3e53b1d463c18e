"""Contract v3.9.3 through the bot (issue 29): a maintainer named in ``[approvals] authors`` changes
their own oracle while they hold maintain or admin; losing it (a ``member`` delivery) judges the
pull request again, as an approver's access change does."""

from __future__ import annotations

from tests.bot.harness import Bot, Origin, pull_request_event
from tests.bot.test_access_changes import member_event
from tests.bot.test_approvals import FREEZE, fixture_pull, judged
from tests.bot.test_judgement_rules import with_map
from tests.bot.test_judging import REPO
from tests.github_fake.server import FakeGitHub

POLICY = '[approvals]\noracle = ["alice"]\nauthors = ["maint"]\n'


def maintainers_pull(github: FakeGitHub, origin: Origin) -> str:
    r = origin.repo
    r.write("oracle-gate.toml", POLICY)
    r.write("freeze.json", FREEZE % "one")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "approvers and authors")
    origin.main = r.git("rev-parse", "HEAD")
    with_map(github, origin)
    head = fixture_pull(github, origin, 1, "two")
    github.state.pulls[(REPO, 1)].author = "maint"
    return head


def test_the_maintainers_own_pull_request_passes_until_they_lose_maintain(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = maintainers_pull(github, origin)
    github.set_permission(REPO, "maint", "admin")
    conclusion, summary = judged(
        bot, github, "pull_request", pull_request_event("opened", 1, head, origin.main)
    )
    assert conclusion == "success", summary
    assert f"approved by maint at {head} (by the author)" in summary
    github.set_permission(REPO, "maint", "write")  # write is not enough for one's own pull request
    conclusion, summary = judged(bot, github, "member", member_event("maint"))
    assert conclusion == "failure", summary
    assert "approved by" not in summary


def test_a_maintainer_reads_as_maintain_though_github_maps_it_to_write(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    """GitHub's permission endpoint gives ``permission: write`` for the maintain role (its legacy
    field) and ``role_name: maintain``: a maintainer's own pull request counts, a triager approves
    nothing (red team: the maintain role was read as write, so v3.9.3 held for admins only)."""
    head = maintainers_pull(github, origin)
    github.set_permission(REPO, "maint", "maintain")
    conclusion, summary = judged(
        bot, github, "pull_request", pull_request_event("opened", 1, head, origin.main)
    )
    assert conclusion == "success", summary
    assert f"approved by maint at {head} (by the author)" in summary
