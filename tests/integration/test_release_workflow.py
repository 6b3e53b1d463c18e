"""The release workflow's jobs, run here: every ``run:`` step of ``.github/workflows/release.yml``
that needs no GitHub, in a clean clone of this tree, with the package installed as the jobs install
it (issue 31).

Seen on main: the version check ran ``import gate; print(oracle_gate.__version__)`` (a NameError
on every tag), and the release job ran ``python -m oracle_gate.release`` where the package was
never installed; the release commit was reachable from the moved major tag only.

The origin is a bare repository holding ``main`` and the tag ``release/vX.Y.Z`` (X.Y.Z: this tree's
version); each job starts from its own clone of it checked out at the tag, as ``actions/checkout``
does. ``actions/setup-python`` is a fresh venv of this Python put first on PATH; the artifact
actions copy a folder. What needs GitHub is skipped, and the test names each such step with its
reason, so a new step is either run here or listed with why it cannot be.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate import __version__
from oracle_gate.release import release_notes
from tests.support.workflow_steps import Emulator, Job, base_env, copy_of_this_tree, load_jobs, run_job

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
REPOSITORY = "oracle-gate/oracle-gate"
DIGEST = "sha256:" + "5e" * 32  # stands for the manifest list's digest the image job pushed
VERSION_TAG = f"v{__version__}"
REQUEST_TAG = f"release/{VERSION_TAG}"

NEEDS_GITHUB = {
    "actions/attest-build-provenance": "needs GitHub's OIDC token and its attestations API",
    "Emulate arm64": "installs QEMU on the runner with sudo apt-get",
    "Build the manifest list (linux/amd64, linux/arm64) and push it": "logs in to GHCR and pushes",
    "Push the version tag and the major tag; publish the release": "pushes tags to GitHub, calls its API",
}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=git_env(cwd)
    ).stdout.strip()


def git_env(cwd: Path) -> dict[str, str]:
    env = base_env(cwd)
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }
    )
    return env


def origin_of_this_tree(tmp: Path) -> Path:
    """A bare origin whose main is this tree's tracked and new files as one commit, tagged."""
    tree = copy_of_this_tree(tmp / "tree")
    git("init", "-q", "-b", "main", cwd=tree)
    git("add", "-A", cwd=tree)
    git("commit", "-q", "-m", "the tree under test", cwd=tree)
    git("tag", REQUEST_TAG, cwd=tree)
    origin = tmp / "origin.git"
    git("clone", "-q", "--bare", str(tree), str(origin), cwd=tmp)
    return origin


def checkout(origin: Path, into: Path) -> Emulator:
    def emulate(job: Job, step: dict[str, Any]) -> None:
        depth = ["--depth", "1"] if (step.get("with") or {}).get("fetch-depth", 1) == 1 else []
        url = f"file://{origin}"
        git("clone", "-q", "--no-local", *depth, "--branch", REQUEST_TAG, url, str(into), cwd=into.parent)
        assert (step.get("with") or {}).get("persist-credentials") is False

    return emulate


def setup_python(venv: Path) -> Emulator:
    def emulate(job: Job, step: dict[str, Any]) -> None:
        wanted = str(step["with"]["python-version"])
        assert wanted == f"{sys.version_info.major}.{sys.version_info.minor}" or wanted == "3.11"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        job.env["PATH"] = f"{venv / 'bin'}:{job.env['PATH']}"

    return emulate


def artifacts(store: Path) -> dict[str, Emulator]:
    def upload(job: Job, step: dict[str, Any]) -> None:
        shutil.copytree(job.workdir / step["with"]["path"], store / step["with"]["name"])

    def download(job: Job, step: dict[str, Any]) -> None:
        shutil.copytree(store / step["with"]["name"], job.workdir / step["with"]["path"])

    return {"actions/upload-artifact": upload, "actions/download-artifact": download}


def new_job(name: str, tmp: Path, **context: str) -> Job:
    (tmp / name).mkdir()
    runner_temp = tmp / name / "runner-temp"
    runner_temp.mkdir()
    env = base_env(tmp / name)
    env.update({"RUNNER_TEMP": str(runner_temp), "GITHUB_REPOSITORY": REPOSITORY})
    context = {"github.ref_name": REQUEST_TAG, "github.repository": REPOSITORY, **context}
    return Job(name, tmp / name / "work", context, env)


