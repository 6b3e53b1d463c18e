"""bench/history_sweep.py on a small real history: it judges each first-parent commit with the gate's
own judging and counts what stops, per reason code and path pattern (issue 28)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.repo import Repo, clean_env

ROOT = Path(__file__).resolve().parents[2]
SETUP = 'from setuptools import setup\n\nsetup(name="pkg", version="{}")\n'
CONF = 'project = "pkg"\n'


def history(root: Path) -> tuple[Repo, dict[str, str]]:
    repo = Repo(root)
    repo.write("pkg/__init__.py", "X = 1\n")
    repo.write("setup.py", SETUP.format("1.0"))
    repo.write("docs/conf.py", CONF)
    repo.commit("start")
    commits = {}
    repo.write("setup.py", SETUP.format("1.1"))
    commits["release"] = repo.commit("release 1.1: only version= changes")
    repo.write(".github/workflows/ci.yml", "on: push\n")
    commits["workflow"] = repo.commit("ci")
    repo.write("requirements.txt", "requests\npytest-randomly\n")
    commits["plugin"] = repo.commit("a plugin in requirements.txt")
    repo.write("docs/conf.py", CONF + "for line in open('../pkg/__init__.py'):\n    exec(line)\n")
    commits["docs exec"] = repo.commit("docs read the version with exec")
    repo.write("pkg/__init__.py", "X = 2\n")
    commits["honest"] = repo.commit("an ordinary change")
    return repo, commits


def sweep(repo: Repo, tmp: Path, *options: str) -> tuple[str, dict[str, object]]:
    out = tmp / "sweep.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "history_sweep.py"),
            str(repo.root),
            "--json",
            str(out),
            *options,
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=True,
    )
    return proc.stdout, json.loads(out.read_text())


def stopped(doc: dict[str, object], code: str) -> set[str]:
    by_code = doc["by_code"]
    assert isinstance(by_code, dict)
    return set(by_code.get(code, []))


def test_the_sweep_counts_each_commit_by_what_stops_it(tmp_path: Path) -> None:
    repo, commits = history(tmp_path / "project")
    text, doc = sweep(repo, tmp_path)
    assert doc["judged"] == 5
    assert doc["verdicts"] == {"fail": 2, "unscored": 3}  # no map: nothing is pass_clean
    assert stopped(doc, "oracle_edit_forbidden") == {commits["workflow"]}
    assert stopped(doc, "runner_config_changed") == {commits["plugin"]}  # v3.8: not the release
    assert stopped(doc, "dynamic_rebinding") == {commits["docs exec"]}
    assert "| `runner_config_changed` | `*requirements*.txt` | 1 | 20.0 % |" in text


def test_a_policy_given_to_the_sweep_is_every_parents_policy(tmp_path: Path) -> None:
    """``--policy``: as if each parent carried it; ``ignore = ["docs/**"]`` lifts v3.2 there (v3.8)."""
    repo, commits = history(tmp_path / "project")
    policy = tmp_path / "oracle-gate.toml"
    policy.write_text('ignore = ["docs/**"]\n')
    _, doc = sweep(repo, tmp_path, "--policy", str(policy))
    assert stopped(doc, "dynamic_rebinding") == set()
    assert stopped(doc, "oracle_edit_forbidden") == {commits["workflow"]}
