"""Red team of contract v3.3/v3.8 test dependency declarations: a test group is compared with what
it takes in. Each "counts" case was judged unchanged before the fix."""

from __future__ import annotations

import pytest

from tests.support.factories import judge, modified
from tests.unit.test_contract_v38 import codes

PYPROJECT = """\
[project]
name = "My_Pkg"
version = "1"

[project.optional-dependencies]
test = ["my-pkg[plugins]", "pytest"]
plugins = ["pytest-cov"]
docs = ["sphinx"]

[dependency-groups]
dev = [{include-group = "lint"}, {include-group = "loop"}, "pytest"]
lint = ["ruff", {include-group = "deeper"}]
deeper = ["mypy"]
loop = [{include-group = "loop"}]
"""

SETUP_CFG = """\
[metadata]
name = my.pkg

[options.extras_require]
test =
    My-Pkg[plugins]
    pytest
plugins = pytest-cov
docs = sphinx
"""

COUNTS = {
    "an extra the test extra takes in (the project's own)": (
        "pyproject.toml",
        PYPROJECT,
        ('plugins = ["pytest-cov"]', 'plugins = ["pytest-cov", "pytest-randomly"]'),
    ),
    "a group the dev group includes": (
        "pyproject.toml",
        PYPROJECT,
        ('lint = ["ruff"', 'lint = ["ruff", "pytest-randomly"'),
    ),
    "a group included through another": (
        "pyproject.toml",
        PYPROJECT,
        ('deeper = ["mypy"]', 'deeper = ["x"]'),
    ),
    "a setup.cfg extra the test extra takes in": (
        "setup.cfg",
        SETUP_CFG,
        ("plugins = pytest-cov", "plugins = pytest-cov\n    pytest-randomly"),
    ),
}

UNCOUNTED = {
    "an extra nothing takes in": (
        "pyproject.toml",
        PYPROJECT,
        ('docs = ["sphinx"]', 'docs = ["sphinx", "furo"]'),
    ),
    "a version, with a test group in a cycle of includes": (
        "pyproject.toml",
        PYPROJECT,
        ('version = "1"', 'version = "2"'),
    ),
    "a setup.cfg extra nothing takes in": ("setup.cfg", SETUP_CFG, ("docs = sphinx", "docs = sphinx furo")),
}


@pytest.mark.parametrize(("path", "parent", "change"), COUNTS.values(), ids=COUNTS.keys())
def test_what_a_test_group_takes_in_is_runner_config(path: str, parent: str, change: tuple[str, str]) -> None:
    head = parent.replace(*change)
    assert head != parent
    assert "runner_config_changed" in codes(judge(modified(path, parent.encode(), head.encode())))


@pytest.mark.parametrize(("path", "parent", "change"), UNCOUNTED.values(), ids=UNCOUNTED.keys())
def test_what_no_test_group_takes_in_is_not(path: str, parent: str, change: tuple[str, str]) -> None:
    head = parent.replace(*change)
    assert head != parent
    assert "runner_config_changed" not in codes(judge(modified(path, parent.encode(), head.encode())))
