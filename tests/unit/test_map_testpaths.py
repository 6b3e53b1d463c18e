"""Which configuration file pytest reads at the top of a repository, and whether it names testpaths
(:mod:`oracle_gate.maps.testpaths`: the default ``map`` command's choice without them, issue 28)."""

from __future__ import annotations

import pytest

from oracle_gate.maps.testpaths import pytest_table


@pytest.mark.parametrize(
    ("files", "chosen", "testpaths"),
    [
        ({}, None, None),
        ({"pytest.ini": b""}, "pytest.ini", None),  # pytest.ini counts even when empty
        ({".pytest.ini": b"[pytest]\ntestpaths = t\n"}, ".pytest.ini", "t"),
        ({"pytest.toml": b'[pytest]\ntestpaths = ["t"]\n'}, "pytest.toml", ["t"]),
        (
            {"pyproject.toml": b"[project]\nname = 'x'\n", "tox.ini": b"[pytest]\ntestpaths = a\n"},
            "tox.ini",
            "a",
        ),
        ({"pyproject.toml": b'[tool.pytest.ini_options]\ntestpaths = ["a"]\n'}, "pyproject.toml", ["a"]),
        ({"pyproject.toml": b'[tool.pytest]\ntestpaths = ["b"]\n'}, "pyproject.toml", ["b"]),
        ({"pyproject.toml": b"[tool.pytest.ini_options]\naddopts = '-q'\n"}, "pyproject.toml", None),
        (
            {"tox.ini": b"[tox]\nenvlist = py\n", "setup.cfg": b"[tool:pytest]\ntestpaths = s\n"},
            "setup.cfg",
            "s",
        ),
        ({"setup.cfg": b"[metadata]\nname = x\n"}, None, None),
        ({"pytest.ini": b"[pytest]\n", "setup.cfg": b"[tool:pytest]\ntestpaths = s\n"}, "pytest.ini", None),
    ],
)
def test_the_file_pytest_reads_and_its_testpaths(
    files: dict[str, bytes], chosen: str | None, testpaths: object
) -> None:
    found = pytest_table(files)
    if chosen is None:
        assert found is None
        return
    assert found is not None
    assert found[0] == chosen
    assert found[1].get("testpaths") == testpaths


def test_an_unreadable_file_pytest_always_reads_still_wins() -> None:
    assert pytest_table({"pytest.ini": b"\xff\xfe", "setup.cfg": b"[tool:pytest]\ntestpaths = s\n"}) == (
        "pytest.ini",
        {},
    )
