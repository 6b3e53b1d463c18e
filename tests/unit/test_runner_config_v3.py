"""Contract v3.3: test dependency declarations and the measurement machinery are runner configuration."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from oracle_gate.judge.measurement import GATE_IMPORT_PACKAGE, measurement_references, measuring_packages
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.runner_config import changed_tables, runner_config_changes
from oracle_gate.judge.test_dependencies import is_declaration_file, requirement_lines
from oracle_gate.judge.verdict import Evidence, evaluate
from tests.support.factories import added, change_set, dedent, deleted, evidence, judge, modified, renamed

ROOT = Path(__file__).resolve().parents[2]

# -- test dependency declarations ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "counts"),
    [
        ("requirements-test.txt", True),
        ("requirements_dev.txt", True),
        ("ci/Requirements-CI.TXT", True),
        ("test-requirements.in", True),
        ("dev-constraints.txt", True),
        ("requirements/test.txt", True),
        ("requirements/dev.in", True),
        ("a/b/requirements/ci-lock.txt", True),
        ("Requirements/TESTING.txt", True),
        ("requirements.txt", False),  # the runtime dependencies
        ("requirements-docs.txt", False),
        ("constraints.txt", False),
        ("requirements/base.txt", False),
        ("test-notes.txt", False),
        ("docs/testing.md", False),
    ],
)
def test_declaration_files_by_name(path: str, counts: bool) -> None:
    assert is_declaration_file(path) is counts


def test_a_new_pytest_plugin_in_requirements_test_is_runner_config_changed() -> None:
    """The issue's case: v2 judged it pass_clean."""
    old = b"pytest==8.3.4\n"
    v = judge(modified("requirements-test.txt", old, old + b"pytest-randomly==3.15.0\n"))
    assert (v.verdict, [str(c) for c in v.codes]) == ("fail", ["runner_config_changed"])
    assert v.reasons[0].path == "requirements-test.txt"


@pytest.mark.parametrize(
    "new",
    [
        "# pinned for CI\npytest==8.3.4\n",
        "pytest == 8.3.4   # comment\n",
        "\n\npytest==8.3.4\n\n",
        "b==1\npytest==8.3.4\n".replace("b==1\n", ""),
    ],
)
def test_requirements_compare_as_values_comments_and_formatting_do_not_count(new: str) -> None:
    assert (
        runner_config_changes(
            change_set(modified("requirements-dev.txt", b"pytest==8.3.4\n", new.encode())).files[0]
        )
        == []
    )


def test_requirement_order_does_not_count_but_a_continuation_is_one_requirement() -> None:
    assert requirement_lines(b"b==1\na==2\n") == requirement_lines(b"a==2\nb==1\n")
    assert requirement_lines(b"a==2 \\\n  --hash=sha256:00\n") == ["a==2--hash=sha256:00"]
    assert requirement_lines(b"\xff") is None


@pytest.mark.parametrize(
    "edit",
    [
        added("requirements/test.txt", b"pytest-xdist\n"),
        deleted("requirements/test.txt", b"pytest-xdist\n"),
        renamed("requirements-test.txt", "requirements-old.txt", b"pytest\n", b"pytest\n"),
        modified("requirements-ci.txt", b"\xff\n", b"\xfe\n"),  # not text: bytes differ
    ],
)
def test_declaration_files_added_deleted_renamed_or_unreadable_count(edit: object) -> None:
    change = change_set(edit).files[0]  # type: ignore[arg-type]
    assert runner_config_changes(change)


PYPROJECT = dedent(
    """
    [project]
    name = "x"
    dependencies = ["requests"]

    [project.optional-dependencies]
    test = ["pytest"]
    docs = ["sphinx"]

    [dependency-groups]
    dev = ["ruff"]
    lint = ["mypy"]

    [tool.poetry.group.test.dependencies]
    pytest = "^8"

    [tool.poetry.group.docs.dependencies]
    sphinx = "*"
    """
)


@pytest.mark.parametrize(
    ("old", "new", "tables"),
    [
        (
            'test = ["pytest"]',
            'test = ["pytest", "pytest-randomly"]',
            ["[project.optional-dependencies] test"],
        ),
        ('dev = ["ruff"]', 'dev = ["ruff", "pytest-cov"]', ["[dependency-groups] dev"]),
        ('pytest = "^8"', 'pytest = "^8"\npytest-mock = "*"', ["[tool.poetry.group.test]"]),
        ('test = ["pytest"]', 'Test_ = ["pytest"]\ntest = ["pytest"]', []),  # same list, another name
        ('test = ["pytest"]', 'test = [ "pytest" ]  # same value', []),
        ('docs = ["sphinx"]', 'docs = ["sphinx", "furo"]', []),  # not a test group
        ('lint = ["mypy"]', 'lint = ["mypy", "x"]', []),
        ('sphinx = "*"', 'sphinx = "7"', []),
        ('dependencies = ["requests"]', 'dependencies = ["requests", "pytest-randomly"]', []),
    ],
)
def test_pyproject_test_groups_compare_as_values(old: str, new: str, tables: list[str]) -> None:
    assert old in PYPROJECT
    after = PYPROJECT.replace(old, new)
    assert changed_tables("pyproject.toml", PYPROJECT.encode(), after.encode()) == tables