def test_the_release_jobs_run_here_and_make_a_reachable_release_commit(tmp_path: Path) -> None:
    jobs = load_jobs(WORKFLOW)
    assert list(jobs) == ["dist", "image", "release"]
    origin = origin_of_this_tree(tmp_path)
    requested = git("rev-parse", f"{REQUEST_TAG}^{{commit}}", cwd=origin)
    store = tmp_path / "artifacts"
    store.mkdir()
    done: dict[str, Job] = {}
    for name in jobs:
        job = new_job(name, tmp_path, **{"needs.image.outputs.digest": DIGEST, "github.token": "unused"})
        job.env["GITHUB_SHA"] = requested
        emulate = {
            "actions/checkout": checkout(origin, job.workdir),
            "actions/setup-python": setup_python(tmp_path / name / "venv"),
            **artifacts(store),
        }
        run_job(job, jobs[name]["steps"], emulate=emulate, needs_github=NEEDS_GITHUB)
        done[name] = job
    ran = {name: job.ran for name, job in done.items()}
    skipped = {step: why for job in done.values() for step, why in job.skipped.items()}
    # Every step ran but those that need GitHub, and each of those is named with its reason.
    assert set(skipped) == set(NEEDS_GITHUB)
    assert "The tag is the package's version, and the sdist and wheel say so" in ran["dist"]
    assert "The release commit (action.yml runs the pushed image by digest) and its notes" in ran["release"]

    dist = sorted(p.name for p in (store / "dist").iterdir())
    stem = f"pr_oracle_gate-{__version__}"
    assert dist == ["SHA256SUMS", f"{stem}-py3-none-any.whl", f"{stem}.tar.gz"]

    # The release commit: a child of the requested commit that changes action.yml's image only.
    release = done["release"]
    work = release.workdir
    release_sha = release.outputs["commit"]["sha"]
    assert release.outputs["commit"]["version-tag"] == VERSION_TAG
    assert git("rev-parse", f"{release_sha}^", cwd=work) == requested
    assert git("diff", "--name-only", requested, release_sha, cwd=work) == "action.yml"
    action = yaml.safe_load(git("show", f"{release_sha}:action.yml", cwd=work))
    assert action["runs"] == {"using": "docker", "image": f"docker://ghcr.io/{REPOSITORY}@{DIGEST}"}
    notes = (tmp_path / "release" / "runner-temp" / "notes.md").read_text()
    assert notes.startswith(release_notes((ROOT / "CHANGELOG.md").read_text(), __version__))
    assert f"uses: {REPOSITORY}@{release_sha} # {VERSION_TAG}" in notes


def test_the_version_tag_is_made_on_the_release_commit_and_never_moved() -> None:
    """The step that needs GitHub is read, not run: vX.Y.Z is pushed without --force (a second push
    to an existing tag is refused), the major tag with it, both to the release commit."""
    jobs = load_jobs(WORKFLOW)
    (push,) = [s for s in jobs["release"]["steps"] if s.get("name", "").startswith("Push the version tag")]
    lines = [line.strip() for line in push["run"].splitlines()]
    assert 'git push origin "$RELEASE_SHA:refs/tags/$VERSION_TAG"' in lines
    assert 'git push --force origin "$RELEASE_SHA:refs/tags/${VERSION_TAG%%.*}"' in lines
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc[True] == {"push": {"tags": ["release/v[0-9]+.[0-9]+.[0-9]+"]}}  # YAML 1.1 reads `on` as True


def test_the_image_is_one_manifest_list_for_amd64_and_arm64_pushed_by_digest() -> None:
    """Read, not run (it needs QEMU and GHCR): one build for both platforms into one manifest
    list, pushed with all its images, its digest the one the release commit names."""
    jobs = load_jobs(WORKFLOW)
    (build,) = [s for s in jobs["image"]["steps"] if s.get("id") == "push"]
    assert "buildah build --platform linux/amd64,linux/arm64 --manifest" in build["run"]
    assert "buildah manifest push --all --digestfile digest.txt" in build["run"]
    assert jobs["image"]["outputs"]["digest"] == "${{ steps.push.outputs.digest }}"
    (pin,) = [s for s in jobs["release"]["steps"] if s.get("id") == "commit"]
    assert pin["env"]["DIGEST"] == "${{ needs.image.outputs.digest }}"
