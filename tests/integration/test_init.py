"""``oracle-gate init`` on real repositories: what it detects, what it writes, what it never touches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.adopt.render import read_header
from oracle_gate.judge.policy import Policy, parse_policy
from tests.support.in_process import Completed, run_cli
from tests.support.repo import Repo

PRIMARY = (
    ".github/workflows/oracle-gate.yml",
    ".github/workflows/oracle-gate-commands.yml",
    ".github/workflows/oracle-gate-review.yml",
    ".github/workflows/oracle-gate-review-judge.yml",
    "oracle-gate.toml",
    ".github/dependabot.yml",
)
RELEASE = "c" * 40


def run_init(*args: str, cwd: Path | None = None) -> Completed:
    """``oracle-gate init`` pinned to a release commit (``--ref``) unless the test names one."""
    return run_cli("init", *args, *(() if "--ref" in args else ("--ref", RELEASE)), cwd=cwd)


def a_project(root: Path, branch: str = "main") -> Repo:
    repo = Repo(root)
    if branch != "main":
        repo.git("checkout", "-q", "-b", branch)
    repo.write("src/pkg/__init__.py", "")
    repo.write("tests/test_pkg.py", "def test_x():\n    assert True\n")
    repo.write("requirements/test.txt", "pytest\npytest-cov\n")
    repo.commit("project")
    return repo


def test_init_writes_the_primary_setup_from_what_it_detects(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r", branch="trunk")
    result = run_init("--app-slug", "acme-gate", cwd=repo.root)
    assert result.returncode == 0, result.stderr
    for path in PRIMARY:
        text = (repo.root / path).read_text()
        header = read_header(text)
        assert header is not None, path
        assert (header.setup, header.app_slug, header.intact) == ("primary", "acme-gate", True)
    workflow = (repo.root / PRIMARY[0]).read_text()
    doc = yaml.safe_load(workflow)
    assert doc[True]["push"] == {"branches": ["trunk"]}  # YAML 1.1 reads `on` as True
    assert "python -m pip install -r repo/requirements/test.txt" in workflow
    assert set(re.findall(r'python-version: "([\d.]+)"', workflow)) == {"3.12"}
    policy = parse_policy((repo.root / "oracle-gate.toml").read_bytes())
    assert policy == Policy()  # every default spelled out, no problem
    assert "src layout" in result.stdout
    steps = re.findall(r"^  (\d+)\. ", result.stdout, re.MULTILINE)
    assert steps == [str(n) for n in range(1, len(steps) + 1)]
    assert len(steps) >= 5
    assert "'Selected branches' = trunk only" in result.stdout


def test_a_second_run_changes_nothing_and_says_so(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    assert run_init(cwd=repo.root).returncode == 0
    before = {path: (repo.root / path).stat().st_mtime_ns for path in PRIMARY}
    again = run_init(cwd=repo.root)
    assert again.returncode == 0
    assert "Nothing changed" in again.stdout
    assert {path: (repo.root / path).stat().st_mtime_ns for path in PRIMARY} == before


def test_a_file_init_did_not_write_is_kept_unless_forced(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    repo.write("oracle-gate.toml", 'protected = ["oracle/**"]\n')
    result = run_init(cwd=repo.root)
    assert result.returncode == 1
    assert (
        "kept        oracle-gate.toml (not written by oracle-gate init; --force replaces it)" in result.stdout
    )
    assert repo.read("oracle-gate.toml") == 'protected = ["oracle/**"]\n'
    forced = run_init("--force", cwd=repo.root)
    assert forced.returncode == 0
    assert "overwritten oracle-gate.toml" in forced.stdout


def test_a_file_edited_after_init_is_kept_and_an_untouched_one_is_updated(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    assert run_init(cwd=repo.root).returncode == 0
    workflow = repo.root / PRIMARY[0]
    workflow.write_text(workflow.read_text() + "# my own line\n")
    result = run_init("--ref", "a" * 40, cwd=repo.root)
    assert result.returncode == 1
    assert f"kept        {PRIMARY[0]} (edited since init wrote it" in result.stdout
    assert "# my own line" in workflow.read_text()
    assert f"updated     {PRIMARY[1]}" in result.stdout  # untouched: rewritten with the new pin
    assert "uses: oracle-gate/oracle-gate@" + "a" * 40 in (repo.root / PRIMARY[1]).read_text()
    assert "Pin the gate" not in result.stdout


def test_the_bot_setup_writes_the_map_workflow(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    result = run_init("--setup", "bot", cwd=repo.root)
    assert result.returncode == 0
    assert (repo.root / ".github/workflows/oracle-gate-map.yml").is_file()
    assert not (repo.root / PRIMARY[0]).exists()
    assert "app-manifest" in result.stdout


def test_python_below_312_only_when_the_project_excludes_312(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    repo.write("pyproject.toml", '[project]\nname = "x"\nrequires-python = ">=3.9,<3.12"\n')
    result = run_init(cwd=repo.root)
    assert 'python-version: "3.11"' in (repo.root / PRIMARY[0]).read_text()
    assert "slow 3.11 tracer" in result.stdout


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    result = run_init("--repo", str(tmp_path / "plain"))
    assert result.returncode == 3
    assert result.stderr.strip().count("\n") == 0
    assert "not a git repository" in result.stderr
    repo = a_project(tmp_path / "r")
    bad = run_init("--app-slug", "Evil Slug\n::set-output", cwd=repo.root)
    assert bad.returncode == 3
    assert "--app-slug must be" in bad.stderr


def test_map_repeat_is_written_into_the_map_workflows_and_kept_by_a_second_run(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    result = run_init("--setup", "fork-safe", "--map-repeat", "1", cwd=repo.root)
    assert result.returncode == 0, result.stderr
    sharded = (repo.root / ".github/workflows/oracle-gate-sharded-map.yml").read_text()
    assert '--repeat 1 --out "shard/parent.coverage"' in sharded
    header = read_header(sharded)
    assert header is not None
    assert (header.map_repeat, header.intact) == (1, True)
    again = run_init("--setup", "fork-safe", "--map-repeat", "1", cwd=repo.root)
    assert "Nothing changed" in again.stdout
    default = run_init("--setup", "fork-safe", cwd=repo.root)  # untouched files follow the option
    assert default.returncode == 0
    assert (
        '--repeat 2 --out "shard/parent.coverage"'
        in (repo.root / ".github/workflows/oracle-gate-sharded-map.yml").read_text()
    )


def test_a_map_repeat_out_of_range_is_one_line(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    result = run_init("--map-repeat", "0", cwd=repo.root)
    assert result.returncode == 3
    assert result.stderr.strip().splitlines() == [
        "oracle-gate: error: --map-repeat must be a whole number of runs from 1 to 20, got 0"
    ]
    assert not (repo.root / "oracle-gate.toml").exists()


# -- issue 31: no false all-clear from init ------------------------------------------------------


def test_init_with_no_release_commit_to_pin_writes_nothing_and_names_ref(tmp_path: Path) -> None:
    """Seen on main: init without --ref (on an install that knows no release commit) exited 0 and
    left all-zero pins, a workflow that cannot run; doctor then said nothing was missing."""
    repo = a_project(tmp_path / "r")
    result = run_cli("init", cwd=repo.root)
    assert result.returncode == 3
    assert result.stderr.strip().count("\n") == 0
    assert "--ref" in result.stderr
    assert not any((repo.root / path).exists() for path in PRIMARY)


def test_init_writes_the_review_workflows_and_a_commented_approvals_table(tmp_path: Path) -> None:
    """Seen on main: no review workflows and no [approvals] table, though the README said every
    policy default was spelled out."""
    repo = a_project(tmp_path / "r")
    for setup in ("primary", "fork-safe"):
        assert run_init("--setup", setup, "--force", cwd=repo.root).returncode == 0
        for name in ("oracle-gate-review.yml", "oracle-gate-review-judge.yml"):
            assert read_header((repo.root / ".github/workflows" / name).read_text()) is not None
    policy = (repo.root / "oracle-gate.toml").read_text()
    assert parse_policy(policy.encode()).approvals is None  # commented out: nothing approves yet
    uncommented = re.sub(r"^# (\[approvals\]|oracle = |count = )", r"\1", policy, flags=re.MULTILINE)
    approvals = parse_policy(uncommented.encode())
    assert approvals.problems == ()
    assert approvals.approvals is not None
    assert approvals.approvals.count == 1
    assert "approve oracle changes" in run_init(cwd=repo.root).stdout


def test_init_writes_a_dependabot_config_unless_one_exists(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    assert run_init(cwd=repo.root).returncode == 0
    config = yaml.safe_load((repo.root / ".github/dependabot.yml").read_text())
    assert config["updates"][0]["package-ecosystem"] == "github-actions"
    other = a_project(tmp_path / "other")
    other.write(".github/dependabot.yml", "version: 2\nupdates: []\n")
    result = run_init(cwd=other.root)
    assert result.returncode == 0  # the adopter's own config is theirs, not a kept conflict
    assert "exists      .github/dependabot.yml" in result.stdout
    assert other.read(".github/dependabot.yml") == "version: 2\nupdates: []\n"
    assert "package-ecosystem: github-actions" in result.stdout  # what to add, as a manual step


def test_init_format_json_reports_files_and_steps(tmp_path: Path) -> None:
    repo = a_project(tmp_path / "r")
    result = run_init("--format", "json", cwd=repo.root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ref"] == RELEASE
    assert [f["path"] for f in report["files"]] == list(PRIMARY)
    assert {f["status"] for f in report["files"]} == {"written"}
    assert len(report["manual_steps"]) >= 4
    assert report["exit"] == 0
