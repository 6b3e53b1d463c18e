"""Runner hooks and configuration tables: which file changes alter how the oracle runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from oracle_gate.judge.runner_config import changed_tables, is_hook_file, runner_config_changes
from tests.support.factories import Edit, added, change_set, dedent, deleted, modified, renamed


@pytest.mark.parametrize(
    ("path", "hook"),
    [
        ("conftest.py", True),
        ("a/b/c/conftest.py", True),
        ("pytest.ini", True),
        ("sub/tox.ini", True),
        ("sitecustomize.py", True),
        ("lib/usercustomize.py", True),
        ("site-packages/evil.pth", True),
        ("x.pth", True),
        ("conftest_helpers.py", False),
        ("my_conftest.py", False),
        ("pytest.ini.bak", False),
        ("setup.py.orig", False),
        ("pth.txt", False),
        # v2: more names, compared case-insensitively
        ("setup.py", True),
        ("Conftest.py", True),
        ("tests/CONFTEST.PY", True),
        ("pytest.toml", True),
        (".pytest.toml", True),
        ("sub/.pytest.ini", True),
        ("noxfile.py", True),
        (".coveragerc", True),
        (".gitattributes", True),
        ("data/.GitAttributes", True),
        # v2: compiled code and repository actions
        ("pkg/__pycache__/calc.cpython-311.pyc", True),
        ("pkg/__pycache__/notes.txt", True),
        ("calc.cpython-311-x86_64-linux-gnu.so", True),
        ("pkg/calc.pyd", True),
        ("old.pyo", True),
        (".github/actions/setup/action.yml", True),
        (".GitHub/Actions/x.yml", True),
        (".github/actions", True),
        (".github/workflows-notes.md", False),
        ("docs/so.md", False),
        ("pycache/x.py", False),
    ],
)
def test_hook_files_at_any_depth(path: str, hook: bool) -> None:
    """The contract's hook file names count at any depth, in any case, and only those names."""
    assert is_hook_file(path) is hook


def changes_of(edit: Edit) -> list[tuple[str, str]]:
    (change,) = change_set(edit).files
    return runner_config_changes(change)


def test_hook_added_deleted_renamed_edited_all_count() -> None:
    """Adding, deleting, renaming (either side) or editing a hook file is a runner change."""
    body = b"import pytest\n"
    assert changes_of(added("tests/conftest.py", body)) == [("tests/conftest.py", "added")]
    assert changes_of(deleted("tests/conftest.py", body)) == [("tests/conftest.py", "removed")]
    assert changes_of(modified("tests/conftest.py", body, body + b"x = 1\n")) == [
        ("tests/conftest.py", "edited")
    ]
    assert changes_of(renamed("tests/conftest.py", "tests/helpers.py", body, body)) == [
        ("tests/conftest.py", "removed")
    ]
    assert changes_of(renamed("tests/helpers.py", "tests/conftest.py", body, body)) == [
        ("tests/conftest.py", "added")
    ]


def test_mode_only_change_of_a_hook_does_not_count() -> None:
    """A hook file whose bytes stay the same but whose mode changes is not a runner change."""
    body = b"import pytest\n"
    assert changes_of(modified("conftest.py", body, body, old_mode="100644", new_mode="100755")) == []


def test_hook_turned_into_symlink_counts() -> None:
    """A hook file replaced by a symlink (a type change) is an edit of the hook."""
    edit = modified("conftest.py", b"x = 1\n", b"other.py", old_mode="100644", new_mode="120000")
    assert changes_of(edit) == [("conftest.py", "edited")]


PYPROJECT = dedent(
    """
    [project]
    name = "x"

    [tool.pytest.ini_options]
    addopts = "-q"
    testpaths = ["tests"]

    [tool.coverage.run]
    branch = true

    [tool.black]
    line-length = 100
    """
)


