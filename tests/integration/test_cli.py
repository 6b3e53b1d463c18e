"""``oracle-gate check`` and ``demo`` as a user runs them: its output and exit status.

``cli`` runs :func:`oracle_gate.cli.main` in this process with the environment and working directory a
subprocess would get; the exit-status and working-directory tests also run ``python -m oracle_gate`` and
the installed ``oracle-gate`` console script as real subprocesses."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import oracle_gate
from tests.support.factories import TEST_FILE, Project, sha256_hex
from tests.support.in_process import run_cli as cli
from tests.support.repo import Repo, clean_env, run_cli

MOD = "src/pkg/mod.py"
SOURCE = str(
    Path(oracle_gate.__file__).resolve().parent.parent
)  # so `python -m oracle_gate` imports this checkout
Cli = Callable[..., subprocess.CompletedProcess[str]]
CONTRACT_KEYS = [
    "verdict",
    "reasons",
    "overlap",
    "touched",
    "edited_only",  # contract v2
    "overlap_ratio",
    "parent",
    "head",
    "protocol",
]


def check(
    project: Project, head: str, *extra: str, coverage: bool = True, via: Cli = cli
) -> subprocess.CompletedProcess[str]:
    args = ["check", "--repo", str(project.root), "--base", project.parent, "--head", head]
    if coverage:
        args += ["--coverage", str(project.coverage), "--coverage-sha", project.parent]
    return via(*args, *extra)


def console_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``oracle-gate`` command (the venv's console script), as a subprocess."""
    script = Path(sys.executable).with_name("oracle-gate")
    return subprocess.run([str(script), *args], env=clean_env(), capture_output=True, text=True, check=False)


def assert_clean_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 3, nothing on stdout, one line on stderr (after any usage line), no traceback."""
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    message = [line for line in proc.stderr.splitlines() if not line.startswith("usage:")]
    assert len(message) == 1, proc.stderr
    for needle in needles:
        assert needle in message[0]


# ---------------------------------------------------------------- exit status per verdict


@pytest.mark.parametrize(
    "via",
    [cli, run_cli, pytest.param(console_script, marks=pytest.mark.process)],
    ids=["in-process", "python-m-gate", "oracle-gate"],
)
def test_exit_status_follows_the_verdict(project: Project, via: Cli) -> None:
    """Exit 0 for pass_clean, 1 for fail, 2 for unscored, with the verdict on the first line."""
    passing = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    failing = project.head(lambda repo: repo.write("seeds/s.txt", "x\n"))
    unscored = project.head(project.replace(MOD, "z = x - 1", "z = x - 2"))
    for head, status, verdict in (
        (passing, 0, "pass_clean"),
        (failing, 1, "fail"),
        (unscored, 2, "unscored"),
    ):
        proc = check(project, head, via=via)
        assert proc.returncode == status, proc.stderr
        assert proc.stdout.startswith(f"oracle-gate: {verdict} (")
        assert proc.stderr == ""


def test_default_repo_is_the_working_directory(project: Project) -> None:
    """Without --repo the gate judges the repository it is run in (here from a subdirectory)."""
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    args = ["check", "--base", project.parent, "--head", head, "--coverage", str(project.coverage)]
    proc = run_cli(
        *args, "--coverage-sha", project.parent, cwd=project.root / "src", env=clean_env(PYTHONPATH=SOURCE)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("oracle-gate: pass_clean")


# ---------------------------------------------------------------- JSON output


def test_json_output_follows_the_contract(project: Project) -> None:
    """--format json: the contract's keys, sorted repo-relative lines, files without lines left out."""

    def head(repo: Repo) -> None:
        text = repo.read(MOD)
        for old, new in (
            ("return -x", "return 0 - x"),
            ("z = x - 1", "z = x - 2"),
            ("y = x + 1", "y = x + 2"),
        ):
            text = text.replace(old, new)
        repo.write(MOD, text)
        repo.write("docs/new.md", "added file: no touched line\n")
        repo.write("README.md", "tiny project\n", executable=True)  # mode only: no line

    proc = check(project, project.head(head), "--format", "json")
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    # The contract's keys in order, then the additive ones that hold something (issue 18); v3.7: the
    # tiny project's freeze entries carry no owner, so they are listed as needing triage.
    assert set(doc) == {*CONTRACT_KEYS, "overlap_observers", "triage"}
    assert list(doc)[: len(CONTRACT_KEYS)] == list(CONTRACT_KEYS)
    assert doc["overlap_observers"] == {MOD: {f"{TEST_FILE}::test_frozen": [project.line("z = x - 1")]}}
    assert {t["why"][0] for t in doc["triage"]} == {"no_owner"}
    assert doc["verdict"] == "unscored"
    assert [r["code"] for r in doc["reasons"]] == ["freeze_overlap"]
    assert all(set(r) >= {"code", "detail"} for r in doc["reasons"])
    lines = sorted(project.line(s) for s in ("return -x", "z = x - 1", "y = x + 1"))
    assert doc["touched"] == {MOD: lines}
    assert doc["overlap"] == {MOD: [project.line("z = x - 1")]}
    assert doc["overlap_ratio"] == 0.3333
    assert (doc["parent"], doc["head"]) == (project.parent, project.repo.head())


