"""v3.5 approvals read through the pull requests' review reader, against the fake GitHub: every page of
reviews, team membership (404 and pending are "not a member"), permissions, and errors that say so."""

from __future__ import annotations

from datetime import UTC, datetime

from oracle_gate.github.reviews import Review
from oracle_gate.judge.approvals import ApprovalRules, Approver, counting_approvers
from oracle_gate.review.approvals import read_approvals
from tests.github.clients import HEAD_SHA, PR, REPO, pulls_for
from tests.github_fake import FakeGitHub

OLD = "0" * 40
REVIEWED = "2026-11-30T12:00:00Z"
RULES = ApprovalRules(("alice", "octo/owners", "gate-maintainer[bot]"), 1)


def test_every_page_of_reviews_is_read_and_the_latest_per_user_decides(fake: FakeGitHub) -> None:
    for i in range(120):  # more than one page of reviews before the one that counts
        fake.reviews.add_review(REPO, PR, f"user{i}", state="COMMENTED", commit_id=HEAD_SHA)
    fake.reviews.add_review(REPO, PR, "alice", state="APPROVED", commit_id=HEAD_SHA, submitted_at=REVIEWED)
    reader = pulls_for(fake).review_reader()
    reviews = reader.reviews(PR)
    assert len(reviews) == 121
    assert reviews[-1] == Review("alice", "APPROVED", HEAD_SHA, datetime(2026, 11, 30, 12, 0, tzinfo=UTC))
    assert len(fake.log("GET", f"/repos/{REPO}/pulls/{PR}/reviews")) >= 2


def test_team_membership_and_permission_decide_through_the_api(fake: FakeGitHub) -> None:
    fake.set_permission(REPO, "carol", "write")
    fake.set_permission(REPO, "dave", "write")
    fake.set_permission(REPO, "erin", "write")
    fake.set_permission(REPO, "gate-bot[bot]", "write")
    fake.reviews.add_member("octo", "owners", "carol")
    fake.reviews.add_member("octo", "owners", "dave", state="pending")
    fake.reviews.add_member("octo", "others", "erin")  # a team the policy does not name
    fake.reviews.add_member("octo", "owners", "gate-bot[bot]")  # a bot never counts through a team
    for login in ("carol", "dave", "erin", "gate-bot[bot]"):
        fake.reviews.add_review(REPO, PR, login, state="APPROVED", commit_id=HEAD_SHA)
    fake.reviews.add_review(REPO, PR, "alice", state="APPROVED", commit_id=OLD)
    read = read_approvals(pulls_for(fake).review_reader(), RULES, number=PR, author="agent", head=HEAD_SHA)
    assert read.approvals is not None
    assert counting_approvers(RULES, read.approvals, author="agent", head_sha=HEAD_SHA) == [
        Approver("carol", HEAD_SHA)
    ]
    assert read.seen.stale == (Approver("alice", OLD),)
    assert not fake.log("GET", "/orgs/octo/teams/others/*")


def test_a_team_that_cannot_be_read_is_said_never_no_approvals(fake: FakeGitHub) -> None:
    fake.set_permission(REPO, "carol", "write")
    fake.reviews.add_review(REPO, PR, "carol", state="APPROVED", commit_id=HEAD_SHA)
    fake.fail_next("GET", "/orgs/octo/teams/owners/memberships/*", 403, times=5)
    read = read_approvals(pulls_for(fake).review_reader(), RULES, number=PR, author="agent", head=HEAD_SHA)
    assert read.approvals is None
    assert "team octo/owners" in read.seen.unreadable


def test_a_named_team_that_does_not_exist_is_listed(fake: FakeGitHub) -> None:
    fake.set_permission(REPO, "carol", "write")
    fake.reviews.add_review(REPO, PR, "carol", state="APPROVED", commit_id=HEAD_SHA)
    read = read_approvals(pulls_for(fake).review_reader(), RULES, number=PR, author="agent", head=HEAD_SHA)
    assert read.approvals is not None
    assert read.seen.unknown_teams == ("octo/owners",)
    fake.reviews.add_team("octo", "owners")
    again = read_approvals(pulls_for(fake).review_reader(), RULES, number=PR, author="agent", head=HEAD_SHA)
    assert again.seen.unknown_teams == ()


def test_the_last_base_change_is_read_from_every_page_of_issue_events(fake: FakeGitHub) -> None:
    """v3.9.1: only the events that change the base count, the latest of them, on any page."""
    fake.reviews.add_event(REPO, PR, "base_ref_changed", created_at="2026-11-30T12:05:00Z")
    for _ in range(120):  # more than one page (the client asks 100 a page)
        fake.reviews.add_event(REPO, PR, "labeled", created_at="2026-12-01T00:00:00Z")
    fake.reviews.add_event(REPO, PR, "automatic_base_change_succeeded", created_at="2026-11-30T13:00:00Z")
    fake.reviews.add_event(REPO, PR, "base_ref_changed", created_at="2026-11-30T12:30:00Z")
    reader = pulls_for(fake).review_reader()
    assert reader.base_changed_at(PR) == datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
    assert len(fake.log("GET", f"/repos/{REPO}/issues/{PR}/events")) >= 2
    assert reader.base_changed_at(PR + 1) is None
