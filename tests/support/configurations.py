"""Generated projects, one per pytest configuration real projects commit (issue 28), and the commands a
maintainer runs on each: the configuration matrix of ``tests/integration/test_real_configurations.py``
and ``docs/configurations.md``.

Every project is the same small one, so that a difference in outcome is the configuration's: a module
``calc`` (``add``, with a doctest, and ``double``), ``tests/test_calc.py`` (``test_add``, live, and
``test_double``, which ``freeze add`` freezes), in a flat layout (``calc.py``) or a src layout
(``src/calc/__init__.py``). A configuration adds or replaces files and may give the ``map`` command
(after ``--``) and ``map`` options. The head of every pull request edits ``add``'s body, which only
``test_add`` (and ``add``'s doctest) observe: ``check`` says ``pass_clean``.

``expected`` names, per command, what the matrix must see: ``"works"``, or a piece of the one line the
command refuses with. Anything not named works.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COMMANDS = (
    "freeze add",
    "freeze list",
    "freeze add 3.12",
    "freeze list 3.12",
    "map 3.11",
    "map 3.12",
    "check",
    "surface",
    "score",
    "freeze remove",
    "init",
    "doctor",
)
WORKS = "works"

CALC = '''def add(a, b):
    """The sum.

    >>> add(1, 2)
    3
    """
    return a + b


def double(x):
    return x * 2
'''
TESTS = """from calc import add, double


def test_add():
    assert add(1, 2) == 3


def test_double():
    assert double(2) == 4
"""
FROZEN = "tests/test_calc.py::test_double"
LIVE = "tests/test_calc.py::test_add"
UNITTEST = """import unittest

from calc import add, double


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)

    def test_double(self):
        self.assertEqual(double(2), 4)
"""
HYPOTHESIS = """from hypothesis import given, settings, strategies as st

from calc import add, double


@settings(max_examples=5, database=None)
@given(st.integers())
def test_add(n):
    assert add(n, 0) == n


def test_double():
    assert double(2) == 4
"""
SUB_CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n"
SUB_TEST = "from calc import double\n\n\ndef test_sub(two):\n    assert double(two) == 4\n"
STRICT_TESTS = TESTS.replace("def test_double", "import pytest\n\n\n@pytest.mark.slow\ndef test_double")
BENCH = "import pytest_benchmark_absent_here\n\n\ndef test_speed():\n    pass\n"
VERSIONED_CALC = "from calc._version import version\n\n" + CALC
BUILT_ONCE = "        _TABLE.extend(range(10))\n"
LAZY_CALC = (
    CALC
    + """

_TABLE = []


def table():
    if not _TABLE:
"""
    + BUILT_ONCE
    + """    return _TABLE