def test_json_ratio_is_zero_when_nothing_is_touched(project: Project) -> None:
    """overlap_ratio is 0 when T is empty (an added file only), and empty maps stay empty."""
    proc = check(
        project, project.head(lambda repo: repo.write("src/pkg/extra.py", "x = 1\n")), "--format", "json"
    )
    doc = json.loads(proc.stdout)
    assert (doc["overlap_ratio"], doc["overlap"], doc["touched"]) == (0, {}, {})
    assert doc["verdict"] == "pass_clean"


def test_protocol_digests_are_sha256_of_the_exact_bytes(project: Project) -> None:
    """policy, freeze, lock and coverage digests are sha256 of the bytes used; absent inputs are null."""
    policy = b"# policy\nignore = []\n"
    lock = b'{"paths": ["README.md"]}'

    def parent(repo: Repo) -> None:
        repo.write("oracle-gate.toml", policy)
        repo.write("fixture_lock.json", lock)

    project.new_parent(parent)
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    doc = json.loads(check(project, head, "--format", "json").stdout)
    freeze = project.repo.git("show", f"{project.parent}:freeze.json").encode() + b"\n"
    protocol = doc["protocol"]
    assert protocol["policy_sha256"] == sha256_hex(policy)
    assert protocol["lock_sha256"] == sha256_hex(lock)
    assert protocol["freeze_sha256"] == sha256_hex(freeze)
    assert protocol["coverage_sha256"] == hashlib.sha256(project.coverage.read_bytes()).hexdigest()
    assert protocol["gate_version"]
    project.new_parent(without_oracle_files)
    doc = json.loads(
        check(
            project, project.head(project.replace(MOD, "y = x + 1", "y = 1 + x")), "--format", "json"
        ).stdout
    )
    assert doc["protocol"]["policy_sha256"] is None
    assert doc["protocol"]["lock_sha256"] is None


def without_oracle_files(repo: Repo) -> None:
    repo.delete("oracle-gate.toml")
    repo.delete("fixture_lock.json")


def test_same_inputs_replay_to_the_same_json(project: Project, tmp_path: Path) -> None:
    """Two runs on the same inputs, from different clones, give byte-identical JSON."""
    head = project.head(project.replace(MOD, "z = x - 1", "z = x - 2"))
    first = check(project, head, "--format", "json").stdout
    clone = Repo(tmp_path / "clone")
    clone.git("fetch", "-q", str(project.root), head)
    other = cli(
        "check",
        "--repo",
        str(clone.root),
        "--base",
        project.parent,
        "--head",
        head,
        "--coverage",
        str(project.coverage),
        "--coverage-sha",
        project.parent,
        "--format",
        "json",
    )
    assert other.stdout == first