@pytest.mark.parametrize(
    ("new", "tables"),
    [
        (PYPROJECT.replace('"-q"', '"-q -k not_slow"'), ["[tool.pytest]"]),
        (PYPROJECT.replace("branch = true", "branch = false"), ["[tool.coverage]"]),
        (PYPROJECT + '\n[tool.pytest]\nminversion = "9"\n', ["[tool.pytest]"]),  # native table added
        (PYPROJECT.replace('name = "x"', 'name = "y"'), []),  # another table
        (PYPROJECT.replace("line-length = 100", "line-length = 80"), []),
        (PYPROJECT.replace('addopts = "-q"', 'addopts = "-q"  # quiet'), []),  # a comment
        (PYPROJECT.replace('testpaths = ["tests"]', 'testpaths = [\n  "tests",\n]'), []),  # format
        (
            PYPROJECT.replace(
                'addopts = "-q"\ntestpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-q"'
            ),
            [],
        ),  # order
        (PYPROJECT.replace("[tool.coverage.run]\nbranch = true\n", ""), ["[tool.coverage]"]),  # removed
        (PYPROJECT + "\n[tool.pytest.x]\ny = 1\n", ["[tool.pytest]"]),  # any sub-table
        (PYPROJECT + "\n[tool.coverage.report]\nfail_under = 90\n", ["[tool.coverage]"]),
    ],
)
def test_pyproject_runner_tables_compare_parsed_values(new: str, tables: list[str]) -> None:
    """Only [tool.pytest*] and [tool.coverage*] count, as values: comments, format and order do not."""
    assert changed_tables("pyproject.toml", PYPROJECT.encode(), new.encode()) == tables


def test_pyproject_native_pytest_table_counts() -> None:
    """pytest 9's native [tool.pytest] table is a runner table too."""
    old = b'[tool.pytest]\nminversion = "9.0"\n'
    new = b'[tool.pytest]\nminversion = "9.0"\naddopts = ["-p", "no:randomly"]\n'
    assert changed_tables("pyproject.toml", old, new) == ["[tool.pytest]"]


def test_pyproject_added_or_deleted_with_tables_counts() -> None:
    """A pyproject.toml that appears or disappears with a runner table changes the runner set-up."""
    body = b'[tool.coverage.run]\nsource = ["src"]\n'
    assert changed_tables("pyproject.toml", None, body) == ["[tool.coverage]"]
    assert changed_tables("pyproject.toml", body, None) == ["[tool.coverage]"]
    assert changed_tables("pyproject.toml", None, b'[project]\nname = "x"\n') == []


def test_unparseable_side_counts_when_bytes_differ() -> None:
    """A side that cannot be parsed counts as changed when the bytes differ, and not when equal."""
    broken = b"[tool.pytest.ini_options\naddopts = 1\n"
    fine = b'[project]\nname = "x"\n'
    assert changed_tables("pyproject.toml", broken, broken + b"# c\n") == ["(unparseable file)"]
    assert changed_tables("pyproject.toml", fine, broken) == ["(unparseable file)"]
    assert changed_tables("pyproject.toml", broken, broken) == []
    assert changed_tables("pyproject.toml", b"\xff", b"\xfe") == ["(unparseable file)"]


SETUP_CFG = dedent(
    """
    [metadata]
    name = x

    [tool:pytest]
    addopts = -q
    testpaths = tests

    [coverage:run]
    branch = True

    [flake8]
    max-line-length = 100
    """
)


@pytest.mark.parametrize(
    ("new", "tables"),
    [
        (SETUP_CFG.replace("addopts = -q", "addopts = -q -x"), ["[tool:pytest]"]),
        (SETUP_CFG.replace("branch = True", "branch = False"), ["[coverage:run]"]),
        (SETUP_CFG + "\n[coverage:report]\nfail_under = 90\n", ["[coverage:report]"]),
        (SETUP_CFG.replace("name = x", "name = y"), []),
        (SETUP_CFG.replace("max-line-length = 100", "max-line-length = 80"), []),
        (SETUP_CFG.replace("addopts = -q", "# a comment\naddopts=-q"), []),
        (SETUP_CFG.replace("addopts = -q\ntestpaths = tests", "testpaths = tests\naddopts = -q"), []),
        (SETUP_CFG.replace("[tool:pytest]", "[tool:pytest]\naddopts = -x"), ["(unparseable file)"]),
    ],
)
def test_setup_cfg_runner_sections_compare_parsed_values(new: str, tables: list[str]) -> None:
    """Only [tool:pytest] and [coverage:*] count in setup.cfg, compared as parsed values."""
    assert changed_tables("setup.cfg", SETUP_CFG.encode(), new.encode()) == tables


