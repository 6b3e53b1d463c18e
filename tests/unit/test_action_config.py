"""The Action's typed configuration from the environment GitHub gives a Docker action."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle_gate.action.config import ActionConfig
from oracle_gate.errors import UsageError

TOKEN = "ghs_secretvalue123"  # noqa: S105 -- a fake token the tests look for in output


def environ(**inputs: str) -> dict[str, str]:
    env = {
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_API_URL": "https://ghes.example/api/v3",
        "GITHUB_SERVER_URL": "https://ghes.example",
        "GITHUB_RUN_ID": "42",
        "GITHUB_OUTPUT": "/github/file_commands/out",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/sum",
        "INPUT_GITHUB-TOKEN": TOKEN,
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_defaults_and_hyphenated_input_names() -> None:
    """Inputs are read with their hyphens kept, and unset inputs take the documented defaults."""
    config = ActionConfig.from_environ(environ())
    assert config.token == TOKEN
    assert config.api_url == "https://ghes.example/api/v3"
    assert config.check_name == "Oracle Gate"
    assert config.comment == "on-change"
    assert config.fail_on == {"fail", "unscored"}
    assert config.repo_dir == Path("/github/workspace")
    assert config.run_url == "https://ghes.example/octo/widgets/actions/runs/42"
    assert config.output_path == Path("/github/file_commands/out")


def test_the_token_never_appears_in_the_repr() -> None:
    """A config printed in a log must not leak the token."""
    config = ActionConfig.from_environ(environ())
    assert TOKEN not in repr(config)
    assert TOKEN not in str(config)


def test_inputs_are_parsed() -> None:
    """Lists split on commas and newlines; choices and booleans are validated."""
    config = ActionConfig.from_environ(
        environ(
            **{
                "protected": "docs/**\nvendor/*.py, extra.json",
                "fail-on": "fail",
                "comment": "always",
                "working-directory": "sub/dir",
                "coverage-file": "map.coverage",
                "allow-failing-parent": "TRUE",
                "check-name": "oracle",
            }
        )
    )
    assert config.protected == ("docs/**", "vendor/*.py", "extra.json")
    assert config.fail_on == {"fail"}
    assert config.comment == "always"
    assert config.repo_dir == Path("/github/workspace/sub/dir")
    assert config.coverage_file == "map.coverage"
    assert config.allow_failing_parent
    assert ActionConfig.from_environ(environ(**{"fail-on": "none"})).fail_on == frozenset()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"github-token": ""}, "github-token"),
        ({"comment": "sometimes"}, "comment"),
        ({"fail-on": "fail,maybe"}, "fail-on"),
        ({"working-directory": "../outside"}, "working-directory"),
        ({"working-directory": "/abs"}, "working-directory"),
        ({"protected": "!seeds/**"}, "protected"),
        ({"allow-failing-parent": "yes"}, "allow-failing-parent"),
        ({"max-annotations": "-1"}, "max-annotations"),
        ({"max-annotations": "1e3"}, "max-annotations"),
        ({"max-annotations": "10001"}, "max-annotations"),
        ({"max-annotations": "\u0665"}, "max-annotations"),  # a digit, but not an ASCII one
        ({"time-budget": "\u00b2"}, "time-budget"),  # "²": str.isdigit() says yes, int() says no
        ({"max-api-writes": "0"}, "max-api-writes"),
        ({"max-api-writes": "1001"}, "max-api-writes"),
        ({"max-api-writes": "ten"}, "max-api-writes"),
        ({"max-api-writes": "10"}, "max-api-writes"),  # too few for the default 500 annotations
        ({"max-api-writes": "2", "max-annotations": "100"}, "max-api-writes"),
        ({"max-api-writes": "1", "max-annotations": "0"}, "max-api-writes"),
    ],
)
def test_bad_inputs_are_one_line_errors_naming_the_input(inputs: dict[str, str], message: str) -> None:
    """Each bad input raises UsageError with a single line that names it."""
    with pytest.raises(UsageError) as info:
        ActionConfig.from_environ(environ(**inputs))
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert TOKEN not in str(info.value)


def test_the_caps_default_to_todays_and_can_be_set() -> None:
    default = ActionConfig.from_environ(environ())
    assert (default.max_annotations, default.max_api_writes) == (500, 40)
    none = ActionConfig.from_environ(environ(**{"max-annotations": "0", "max-api-writes": "2"}))
    assert (none.max_annotations, none.max_api_writes) == (0, 2)  # the check run and the comment
    room = ActionConfig.from_environ(environ(**{"max-annotations": "100", "max-api-writes": "3"}))
    assert (room.max_annotations, room.max_api_writes) == (100, 3)  # 2 annotation writes + 1 comment


def test_missing_actions_environment_is_reported() -> None:
    """Outside GitHub Actions the required variables are missing: say which."""
    env = environ()
    del env["GITHUB_EVENT_PATH"]
    with pytest.raises(UsageError, match="GITHUB_EVENT_PATH"):
        ActionConfig.from_environ(env)


def test_comment_author_is_a_login_or_nothing() -> None:
    """A PAT's login names the sticky comment's author; bots keep their [bot] suffix."""
    assert ActionConfig.from_environ(environ()).comment_author is None
    assert (
        ActionConfig.from_environ(environ(**{"comment-author": "a-maintainer"})).comment_author
        == "a-maintainer"
    )
    bot = environ(**{"comment-author": "oracle-gate[bot]"})
    assert ActionConfig.from_environ(bot).comment_author == "oracle-gate[bot]"
    with pytest.raises(UsageError, match="comment-author"):
        ActionConfig.from_environ(environ(**{"comment-author": "two words"}))
