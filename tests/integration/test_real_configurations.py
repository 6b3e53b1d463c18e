"""The configuration matrix (issue 28): a generated project per pytest configuration real projects commit
(:mod:`tests.support.configurations`), each through every command a maintainer runs: ``freeze add``,
``freeze list`` (on the suite's interpreter and on 3.12), ``map`` on 3.11 (the ``settrace`` collector,
or coverage.py) and on 3.12 (the ``sys.monitoring`` collector), ``check``, ``surface``, ``score``,
``freeze remove``, ``init`` and ``doctor`` (against the fake GitHub, after init's manual steps).

What each must do is written in the configuration (``expected``; everything else works), and in
``docs/configurations.md``, whose table this test reads back: the page and the matrix cannot drift
apart. A command that works must also be right: ``freeze add`` writes the test asked for, ``freeze
list`` says it exists, both maps ran the same tests and record the same lines per test (a wrong map is
worse than none), ``check`` says ``pass_clean`` for a change only a live test observes, ``score``
agrees, and ``doctor`` finds nothing missing.

Cost: about a dozen pytest processes per configuration (four collections, two maps, the two scoring runs);
the 3.12 venv is built once per session (:mod:`tests.support.py312`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import pytest

from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import github_fake_factory_fixture, github_fake_fixture  # noqa: F401
from tests.integration.test_collector import contexts_of
from tests.support.adoption import REPO, SLUG, do_the_manual_steps, missing_lines
from tests.support.configurations import (
    CALC,
    COMMANDS,
    CONFIGURATIONS,
    TESTS,
    WORKS,
    Configuration,
)
from tests.support.in_process import run_cli
from tests.support.py312 import python312, venv312
from tests.support.randomly import require_randomly_venvs
from tests.support.repo import Repo, clean_env

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configurations.md"


@pytest.fixture(scope="module")
def python_312() -> Path | None:
    if python312() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("python3.12 is absent, and CI=true: the matrix must map on 3.12 in CI")
        return None
    return venv312()


def build(config: Configuration, root: Path) -> Repo:
    """The project of ``config``, committed (the parent before the freeze)."""
    repo = Repo(root)
    module = "src/calc/__init__.py" if config.src else "calc.py"
    files = {module: CALC, "tests/test_calc.py": TESTS, **config.tests, **config.files}
    for rel, text in files.items():
        repo.write(rel, text)
    repo.commit(config.name)
    for rel, text in config.ignored.items():
        repo.write(rel, text)  # as the build (pip install -e .) writes it in the checkout
    return repo


def outcome(done: subprocess.CompletedProcess[str], ok: tuple[int, ...] = (0,)) -> str:
    """``works``, or the one line the command refused with."""
    if done.returncode in ok:
        return WORKS
    lines = [line for line in done.stderr.splitlines() if "error" in line or "no map" in line]
    return f"refuses ({done.returncode}): {(lines or done.stderr.splitlines() or ['(nothing)'])[-1]}"


class Cli(Protocol):
    def __call__(
        self, *args: str, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]: ...


def cli_of(python: Path | None) -> Cli:
    """``oracle-gate`` in this process; or, for a configuration with a plugin the suite's venv must not
    have, run by ``python`` (a venv that has it)."""
    if python is None:
        return run_cli

    def run(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        argv = [str(python), "-m", "oracle_gate", *args]
        env = env if env is not None else clean_env()
        return subprocess.run(argv, env=env, capture_output=True, text=True, check=False)

    return run


def map_args(repo: Repo, config: Configuration, out: Path) -> list[str]:
    args = ["map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(out), *config.map_options]
    return [*args, "--", *config.command] if config.command else args


def exercise(
    config: Configuration,
    tmp_path: Path,
    python_312: Path | None,
    github: FakeGitHub,
    python: Path | None = None,
) -> dict[str, str]:
    """Every command on the project of ``config`` (run by ``python``, else in this process); per
    command, what happened."""
    run_cli = cli_of(python)
    repo = build(config, tmp_path / "repo")
    seen: dict[str, str] = {}
    cli = ("--repo", str(repo.root))

    if python_312 is not None:
        seen.update(freeze_on_312(config, repo, python_312))
    added = run_cli("freeze", "add", config.frozen, "--reason", "flaky", *cli)
    seen["freeze add"] = outcome(added)
    if added.returncode == 0:
        frozen = json.loads(repo.read("freeze.json"))["frozen"]
        assert [e["nodeid"] for e in frozen] == [config.frozen]
    parent = repo.commit("freeze")

    listed = run_cli("freeze", "list", "--format", "json", *cli)
    seen["freeze list"] = outcome(listed)
    if listed.returncode == 0 and added.returncode == 0:
        assert [(r["nodeid"], r["exists"]) for r in json.loads(listed.stdout)] == [(config.frozen, True)]

    map311 = tmp_path / "map311.coverage"
    made = run_cli(*map_args(repo, config, map311), env=clean_env())
    seen["map 3.11"] = outcome(made)
    if python_312 is not None:
        map312 = tmp_path / "map312.coverage"
        argv = [str(python_312), "-m", "oracle_gate", *map_args(repo, config, map312)]
        made312 = subprocess.run(argv, env=clean_env(), capture_output=True, text=True, check=False)
        seen["map 3.12"] = outcome(made312)
        if made.returncode == 0 and made312.returncode == 0:
            assert_same_map(map311, map312, repo, config)
        if made312.returncode == 0:
            assert_the_projects_order(map312, repo, config)
            assert_said_switched_off(made312, config)
    if made.returncode == 0:
        assert_a_true_map(map311, config)
        assert_the_projects_order(map311, repo, config)
        assert_said_switched_off(made, config)

    module = "src/calc/__init__.py" if config.src else "calc.py"
    repo.write(module, repo.read(module).replace("    return a + b\n", "    return b + a\n"))
    head = repo.commit("head: add's body, which only live tests observe")
    judged = ["--base", parent, "--head", head, "--coverage", str(map311)]
    checked = run_cli("check", *cli, *judged, "--format", "json")
    seen["check"] = outcome(checked)
    if checked.returncode == 0:
        assert json.loads(checked.stdout)["verdict"] == "pass_clean"
    seen["surface"] = outcome(run_cli("surface", "--coverage", str(map311), *cli, "--format", "json"))
    copies = [arg for rel in config.ignored for arg in ("--copy-ignored", rel)]
    scoring = ["score", *cli, *judged, "--score-json", str(tmp_path / "score.json"), "--format", "json"]
    scored = run_cli(*scoring, *copies)
    seen["score"] = outcome(scored)
    assert_said_switched_off(scored, config)
    if scored.returncode == 0:
        assert json.loads(scored.stdout)["score"] == "pass_clean"
    if config.ignored:
        assert_refused_naming_copy_ignored(repo, config, tmp_path, scoring)
    seen["freeze remove"] = outcome(run_cli("freeze", "remove", config.frozen, *cli))
    seen["init"] = outcome(
        run_cli(
            "init", "--repo", str(repo.root), "--app-slug", SLUG, "--ref", "0123456789abcdef" * 2 + "01234567"
        )
    )
    seen["doctor"] = doctor_after_the_manual_steps(run_cli, repo, github)
    return seen


def freeze_on_312(config: Configuration, repo: Repo, python_312: Path) -> dict[str, str]:
    """``freeze add`` and ``freeze list`` by 3.12's pytest (its own collection), then undone: the entry
    the suite's interpreter writes next is the one the pull request's parent carries."""
    run = cli_of(python_312)
    cli = ("--repo", str(repo.root))
    added = run("freeze", "add", config.frozen, "--reason", "flaky", *cli)
    seen = {"freeze add 3.12": outcome(added)}
    if added.returncode != 0:
        return seen
    frozen = json.loads(repo.read("freeze.json"))["frozen"]
    assert [e["nodeid"] for e in frozen] == [config.frozen]
    listed = run("freeze", "list", "--format", "json", *cli)
    seen["freeze list 3.12"] = outcome(listed)
    if listed.returncode == 0:
        assert [(r["nodeid"], r["exists"]) for r in json.loads(listed.stdout)] == [(config.frozen, True)]
    (repo.root / "freeze.json").unlink()
    return seen


def doctor_after_the_manual_steps(run_cli: Cli, repo: Repo, github: FakeGitHub) -> str:
    """``doctor`` on the project ``init`` set up, once the manual steps are done on the fake GitHub: it
    re-derives the workflows from this configuration's checkout and parses its policy and freeze, so
    nothing may be missing."""
    github.add_repo(REPO)
    do_the_manual_steps(github, repo)
    env = clean_env(GITHUB_TOKEN=github.token, **github.env())
    done = run_cli("doctor", "--dir", str(repo.root), "--repo", REPO, env=env)
    if done.returncode == 0 and done.stdout.rstrip().endswith("Nothing is missing."):
        return WORKS
    return f"refuses ({done.returncode}): missing {missing_lines(done.stdout)} {done.stderr.strip()}"


def assert_refused_naming_copy_ignored(
    repo: Repo, config: Configuration, tmp_path: Path, scoring: list[str]
) -> None:
    """Without ``--copy-ignored`` the build-written file is missing where the tests run: ``map`` and
    ``score`` refuse in one line naming the file and the option (``score`` said ``fail``:
    ``live_test_missing``, blaming an honest change)."""
    (rel,) = config.ignored
    plain = Configuration(config.name, map_options=())
    for done in (
        run_cli(*map_args(repo, plain, tmp_path / "without.coverage"), env=clean_env()),
        run_cli(*scoring),
    ):
        assert done.returncode == 3, done.stderr
        errors = [
            line for line in done.stderr.splitlines() if line.startswith("oracle-gate") and "error" in line
        ]
        assert len(errors) == 1, done.stderr
        assert errors[0].endswith(f"pass --copy-ignored {rel}")


def assert_a_true_map(data: Path, config: Configuration) -> None:
    manifest = json.loads(data.with_name(data.name + ".manifest.json").read_text())
    assert manifest["tests_passed"] is True
    assert config.live in manifest["tests_ran"]
    assert config.frozen in manifest["tests_ran"]
    assert manifest["frozen"]["ran"] == [config.frozen]


def assert_the_projects_order(data: Path, repo: Repo, config: Configuration) -> None:
    """The line only the first test to run executes is the live test's, the first in the project's
    order: the map did not follow a plugin's shuffle (a map that does differs from run to run)."""
    if not config.built_once:
        return
    module = "src/calc/__init__.py" if config.src else "calc.py"
    line = repo.read(module).splitlines().index(config.built_once.rstrip("\n")) + 1
    contexts = contexts_of([data], repo.root)
    observers = {c.split("|")[0] for c, files in contexts.items() if line in files.get(module, set())}
    assert observers == {config.live}, f"{data.name}: {module}:{line} observed by {sorted(observers)}"


