"""The policy file: parsing, defaults, the always-protected set; a typo never weakens protection."""

from __future__ import annotations

import pytest

from oracle_gate.judge.policy import DEFAULT_PROTECTED, DEFAULT_TESTS, Policy, parse_policy


def policy(text: str) -> Policy:
    return parse_policy(text.encode())


def test_no_policy_file_means_defaults() -> None:
    """Without a policy file every key has the contract's default and there is no problem."""
    p = parse_policy(None)
    assert p == Policy()
    assert p.protected == ("seeds/**", "fixtures/**", "harness/**", "freeze.json", "fixture_lock.json")
    assert p.freeze == "freeze.json"
    assert p.fixture_lock == "fixture_lock.json"
    assert p.ignore == ()
    assert p.tests == ("tests/**", "**/test_*.py", "**/*_test.py")
    assert p.forbid_skip_markers is True
    assert p.protect_runner_config is True


def test_every_key_is_read() -> None:
    """A complete, well-formed policy sets every field and reports nothing."""
    p = policy(
        """
        protected = ["data/**"]
        freeze = "oracle/freeze.json"
        fixture_lock = "oracle/lock.json"
        ignore = ["docs/**"]
        tests = ["spec/**"]
        forbid_skip_markers = false
        protect_runner_config = false
        """
    )
    assert p.problems == ()
    assert p.protected == ("data/**",)
    assert (p.freeze, p.fixture_lock) == ("oracle/freeze.json", "oracle/lock.json")
    assert p.ignore == ("docs/**",)
    assert p.tests == ("spec/**",)
    assert not p.forbid_skip_markers
    assert not p.protect_runner_config


def test_protected_replaces_the_defaults() -> None:
    """``protected`` replaces the default list: seeds/** is no longer protected when not listed."""
    globs = policy('protected = ["data/**"]').protected_globs()
    assert "data/x" in globs
    assert "seeds/x" not in globs
    assert "fixtures/x" not in globs


@pytest.mark.parametrize(
    "path",
    [
        "oracle-gate.toml",
        ".github/workflows/ci.yml",
        ".github/workflows/sub/x.yml",
        "oracle/freeze.json",
        "oracle/lock.json",
        "locked/a.bin",
        "locked/b[1].json",
    ],
)
def test_always_protected_whatever_the_policy_says(path: str) -> None:
    """The policy file, workflows, the freeze and lock paths and every lock path are always protected."""
    p = policy('protected = []\nfreeze = "oracle/freeze.json"\nfixture_lock = "oracle/lock.json"')
    assert p.protected_globs(["locked/a.bin", "locked/b[1].json"]).match(path) is not None


def test_always_protected_set_is_anchored() -> None:
    """Only the configured paths are protected, not same-named files elsewhere."""
    globs = policy("protected = []").protected_globs()
    assert "freeze.json" in globs
    assert "a/freeze.json" not in globs
    assert ".github/ci.yml" not in globs
    assert "x/oracle-gate.toml" not in globs


def test_extra_protected_only_adds() -> None:
    """--protect globs add to the policy's list and never remove anything from it."""
    p = parse_policy(None).with_extra_protected(["docs/**", "", "docs/**"])
    assert p.extra_protected == ("docs/**",)
    globs = p.protected_globs()
    assert "docs/a.md" in globs
    for path in ("seeds/x", "fixtures/x", "harness/x", "freeze.json", "fixture_lock.json"):
        assert path in globs


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('protcted = ["x/**"]', "unknown key 'protcted'"),
        ("[tool]\nx = 1", "unknown key 'tool'"),
        ('protected = "seeds/**"', "'protected' must be a list of strings"),
        ('protected = ["a", 1]', "'protected' must be a list of strings"),
        ('ignore = "docs"', "'ignore' must be a list of strings"),
        ("tests = [1]", "'tests' must be a list of strings"),
        ("freeze = 5", "'freeze' must be a repo-relative path"),
        ('freeze = "/abs/freeze.json"', "'freeze' must be a repo-relative path"),
        ('freeze = "../freeze.json"', "'freeze' must be a repo-relative path"),
        ('fixture_lock = "a/../lock.json"', "'fixture_lock' must be a repo-relative path"),
        ('forbid_skip_markers = "false"', "'forbid_skip_markers' must be true or false"),
        ("protect_runner_config = 0", "'protect_runner_config' must be true or false"),
        ("protected = [", "not valid TOML"),
        ('"a\\nb" = 1', "unknown key 'a\\nb'"),  # a quoted key with a newline stays on one line
    ],
)
def test_malformed_policy_names_the_file_and_the_problem(text: str, problem: str) -> None:
    """Unknown keys, wrong types and bad TOML are one-line problems naming the policy file."""
    p = policy(text)
    assert len(p.problems) == 1
    assert p.problems[0].source == "oracle-gate.toml"
    text = str(p.problems[0])
    assert text.startswith("oracle-gate.toml: ")
    assert problem in text
    assert "\n" not in text


