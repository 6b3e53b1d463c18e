"""Nothing we publish tells a user to install the gate by a bare registry name.

An unrelated project publishes ``oracle-gate`` on PyPI, in the same problem area: ``pip install
oracle-gate``, ``pipx run oracle-gate`` or ``uvx oracle-gate`` would run someone else's code in the
very job meant to protect the repository. Our own distribution name (``pr-oracle-gate``) is no
better installed bare: until we publish it, anyone may. So every install line in the README, the
docs and the example workflows names a URL (a release's wheel) or ``NAME @ git+...@<commit>``.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUR_NAMES = re.compile(r"^(?:pr[-_.])?oracle[-_.]gate(?:\[[^\]]*\])?(?:[=<>~!].*)?$", re.IGNORECASE)
INSTALLERS = re.compile(
    r"(?:\bpip3?\s+install|\bpip3?\s+download|\bpipx\s+(?:install|run)|\buvx|\buv\s+tool\s+(?:install|run)"
    r"|\buv\s+pip\s+install|\buv\s+add|\bpoetry\s+add)\b(?P<args>.*)"
)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*"))]


def bare_installs(text: str) -> list[str]:
    """The install lines of ``text`` that name one of our names without a URL or a pinned commit."""
    found = []
    for line in text.splitlines():
        for match in INSTALLERS.finditer(line):
            try:
                words = shlex.split(match["args"].replace("`", " "), comments=True)
            except ValueError:
                words = match["args"].split()
            if any(OUR_NAMES.match(word) for word in words):
                found.append(line.strip())
    return found


@pytest.mark.parametrize(
    "line",
    [
        "pip install oracle-gate",
        "  python -m pip install -q oracle-gate==0.1.0",
        "pipx run oracle-gate check --base A --head B",
        "uvx oracle-gate demo",
        "run: uv tool install 'oracle_gate[test]'",
        "pip install pr-oracle-gate",
        "Run `pip install Oracle-Gate` first",
    ],
)
def test_a_bare_install_line_is_found(line: str) -> None:
    assert bare_installs(line) == [line.strip()]


@pytest.mark.parametrize(
    "line",
    [
        'python -m pip install "pr-oracle-gate @ git+https://github.com/oracle-gate/oracle-gate@$REF"',
        'pip install "https://github.com/oracle-gate/oracle-gate/releases/download/v1/pr_oracle_gate-1-py3-none-any.whl"',
        "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/oracle-gate demo",
        "pip install -r requirements-test.txt",
    ],
)
def test_a_pinned_install_line_is_not_found(line: str) -> None:
    assert bare_installs(line) == []


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_document_installs_a_bare_name(path: Path) -> None:
    assert bare_installs(path.read_text(encoding="utf-8")) == []


def test_the_distribution_is_not_the_name_someone_else_publishes() -> None:
    """Seen on main: ``name = "oracle-gate"``, the name of an unrelated PyPI project."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "pr-oracle-gate"
    assert project["scripts"]["oracle-gate"] == "oracle_gate.cli:main"


DIRECT_REFERENCE = re.compile(
    r"""["'`]?(?P<name>[A-Za-z0-9][\w.-]*)\s*@\s*(?:git\+)?https://github\.com/oracle-gate/"""
)


def direct_references(text: str) -> list[str]:
    """The distribution names of ``NAME @ git+https://github.com/oracle-gate/...`` specs in ``text``."""
    return [m["name"] for m in DIRECT_REFERENCE.finditer(text)]


def test_a_direct_reference_is_found_with_its_name() -> None:
    line = 'pip install "oracle-gate @ git+https://github.com/oracle-gate/oracle-gate@$REF" x'
    assert direct_references(line) == ["oracle-gate"]
    assert direct_references("uses: oracle-gate/oracle-gate@abc # v1") == []


@pytest.mark.parametrize(
    "path",
    [*documents(), *sorted((ROOT / "gate" / "adopt" / "workflows").glob("*.yml"))],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_every_direct_reference_names_the_distribution_pyproject_defines(path: Path) -> None:
    """Seen on main: the score workflows installed ``"oracle-gate @ git+..."``; the distribution is
    ``pr-oracle-gate``, so pip refused the URL and ``/score`` never completed."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = direct_references(path.read_text(encoding="utf-8"))
    assert [name for name in names if name != project["name"]] == []
