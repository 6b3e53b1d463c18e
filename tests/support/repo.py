"""Real temporary git repositories for tests: fixed identities and dates, no user config."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without git redirections, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "COVERAGE_", "PYTEST_"))}
    env.update(IDENTITY)
    env.update(extra)
    return env


class Repo:
    """A git repository in a temporary directory, driven through the real ``git``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.env = clean_env()
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["git", *args], cwd=self.root, env=self.env, capture_output=True, check=False)
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "surrogateescape").strip()

    def write(self, path: str, content: str | bytes, *, executable: bool = False) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        if isinstance(content, str):
            target.write_bytes(content.encode())
        else:
            target.write_bytes(content)
        target.chmod(0o755 if executable else 0o644)
        return target

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def symlink(self, path: str, target: str) -> None:
        link = self.root / path
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(target)

    def delete(self, path: str) -> None:
        self.git("rm", "-q", "-r", "--", path)

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def checkout(self, rev: str, *, new_branch: str | None = None) -> None:
        if new_branch:
            self.git("checkout", "-q", "-b", new_branch, rev)
        else:
            self.git("checkout", "-q", rev)


def measure_coverage(
    repo: Repo,
    out: Path,
    *,
    cov: tuple[str, ...] = (".",),
    args: tuple[str, ...] = ("tests",),
    pythonpath: str = "src",
) -> Path:
    """Run the repository's tests with pytest-cov and per-test contexts, for real."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *[f"--cov={c}" for c in cov],
        "--cov-context=test",
        "--cov-report=",
        *args,
    ]
    env = clean_env(
        COVERAGE_FILE=str(out),
        COVERAGE_CORE="ctrace",
        PYTHONHASHSEED="0",
        PYTHONPATH=str(repo.root / pythonpath),
        PYTHONDONTWRITEBYTECODE="1",
    )
    proc = subprocess.run(cmd, cwd=repo.root, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not out.exists():
        raise AssertionError(f"measuring coverage failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return out


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m oracle_gate`` as a user would, capturing its output."""
    return subprocess.run(
        [sys.executable, "-m", "oracle_gate", *args],
        cwd=cwd,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