"""
)
LAZY_TESTS = (
    TESTS.replace("import add, double", "import add, double, table")
    .replace("    assert add", "    assert table()[3] == 3\n    assert add")
    .replace("    assert double", "    assert table()[2] == 2\n    assert double")
)


def ini(addopts: str = "", *, section: str = "[pytest]", testpaths: str = "tests", extra: str = "") -> str:
    lines = [section]
    if addopts:
        lines.append(f"addopts = {addopts}")
    if testpaths:
        lines.append(f"testpaths = {testpaths}")
    return "\n".join(lines) + "\n" + extra


@dataclass(frozen=True)
class Configuration:
    """One configuration: the files it adds, the map command and options it needs, what it expects."""

    name: str
    files: dict[str, str] = field(default_factory=dict)
    src: bool = False
    command: tuple[str, ...] = ()  # the map command after ``--`` (empty: the default)
    map_options: tuple[str, ...] = ()
    ignored: dict[str, str] = field(default_factory=dict)  # git-ignored files the build writes
    tests: dict[str, str] = field(default_factory=dict)  # replaces tests/test_calc.py and adds tests
    live: str = LIVE
    frozen: str = FROZEN
    expected: dict[str, str] = field(default_factory=dict)
    note: str = ""
    # A line of calc only the first test to ask runs: the map must give it to the live test, the first
    # in the project's order (tests/test_calc.py's), whatever a plugin would reorder.
    built_once: str = ""
    # A plugin the suite's venv must not have (``requirements/<name>.txt``): the commands run in venvs
    # that have it (tests/support/randomly.py).
    plugin: str = ""
    # A command that gives a wrong answer today, and why (the test xfails it, and fails once it works).
    known_bugs: dict[str, str] = field(default_factory=dict)

    def outcome(self, command: str) -> str:
        return self.expected.get(command, WORKS)


PYPROJECT = '[project]\nname = "calc"\nversion = "0"\n'
CONFIGURATIONS = (
    Configuration("addopts -q", {"pytest.ini": ini("-q")}),
    Configuration("addopts -ra -q", {"pytest.ini": ini("-ra -q")}),
    Configuration("addopts -qq", {"pytest.ini": ini("-qq")}),
    Configuration("addopts -v", {"pytest.ini": ini("-v")}),
    Configuration(
        "pytest-cov in addopts",
        {"pytest.ini": ini("-ra -q --cov=calc --cov-report=term-missing")},
        note="3.12+: the collector measures, pytest-cov beside it writes elsewhere; 3.11: coverage.py "
        "measures (one line says why)",
    ),
    Configuration(
        "pytest-cov with --cov-context=test in addopts",
        {"pytest.ini": ini("--cov=calc --cov-context=test --cov-report=")},
    ),
    Configuration(
        "--no-cov in the user's command",
        {"pytest.ini": ini("--cov=calc --cov-report=term")},
        command=("python", "-m", "pytest", "-q", "--no-cov"),
    ),
    Configuration("-p no:cacheprovider in addopts", {"pytest.ini": ini("-p no:cacheprovider -q")}),
    Configuration(
        "--strict-markers",
        {"pytest.ini": ini("--strict-markers", extra="markers =\n    slow: a slow test\n")},
        tests={"tests/test_calc.py": STRICT_TESTS},
    ),
    Configuration(
        "--doctest-modules",
        {"pytest.ini": ini("--doctest-modules", testpaths="calc.py tests")},
    ),
    Configuration(
        "--import-mode=importlib", {"pytest.ini": ini("--import-mode=importlib", extra="pythonpath = .\n")}
    ),
    Configuration(
        "-n auto (pytest-xdist) in addopts",
        {"pytest.ini": ini("-n auto")},
    ),
    Configuration(".pytest.ini", {".pytest.ini": ini("-ra -q")}),
    Configuration("tox.ini [pytest]", {"tox.ini": "[tox]\nenvlist = py\n\n" + ini("-ra -q")}),
    Configuration("setup.cfg [tool:pytest]", {"setup.cfg": ini("-ra -q", section="[tool:pytest]")}),
    Configuration(
        "pyproject [tool.pytest.ini_options]",
        {
            "pyproject.toml": PYPROJECT
            + '\n[tool.pytest.ini_options]\naddopts = "-ra -q"\ntestpaths = ["tests"]\n'
        },
    ),
    Configuration(
        "pyproject [tool.pytest] (pytest 9)",
        {"pyproject.toml": PYPROJECT + '\n[tool.pytest]\naddopts = ["-ra", "-q"]\ntestpaths = ["tests"]\n'},
    ),
    Configuration(
        "no testpaths",
        {"pyproject.toml": PYPROJECT, "benchmarks/test_speed.py": BENCH},
        note="the default runs tests/ and says so; pytest alone would collect benchmarks/ too",
    ),
    Configuration(
        "rootdir set by -c",
        {"ci/pytest.ini": ini("-ra -q")},
        command=("python", "-m", "pytest", "-c", "ci/pytest.ini", "--rootdir=."),
    ),
    Configuration("src layout", {"pyproject.toml": PYPROJECT}, src=True),
    Configuration(
        "conftest.py in a subdirectory",
        {"pytest.ini": ini("-q")},
        tests={"tests/sub/conftest.py": SUB_CONFTEST, "tests/sub/test_sub.py": SUB_TEST},
    ),
    Configuration(
        "setuptools-scm/hatch-vcs version file",
        {
            "pyproject.toml": PYPROJECT + '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            ".gitignore": "src/calc/_version.py\n",
            "src/calc/__init__.py": VERSIONED_CALC,
        },
        src=True,
        map_options=("--copy-ignored", "src/calc/_version.py"),
        ignored={"src/calc/_version.py": "version = '1.0'\n"},
        note="map and score need --copy-ignored src/calc/_version.py (without it: one line naming it)",
    ),
    Configuration(
        "unittest-style suite",
        {"pytest.ini": ini("-q")},
        tests={"tests/test_calc.py": UNITTEST},
        live="tests/test_calc.py::TestCalc::test_add",
        frozen="tests/test_calc.py::TestCalc::test_double",
    ),
    Configuration("hypothesis", {"pytest.ini": ini("-q")}, tests={"tests/test_calc.py": HYPOTHESIS}),
    Configuration(
        "-p randomly (pytest-randomly) in addopts",
        {"pytest.ini": ini("-p randomly -q"), "calc.py": LAZY_CALC},
        tests={"tests/test_calc.py": LAZY_TESTS},
        built_once=BUILT_ONCE,
        plugin="randomly",
        note="every pytest run of the gate passes -p no:randomly, and map and score say so in one line",
    ),
    Configuration(
        "pytest-randomly installed, --randomly-seed in addopts",
        {"pytest.ini": ini("--randomly-seed=12345 -q"), "calc.py": LAZY_CALC},
        tests={"tests/test_calc.py": LAZY_TESTS},
        built_once=BUILT_ONCE,
        plugin="randomly",
        note="randomly loads itself; the gate's -p randomly -p no:randomly keeps its options parsing",
    ),
)