def test_non_utf8_policy_is_a_problem() -> None:
    """Bytes that are not UTF-8 make the policy malformed, with defaults in force."""
    p = parse_policy(b"protected = [\xff]")
    assert p.problems
    assert "not valid TOML" in str(p.problems[0])
    assert p.protected == DEFAULT_PROTECTED


def test_wellformed_keys_still_apply_next_to_a_typo() -> None:
    """A typo elsewhere does not drop the well-formed keys of the same file."""
    p = policy('protected = ["data/**"]\nforbid_skip_marker = false\ntests = ["spec/**"]')
    assert len(p.problems) == 1
    assert p.protected == ("data/**",)
    assert p.tests == ("spec/**",)
    assert p.forbid_skip_markers is True  # the misspelt key did not switch the check off


def test_malformed_protected_keeps_defaults_and_adds_its_strings() -> None:
    """A wrongly typed ``protected`` never protects less than the defaults plus what it named."""
    p = policy('protected = ["data/**", 7]')
    assert p.problems
    assert set(DEFAULT_PROTECTED) <= set(p.protected)
    assert "data/**" in p.protected


def test_malformed_tests_keeps_defaults_and_adds_its_strings() -> None:
    """A wrongly typed ``tests`` never looks for skip markers in fewer places than the defaults."""
    p = policy('tests = ["spec/**", 5]')
    assert p.problems
    assert set(DEFAULT_TESTS) <= set(p.tests)
    assert "spec/**" in p.tests


@pytest.mark.parametrize(
    "text",
    ['forbid_skip_markers = "no"', "protect_runner_config = 0", "ignore = 3", "freeze = 1", "tests = 3"],
)
def test_malformed_keys_fall_back_to_the_strict_default(text: str) -> None:
    """A wrongly typed key keeps its default, which is the strict setting for the flags."""
    p = policy(text)
    assert p.problems
    assert p.forbid_skip_markers
    assert p.protect_runner_config
    assert p.ignore == ()
    assert p.freeze == "freeze.json"
    assert p.tests == DEFAULT_TESTS


def test_deeply_nested_policy_is_a_problem_not_a_crash() -> None:
    """v2 hostile input: a policy nested past tomllib's recursion limit is malformed, defaults apply."""
    deep = b"protected = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    policy = parse_policy(deep)
    assert policy.protected == Policy().protected
    assert [str(p) for p in policy.problems] == [
        "oracle-gate.toml: nested too deeply to parse; defaults apply"
    ]


def test_the_harness_globs_default_to_harness_and_a_bad_value_keeps_the_default() -> None:
    """Issue 20: the scoring run runs the tests of these files first (SCORING.md, Inputs)."""
    assert parse_policy(None).harness == ("harness/**",)
    assert parse_policy(b'harness = ["qa/**", "checks/*.py"]').harness == ("qa/**", "checks/*.py")
    bad = parse_policy(b'harness = "qa/**"')
    assert bad.harness == ("harness/**",)
    assert bad.problems