def test_setup_cfg_default_section_is_not_inherited() -> None:
    """A [DEFAULT] section is not merged into [tool:pytest] (pytest's ini reader does not do that)."""
    old = SETUP_CFG.encode()
    assert changed_tables("setup.cfg", old, b"[DEFAULT]\nx = 1\n" + old) == []


def test_table_change_reported_through_file_change() -> None:
    """A pyproject edit in a change is reported with the tables that changed, at any depth."""
    new = PYPROJECT.replace('"-q"', '"-x"').encode()
    assert changes_of(modified("sub/pyproject.toml", PYPROJECT.encode(), new)) == [
        ("sub/pyproject.toml", "changes [tool.pytest]")
    ]
    assert changes_of(modified("README.md", b"a\n", b"b\n")) == []


def test_deeply_nested_pyproject_counts_as_unparseable_not_a_crash() -> None:
    """v2 hostile input: TOML nested past the parser's recursion limit is a side that cannot be parsed."""
    deep = b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    assert changed_tables("pyproject.toml", b"", deep) == ["(unparseable file)"]


def test_pytest11_entry_points_compared_as_values() -> None:
    """v2: PEP 621 and Poetry pytest11 entry points count; reformatting them does not."""
    old = b'[project.entry-points.pytest11]\nmine = "pkg.plugin"\n'
    same = b'[project]\nentry-points = { pytest11 = { mine = "pkg.plugin" } }\n'
    new = b'[project.entry-points.pytest11]\nmine = "pkg.evil"\n'
    poetry = b'[tool.poetry.plugins.pytest11]\nmine = "pkg.evil"\n'
    other = b'[project.entry-points.console_scripts]\nrun = "pkg:main"\n' + old
    assert changed_tables("pyproject.toml", old, same) == []
    assert changed_tables("pyproject.toml", old, other) == []
    assert changed_tables("pyproject.toml", old, new) == ["[project.entry-points.pytest11]"]
    assert changed_tables("pyproject.toml", b"", poetry) == ["[tool.poetry.plugins.pytest11]"]


def test_setup_cfg_pytest11_entry_point() -> None:
    """v2: setup.cfg's ``[options.entry_points]`` key pytest11 is compared line by line, spacing ignored."""
    old = b"[options.entry_points]\npytest11 =\n    mine = pkg.plugin\nconsole_scripts =\n    a = b:c\n"
    spaced = b"[options.entry_points]\npytest11 =\n    mine=pkg.plugin\nconsole_scripts =\n    a = b:d\n"
    evil = b"[options.entry_points]\npytest11 =\n    mine = pkg.plugin\n    evil = pkg.evil\n"
    assert changed_tables("setup.cfg", old, spaced) == []
    assert changed_tables("setup.cfg", old, evil) == ["[options.entry_points] pytest11"]


def test_added_pytest_plugins_line_in_any_python_file() -> None:
    """v2: an added line mentioning ``pytest_plugins`` in any .py file is a runner change."""
    body = b"import os\n"
    edit = modified("tests/test_a.py", body, body + b'pytest_plugins = ["evil"]\n')
    assert changes_of(edit) == [("tests/test_a.py", "line 2 adds pytest_plugins")]
    assert changes_of(modified("notes.txt", body, body + b"pytest_plugins\n")) == []
    assert changes_of(modified("src/a.py", body + b"pytest_plugins = []\n", body)) == []


def test_oversized_table_file_counts_as_changed() -> None:
    """v2: a pyproject.toml with a side over the blob cap is not parsed: it counts as changed."""
    (change,) = change_set(modified("pyproject.toml", b"[project]\n", b"[project]\nx = 1\n")).files
    big = replace(change, oversized=True, new_blob=None)
    assert runner_config_changes(big) == [
        ("pyproject.toml", "changes (a side larger than the blob cap, not parsed)")
    ]