def test_output_file(project: Project, tmp_path: Path) -> None:
    """--output writes the report to the file (creating its directory) and nothing to stdout."""
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    out = tmp_path / "reports" / "verdict.json"
    proc = check(project, head, "--format", "json", "--output", str(out))
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert json.loads(out.read_text())["verdict"] == "pass_clean"


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_other_formats(project: Project, fmt: str) -> None:
    """Text and markdown reports name the verdict and the overlapping lines."""
    head = project.head(project.replace(MOD, "z = x - 1", "z = x - 2"))
    proc = check(project, head, "--format", fmt)
    assert proc.returncode == 2
    assert "unscored" in proc.stdout
    assert "freeze_overlap" in proc.stdout


# ---------------------------------------------------------------- the gate cannot run: exit 3


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["check"],
        ["check", "--base", "HEAD"],
        ["check", "--base", "HEAD", "--head", "HEAD", "--format", "yaml"],
        ["check", "--base", "HEAD", "--head", "HEAD", "--no-such-option"],
        ["demo", "--format", "xml"],
    ],
)
def test_usage_errors_exit_3(args: list[str], tmp_path: Path) -> None:
    """argparse usage errors exit 3, never 0 or 2, so they cannot pass for a verdict."""
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 3
    assert "usage:" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.process
def test_a_usage_error_of_the_console_script_exits_3() -> None:
    proc = console_script("check", "--base", "HEAD")
    assert proc.returncode == 3
    assert "usage:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_revision_exits_3(project: Project) -> None:
    """An unknown --base or --head stops the gate: exit 3, one line naming the revision."""
    for base, head in (("nosuchrev", project.parent), (project.parent, "deadbeef" * 5)):
        proc = cli("check", "--repo", str(project.root), "--base", base, "--head", head)
        assert_clean_error(proc, "unknown revision")
    proc = cli("check", "--repo", str(project.root), "--base", "--head", "--head", "x")
    assert proc.returncode == 3


def test_not_a_repository_exits_3(tmp_path: Path) -> None:
    """A directory that is not a git repository, or none at all, exits 3 with one line."""
    assert_clean_error(
        cli("check", "--repo", str(tmp_path), "--base", "a", "--head", "b"), "not a git repository"
    )
    missing = tmp_path / "missing"
    assert_clean_error(
        cli("check", "--repo", str(missing), "--base", "a", "--head", "b"), "no such directory"
    )


def test_diff_git_cannot_produce_exits_3(project: Project) -> None:
    """A head whose blob is missing from the repository exits 3 with one line naming the blob."""
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    blob = project.repo.git("rev-parse", f"{head}:{MOD}")
    os.remove(project.root / ".git" / "objects" / blob[:2] / blob[2:])
    assert_clean_error(check(project, head), blob, "missing")


# ---------------------------------------------------------------- bad oracle inputs: exit 2, one line


@pytest.mark.parametrize(
    ("path", "content", "needle"),
    [
        ("freeze.json", "{ not json", "freeze.json: not valid JSON"),
        (
            "freeze.json",
            '{"schema": 1, "frozen": [{"nodeid": "tests/test_mod.py::x"}]}',
            "freeze.json: freeze entry 0",
        ),
        ("fixture_lock.json", '{"sha256": {}}', "fixture_lock.json: 'paths' is required"),
        ("oracle-gate.toml", "protected = [", "oracle-gate.toml: not valid TOML"),
        ("oracle-gate.toml", "tests = 5", "oracle-gate.toml: 'tests' must be a list of strings"),
    ],
)
def test_malformed_oracle_file_is_one_line_and_unscored(
    project: Project, path: str, content: str, needle: str
) -> None:
    """A malformed freeze, lock or policy prints one line naming the file; the verdict is unscored."""
    project.new_parent(lambda repo: repo.write(path, content))
    proc = check(project, project.head(project.replace(MOD, "y = x + 1", "y = 1 + x")), "--format", "json")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    problems = proc.stderr.splitlines()
    assert problems
    assert all(line.startswith("oracle-gate: ") for line in problems)
    assert any(needle in line for line in problems), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["verdict"] == "unscored"
    assert "oracle_incomplete" in [r["code"] for r in doc["reasons"]]


