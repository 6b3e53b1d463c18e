"""The bot's score check (``<check-name> / score``, oracle_gate.bot.jobs.scoring) as a person reads it on
GitHub, byte for byte against tests/golden/score/: its title and conclusion for each score, and the
in-progress check posted while the sandbox runs. Its summary is the score's markdown report
(``score/*.md``, tests/unit/test_score_golden.py). Refresh as tests/golden/README.md says."""

from __future__ import annotations

import pytest

from oracle_gate.bot.jobs.scoring import cancelled_content, progress_content, score_content
from oracle_gate.judge.verdict import Outcome
from oracle_gate.score.decide import Score, ScoreCode, ScoreReason, decide, incomplete
from oracle_gate.score.sandbox import Limits
from tests.support.golden import assert_matches_golden
from tests.support.verdicts import HEAD, PARENT
from tests.unit.test_score_golden import PARENT_RUN, result


def scores() -> dict[str, Score]:
    wall = "the scoring run passed its wall limit (ORACLE_GATE_SCORE_WALL_SECONDS) and was stopped"
    return {
        "pass_clean": result("pass_clean").score,
        "fail": result("fail").score,
        "unscored": incomplete(wall),
        "rejected": Score(
            Outcome.UNSCORED,
            (ScoreReason(ScoreCode.SCORE_REPORT_REJECTED, "head is 'x'", outcome=Outcome.UNSCORED),),
        ),
        "no_live_tests": decide(PARENT_RUN, frozenset(), ()),
    }


def shown(kind: str) -> str:
    content = score_content(scores()[kind], PARENT, HEAD)
    return f"{content.conclusion}\n{content.title}\n{content.status_state}: {content.status_description}\n"


@pytest.mark.parametrize("kind", sorted(scores()))
def test_the_score_checks_conclusion_and_title(kind: str) -> None:
    assert_matches_golden(f"score/check_{kind}.txt", shown(kind))


def test_the_check_in_progress() -> None:
    content = progress_content(Limits(wall_seconds=3600))
    assert_matches_golden("score/check_in_progress.md", f"{content.title}\n\n{content.summary}\n")


def test_the_check_of_a_score_stopped_for_a_newer_head() -> None:
    content = cancelled_content("the pull request's head is now " + HEAD + ", not " + PARENT)
    assert content.conclusion == "cancelled"  # never success: the old head's check is not left spinning
    shown = f"{content.conclusion}\n{content.title}\n{content.status_state}: {content.status_description}\n\n"
    assert_matches_golden("score/check_cancelled.md", shown + content.summary + "\n")


def test_the_conclusions_are_score_verifys() -> None:
    """As examples/oracle-gate-score-publish.yml maps them."""
    got = {kind: score_content(score, PARENT, HEAD).conclusion for kind, score in scores().items()}
    assert got == {
        "pass_clean": "success",
        "fail": "failure",
        "unscored": "action_required",
        "rejected": "action_required",
        "no_live_tests": "action_required",
    }