def assert_said_switched_off(done: subprocess.CompletedProcess[str], config: Configuration) -> None:
    """A command that ran pytest with pytest-randomly installed says, in one line, that it is off."""
    if config.plugin == "randomly":
        said = [line for line in done.stderr.splitlines() if "pytest-randomly is installed" in line]
        assert len(said) == 1, done.stderr


def assert_same_map(map311: Path, map312: Path, repo: Repo, config: Configuration) -> None:
    """Both interpreters' maps: the same tests, the same lines per test (teardowns under xdist are the
    schedule's)."""
    first, second = (json.loads(p.with_name(p.name + ".manifest.json").read_text()) for p in (map311, map312))
    assert first["tests_ran"] == second["tests_ran"]
    xdist = "-n" in " ".join(config.files.values())
    lines = []
    for path in (map311, map312):
        contexts = contexts_of([path], repo.root)
        lines.append({c: v for c, v in contexts.items() if not (xdist and c.endswith("|teardown"))})
    assert lines[0] == lines[1]


@pytest.mark.parametrize("config", CONFIGURATIONS, ids=[c.name for c in CONFIGURATIONS])
def test_every_command_on_the_configuration(
    config: Configuration, tmp_path: Path, python_312: Path | None, github_fake: FakeGitHub
) -> None:
    python = None
    if config.plugin == "randomly":
        python, python_312 = require_randomly_venvs(with_312=python_312 is not None)
    seen = exercise(config, tmp_path, python_312, github_fake, python)

    for command in COMMANDS:
        if command not in seen or command in config.known_bugs:
            continue  # map 3.12 without python3.12 (outside CI); a known bug: below
        expected = config.outcome(command)
        if expected == WORKS:
            assert seen[command] == WORKS, f"{command}: {seen[command]}"
        else:
            assert seen[command].startswith("refuses"), f"{command}: {seen[command]}"
            assert expected in seen[command], f"{command}: {seen[command]}"
    for command, bug in config.known_bugs.items():
        assert seen[command] != WORKS, f"{command} works now: remove the known bug ({bug})"
        pytest.xfail(f"{command}: {bug}")


def test_the_docs_table_is_the_matrix() -> None:
    """``docs/configurations.md`` has one row per configuration, saying what the matrix expects."""
    rows = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            line.startswith("|")
            and len(cells) == len(COMMANDS) + 1
            and cells[0] not in ("configuration", "", "---")
        ):
            rows[cells[0].strip("`")] = cells[1:]
    assert set(rows) == {c.name for c in CONFIGURATIONS}
    for config in CONFIGURATIONS:
        for command, cell in zip(COMMANDS, rows[config.name], strict=True):
            if command in config.known_bugs:
                assert cell.startswith("BUG"), (config.name, command, cell)
                continue
            expected = config.outcome(command)
            assert (
                (cell == "works") if expected == WORKS else (cell.startswith("refuses") and expected in cell)
            ), (
                config.name,
                command,
                cell,
            )
        assert not re.search(r"\bTODO\b", " ".join(rows[config.name]))