def test_missing_and_bad_coverage_is_one_line_and_unscored(project: Project, tmp_path: Path) -> None:
    """No map, a missing map file or a map of the wrong shape: one stderr line each, exit 2."""
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    bad = tmp_path / "map.json"
    bad.write_text("[1, 2]")
    for extra, needle in (
        ((), "no coverage map of the parent was given"),
        (("--coverage", str(tmp_path / "nope.sqlite")), "cannot read the coverage map"),
        (("--coverage", str(bad), "--coverage-sha", project.parent), "JSON map must be an object"),
        (("--coverage", str(project.coverage)), "not bound to a commit"),
    ):
        proc = check(project, head, *extra, coverage=False)
        assert proc.returncode == 2, extra
        assert "Traceback" not in proc.stderr
        (line,) = proc.stderr.splitlines()
        assert needle in line


# ---------------------------------------------------------------- demo


def test_demo_prints_three_verdicts_and_exits_0(tmp_path: Path) -> None:
    """The demo builds its example, prints pass_clean, unscored and fail, and exits 0."""
    proc = cli("demo", "--keep", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdicts = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("oracle-gate: ")]
    assert verdicts == ["pass_clean", "unscored", "fail"]
    assert "All three verdicts came out as expected." in proc.stdout
    assert (tmp_path / "demo" / "parent.coverage").is_file()


def test_demo_json_format(tmp_path: Path) -> None:
    """``demo --format json`` prints one JSON document and nothing else (seen on main: the
    narration and the three verdicts were mixed on standard output); the narration goes to stderr."""
    proc = cli("demo", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0
    documents = json.loads(proc.stdout)
    assert [d["result"]["verdict"] for d in documents] == ["pass_clean", "unscored", "fail"]
    assert [d["expected"] for d in documents] == ["pass_clean", "unscored", "fail"]
    assert "All three verdicts came out as expected." in proc.stderr


def test_unwritable_output_exits_3(project: Project, tmp_path: Path) -> None:
    """A report that cannot be written is a gate that could not run: exit 3, one line, no traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    proc = check(project, head, "--output", str(blocker / "verdict.json"))
    assert_clean_error(proc, str(blocker))
    assert "cannot write the report" in proc.stderr
    assert "internal error" not in proc.stderr


def test_output_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(project: Project, tmp_path: Path) -> None:
    """--output on a device or pipe (/dev/null, a FIFO) writes into it, never renames a file over it."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    proc = check(project, head, "--format", "json", "--output", str(fifo))
    reader.join(timeout=30)
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert json.loads(received[0])["head"] == head
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_bare_repository_is_judged_from_commits_alone(project: Project, tmp_path: Path) -> None:
    """A bare clone (no working tree at all) gives the same verdict: only commits are read."""
    head = project.head(project.replace(MOD, "z = x - 1", "z = x - 2"))
    bare = tmp_path / "bare.git"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(project.root), str(bare)], check=True, env=project.repo.env
    )
    args = ["--base", project.parent, "--head", head, "--coverage", str(project.coverage)]
    args += ["--coverage-sha", project.parent, "--format", "json"]
    in_bare = cli("check", "--repo", str(bare), *args)
    assert in_bare.returncode == 2
    assert in_bare.stdout == cli("check", "--repo", str(project.root), *args).stdout
