"""The replay command printed in the comment and the check summary replays the recorded options.

Each rendering's command is parsed back the way a shell and the CLI would read it (shlex.split, then
the CLI's own argparse parser), and the options it yields must equal ``protocol.options``.
"""

from __future__ import annotations

import dataclasses
import shlex

import pytest

from oracle_gate.cli import build_parser
from oracle_gate.judge.verdict import Provenance, Verdict
from oracle_gate.render.check import check_summary
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.replay import replay_command
from oracle_gate.render.verdict_json import to_json
from tests.support.markdown import replay_command_of
from tests.support.rendering_cases import ODD_GLOBS, pass_clean

OPTIONS = {
    "none": ((), False),
    "odd globs, failing parent allowed": (ODD_GLOBS, True),
    "odd globs only": (ODD_GLOBS, False),
    "backticks and double quotes": (("weird ```fence/**", 'say "hi"/**', "$HOME/*;rm -rf x"), False),
}


def _with_options(extra_protected: tuple[str, ...], allow_failing_parent: bool) -> Verdict:
    v = pass_clean()
    protocol = Provenance(
        **{
            **v.protocol.__dict__,
            "extra_protected": extra_protected,
            "allow_failing_parent": allow_failing_parent,
        }
    )
    return dataclasses.replace(v, protocol=protocol)


@pytest.mark.parametrize("rendering", [to_markdown, check_summary], ids=["comment", "check"])
@pytest.mark.parametrize("options", sorted(OPTIONS))
def test_printed_command_parses_back_to_the_recorded_options(rendering: object, options: str) -> None:
    v = _with_options(*OPTIONS[options])
    assert callable(rendering)
    argv = shlex.split(replay_command_of(rendering(v)))
    assert argv[0] == "oracle-gate"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "check"
    assert (args.base, args.head, args.coverage_sha) == (v.parent, v.head, v.parent)
    assert tuple(args.protect) == v.protocol.extra_protected
    assert args.allow_failing_parent is v.protocol.allow_failing_parent
    assert to_json(v)["protocol"]["options"] == {
        "extra_protected": list(args.protect),
        "allow_failing_parent": args.allow_failing_parent,
    }


def test_the_command_is_the_same_in_comment_and_check_summary() -> None:
    v = _with_options(ODD_GLOBS, True)
    command = replay_command(v)
    assert replay_command_of(to_markdown(v)) == command
    assert replay_command_of(check_summary(v)) == command


def test_a_glob_with_backticks_cannot_close_the_fence_early() -> None:
    v = _with_options(("a````b/**",), False)
    assert "\n`````\n" in to_markdown(v)
    assert shlex.split(replay_command_of(to_markdown(v)))[-1] == "--protect=a````b/**"