@pytest.mark.parametrize(
    ("extra", "table"),
    [
        ('[tool.poetry.dev-dependencies]\npytest = "*"\n', "[tool.poetry.dev-dependencies]"),
        ('[tool.hatch.envs.default]\ndependencies = ["pytest"]\n', "[tool.hatch.envs]"),
        ('[tool.hatch.envs.lint.scripts]\nx = "y"\n', "[tool.hatch.envs]"),
        ('[tool.pdm.dev-dependencies]\ntest = ["pytest"]\n', "[tool.pdm.dev-dependencies]"),
        ('[project.optional-dependencies]\nTESTING = ["x"]\n', "[project.optional-dependencies] TESTING"),
        ('[dependency-groups]\nci = ["x"]\n', "[dependency-groups] ci"),
    ],
)
def test_pyproject_dev_tables_added_count(extra: str, table: str) -> None:
    before = b'[project]\nname = "x"\n'
    assert changed_tables("pyproject.toml", before, before + b"\n" + extra.encode()) == [table]


def test_pipfile_dev_packages_count_and_packages_do_not() -> None:
    old = b'[packages]\nrequests = "*"\n\n[dev-packages]\npytest = "*"\n'
    dev = old.replace(b'pytest = "*"', b'pytest = "*"\npytest-randomly = "*"')
    runtime = old.replace(b'requests = "*"', b'requests = "*"\nidna = "*"')
    assert changed_tables("Pipfile", old, dev) == ["[dev-packages]"]
    assert changed_tables("Pipfile", old, runtime) == []
    assert runner_config_changes(change_set(modified("sub/Pipfile", old, dev)).files[0])


def test_protect_runner_config_false_lets_test_dependencies_change() -> None:
    v = judge(
        modified("requirements-test.txt", b"pytest\n", b"pytest\npytest-randomly\n"),
        policy=Policy(protect_runner_config=False),
    )
    assert "runner_config_changed" not in v.codes


# -- the measurement machinery ------------------------------------------------------------------------


def reaches(source: str, packages: tuple[str, ...] = measuring_packages()) -> list[tuple[int, str]]:
    blob = dedent(source).encode()
    return measurement_references(blob, range(1, blob.count(b"\n") + 2), packages)


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nsys.settrace(None)",
        "import sys\nsys.setprofile(None)",
        "import sys as s\nt = s.monitoring\nt.use_tool_id(3, 'x')",
        "from sys import monitoring",
        "from sys import settrace as st\nst(None)",
        "import threading\nthreading.settrace(f)",
        "import threading\nthreading.setprofile_all_threads(f)",
        "from threading import settrace_all_threads",
        "import coverage",
        "import coverage.control",
        "from coverage import Coverage\nCoverage.current()",
        "import pytest_cov.plugin",
        "c = __import__('coverage')",
        "import importlib\nimportlib.import_module('pytest_cov')",
        "import sys\ngetattr(sys, 'set' + 'trace')(None)",
        "import sys\ngetattr(sys, 'settrace')(None)",
        f"import {GATE_IMPORT_PACKAGE}.maps.inside.pytest_plugin",
        f"from {GATE_IMPORT_PACKAGE}.maps.inside import collector",
    ],
)
def test_references_to_the_measurement_machinery(source: str) -> None:
    assert reaches(source), source


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nprint(sys.argv)",
        "import threading\nthreading.Thread(target=f).start()",
        "def report(coverage):\n    return coverage.percent",  # a parameter, not the package
        "coverage = 0.9\nprint(coverage.real)",
        "base = make(coverage=coverage)\nbase.__dict__",  # a keyword named coverage binds nothing
        "coverage = compute()\ny = coverage\ny.total",
        "from .coverage import x",  # the project's own relative module
        "import sys\ngetattr(sys, 'frozen', False)",
    ],
)
def test_ordinary_code_does_not_reach_the_machinery(source: str) -> None:
    assert reaches(source) == [], source


def test_a_test_that_swaps_the_collectors_tracer_is_runner_config_changed() -> None:
    """The issue's hijack: a new test file, itself scored pass_clean on v2, replaces the recorder."""
    hijack = dedent(
        """
        import sys


        def test_innocent():
            sys.monitoring.register_callback(3, sys.monitoring.events.LINE, None)
        """
    ).encode()
    v = judge(added("tests/test_hijack.py", hijack))
    assert (v.verdict, [str(c) for c in v.codes]) == ("fail", ["runner_config_changed"])
    assert v.reasons[0].path == "tests/test_hijack.py"


def test_the_gates_own_package_is_the_projects_own_when_the_parent_has_it() -> None:
    source = f"import {GATE_IMPORT_PACKAGE}\n".encode()
    changes = change_set(added("tests/test_x.py", source))
    assert "runner_config_changed" in judge(added("tests/test_x.py", source)).codes
    own = ModuleIndex(frozenset({f"{GATE_IMPORT_PACKAGE}/__init__.py"}))
    v = evaluate(Evidence(**{**evidence(changes).__dict__, "modules": own}))
    assert "runner_config_changed" not in v.codes
    assert reaches(f"import {GATE_IMPORT_PACKAGE}", measuring_packages({GATE_IMPORT_PACKAGE})) == []
    assert reaches("import coverage", measuring_packages({GATE_IMPORT_PACKAGE})) != []


def test_the_gate_package_constant_is_the_top_module_of_the_pytest_plugin_entry_point() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    targets = pyproject["project"]["entry-points"]["pytest11"].values()
    assert {t.split(":")[0].split(".")[0] for t in targets} == {GATE_IMPORT_PACKAGE}


def test_a_file_that_does_not_parse_reaches_nothing() -> None:
    assert measurement_references(b"import sys\nsys.settrace(\n", [1, 2], measuring_packages()) == []
