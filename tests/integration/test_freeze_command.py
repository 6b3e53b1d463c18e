"""``oracle-gate freeze add|remove|list`` on real repositories (the CLI in-process; pytest collects
the tests for real in a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.factories import write_json_map
from tests.support.in_process import run_cli
from tests.support.repo import Repo

TESTS = """\
import pytest


def test_a():
    assert True


@pytest.mark.parametrize("n", [1, 2])
def test_p(n):
    assert n


class TestGroup:
    def test_in(self):
        assert True
"""
OLD_FREEZE = {
    "schema": 1,
    "frozen": [{"nodeid": "tests/test_x.py::test_z", "reason": "old", "bound_sha": "abcd", "ticket": "T-1"}],
}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.write("tests/test_x.py", TESTS)
    repo.write("freeze.json", json.dumps(OLD_FREEZE))
    repo.commit("tests")
    return repo


def freeze(repo: Repo, *args: str) -> tuple[int, str, str]:
    done = run_cli("freeze", *args, "--repo", str(repo.root))
    return done.returncode, done.stdout, done.stderr


def entries(repo: Repo) -> list[dict[str, object]]:
    frozen = json.loads(repo.read("freeze.json"))["frozen"]
    assert isinstance(frozen, list)
    return frozen


def test_add_binds_to_the_full_head_sha_and_writes_a_stable_layout(repo: Repo) -> None:
    status, out, err = freeze(
        repo,
        "add",
        "tests/test_x.py::test_p",
        "--reason",
        "flaky",
        "--owner",
        "alice",
        "--expires",
        "2027-01-31",
    )
    assert status == 0, err
    assert "froze tests/test_x.py::test_p" in out
    assert entries(repo) == [
        {
            "nodeid": "tests/test_x.py::test_p",
            "reason": "flaky",
            "bound_sha": repo.head(),
            "owner": "alice",
            "expires": "2027-01-31",
        },
        {"nodeid": "tests/test_x.py::test_z", "reason": "old", "bound_sha": "abcd", "ticket": "T-1"},
    ]
    text = repo.read("freeze.json")
    assert text.endswith("}\n")
    assert text.count('\n    {\n      "nodeid"') == 2  # one block per entry
    # written again unchanged: a second run produces the same bytes (stable)
    assert freeze(repo, "add", "tests/test_x.py::TestGroup", "--reason", "r")[0] == 0
    assert freeze(repo, "remove", "tests/test_x.py::TestGroup")[0] == 0
    assert repo.read("freeze.json") == text


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["tests/test_x.py::test_nope", "--reason", "r"], "matches no test pytest collects"),
        (["tests/test_x.py::test_a", "--reason", "  "], "--reason must not be empty"),
        (["tests/test_x.py::test_a", "--reason", "r", "--owner=-bad"], "is not a login"),
        (["tests/test_x.py::test_a", "--reason", "r", "--expires", "2027-02-30"], "is not a date"),
        (["tests/test_x.py::test_a", "--reason", "r", "--expires", "31/01/2027"], "is not a date"),
        (["tests/test_x.py::test_z", "--reason", "r"], "is already in freeze.json"),
    ],
)
def test_add_refuses_with_one_line_and_exit_3(repo: Repo, args: list[str], problem: str) -> None:
    before = repo.read("freeze.json")
    status, _out, err = freeze(repo, "add", *args)
    assert status == 3
    assert problem in err
    assert len(err.splitlines()) == 1
    assert repo.read("freeze.json") == before


def test_add_when_collection_fails(repo: Repo) -> None:
    repo.write("tests/test_broken.py", "import no_such_module_here\n")
    status, _, err = freeze(repo, "add", "tests/test_x.py::test_a", "--reason", "r")
    assert status == 3
    assert "pytest --collect-only failed" in err


def test_remove(repo: Repo) -> None:
    assert freeze(repo, "remove", "tests/test_x.py::test_z")[0] == 0
    assert entries(repo) == []
    status, _, err = freeze(repo, "remove", "tests/test_x.py::test_z")
    assert status == 3
    assert "is not an entry of freeze.json" in err


def test_the_policy_names_the_freeze_file(repo: Repo) -> None:
    repo.write("oracle-gate.toml", 'freeze = "oracle/frozen.json"\n')
    assert freeze(repo, "add", "tests/test_x.py::test_a", "--reason", "r")[0] == 0
    assert json.loads(repo.read("oracle/frozen.json"))["frozen"][0]["nodeid"] == "tests/test_x.py::test_a"


def test_a_manifest_that_cannot_be_written_is_one_line_not_an_internal_error(repo: Repo) -> None:
    """Seen on main: the freeze wrote with its own ``write_atomically`` call, so an OSError reached
    the catch-all (``internal error: FileExistsError``); it now writes through the commands' output
    module, which names the file."""
    repo.write("oracle", "a file where the policy wants a directory\n")
    repo.write("oracle-gate.toml", 'freeze = "oracle/frozen.json"\n')
    status, _, err = freeze(repo, "add", "tests/test_x.py::test_a", "--reason", "r")
    assert status == 3
    assert "internal error" not in err
    assert f"oracle-gate: error: cannot write {repo.root / 'oracle' / 'frozen.json'}:" in err
    assert len(err.splitlines()) == 1


def test_list_shows_age_owner_expiry_existence_and_unique_lines(repo: Repo, tmp_path: Path) -> None:
    assert freeze(repo, "add", "tests/test_x.py::test_a", "--reason", "r", "--expires", "2020-01-01")[0] == 0
    cov = write_json_map(
        tmp_path / "map.json",
        {
            "tests/test_x.py::test_a": {"src/m.py": [1, 2, 3]},
            "tests/test_x.py::test_p[1]": {"src/m.py": [3, 4]},
        },
    )
    status, out, err = freeze(repo, "list", "--format", "json", "--coverage", str(cov))
    assert status == 0, err
    rows = {row["nodeid"]: row for row in json.loads(out)}
    a = rows["tests/test_x.py::test_a"]
    assert (a["owner"], a["expires"], a["expired"], a["exists"]) == (None, "2020-01-01", True, True)
    assert a["unique_lines"] == {"src/m.py": [1, 2]}
    assert a["age_days"] >= 0  # the test repository's commits are dated 2025-01-01
    z = rows["tests/test_x.py::test_z"]
    assert (z["exists"], z["age_days"], z["unique_lines"]) == (False, None, {})
    status, text, _ = freeze(repo, "list")
    assert status == 0
    assert "tests/test_x.py::test_a" in text
    assert "(EXPIRED)" in text
    assert "NO LONGER COLLECTED" in text


@pytest.mark.parametrize("addopts", ["-q", "-ra -q", "-qq", "-v", "-rA --verbose"])
def test_add_and_list_whatever_verbosity_the_projects_addopts_set(repo: Repo, addopts: str) -> None:
    """``--collect-only -q`` plus the project's ``-q`` printed file counts, and plus ``-v`` a tree:
    a test that exists "matched no test pytest collects" and ``list`` called it gone (issue 28)."""
    repo.write("pytest.ini", f"[pytest]\naddopts = {addopts}\n")

    status, _out, err = freeze(repo, "add", "tests/test_x.py::test_p", "--reason", "flaky")

    assert status == 0, err
    status, out, err = freeze(repo, "list", "--format", "json")
    assert status == 0, err
    exists = {row["nodeid"]: row["exists"] for row in json.loads(out)}
    assert exists == {"tests/test_x.py::test_p": True, "tests/test_x.py::test_z": False}


def test_a_test_deselected_by_the_projects_addopts_still_exists(repo: Repo) -> None:
    """``-m 'not slow'`` deselects a test; it is still a test of the project (``list`` says so)."""
    repo.write("pytest.ini", "[pytest]\naddopts = -m 'not slow'\nmarkers = slow\n")
    repo.write("tests/test_slow.py", "import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n")
    assert freeze(repo, "add", "tests/test_slow.py::test_slow", "--reason", "r")[0] == 0
    status, out, _ = freeze(repo, "list", "--format", "json")
    assert status == 0
    assert {row["nodeid"]: row["exists"] for row in json.loads(out)}["tests/test_slow.py::test_slow"] is True


def test_a_relative_repo_path_still_puts_the_src_layout_first(tmp_path: Path) -> None:
    """``--repo repo`` from the directory above: the ``src/`` put on PYTHONPATH for pytest must be
    absolute, since pytest runs inside the checkout (a relative one pointed at ``repo/repo/src``, and
    an installed copy of the package, or none, was imported instead: iniconfig, whose package pytest
    itself has installed, failed to collect)."""
    repo = Repo(tmp_path / "repo")
    repo.write("pyproject.toml", '[project]\nname = "calc"\nversion = "0"\n')
    repo.write("src/calc/__init__.py", "def add(a, b):\n    return a + b\n")
    repo.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    repo.commit("src layout")
    added = run_cli(
        "freeze", "add", "tests/test_calc.py::test_add", "--reason", "flaky", "--repo", "repo", cwd=tmp_path
    )
    assert added.returncode == 0, added.stderr
    listed = run_cli("freeze", "list", "--format", "json", "--repo", "repo", cwd=tmp_path)
    assert [(r["nodeid"], r["exists"]) for r in json.loads(listed.stdout)] == [
        ("tests/test_calc.py::test_add", True)
    ]
