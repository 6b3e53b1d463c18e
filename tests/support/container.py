"""Build the action's real image from the unchanged ``Dockerfile`` and run it as the runner runs a
Docker action, with buildah (no Docker engine and no Docker Hub on these machines).

What was found to work here (Debian bookworm, root, buildah 1.28):

* ``buildah bud --isolation=chroot --pull-never`` builds; ``buildah from`` + ``buildah run
  --isolation=chroot`` runs a container (``podman run`` cannot start one: no cgroups to delegate).
* The base image ``python:3.11-slim-bookworm`` is stood in for by Debian bookworm made with
  ``mmdebstrap`` (python3, python3-pip, python-is-python3, ca-certificates; ``EXTERNALLY-MANAGED``
  removed so ``pip install`` works as in the official image), imported with ``buildah from
  scratch`` + ``buildah add`` + ``buildah commit`` under exactly the name the ``FROM`` lines use.
  Its rootfs tarball is cached in ``${TMPDIR:-/tmp}/oracle-gate-container-cache/<sha256 of the
  recipe>.tar``; the image carries the recipe's hash as a label and is not re-imported when it
  matches.
* The ``Dockerfile`` pins its base by digest, which no local image can carry (a digest is the
  registry's manifest's, and ``buildah tag`` refuses digest references). So the build reads a copy
  of the ``Dockerfile`` with exactly the ``@sha256:...`` of each ``FROM`` removed
  (:func:`without_base_digests`, which refuses a ``FROM`` that is not pinned); nothing else changes.
* The package proxy presents its own CA. The host's bundle is bind-mounted read-only at the
  standard path during the build (``-v /etc/ssl/certs/ca-certificates.crt:...:ro``); Debian's pip
  reads that path, so nothing about it goes into the Dockerfile. buildah runs with a minimal
  environment: the host's ``PIP_*`` variables and pip configuration never reach the build.
* A run: a fresh container per run, the image's own Entrypoint + Cmd run exactly as configured
  (no command override: a shell-form Entrypoint runs ``/bin/sh -c`` as Docker would, and dash drops
  ``INPUT_GITHUB-TOKEN``), ``--network=host`` so the loopback fake GitHub is reachable, the
  workspace bind-mounted at ``/github/workspace`` as the working directory, ``/github/workflow``,
  ``/github/file_commands`` and ``/github/home`` as the runner mounts them, and only ``GITHUB_*``,
  ``RUNNER_*``, ``INPUT_*``, ``ACTIONS_*``, ``HOME`` and ``CI`` passed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.github_fake import FakeGitHub
from tests.support.harness import Runner
from tests.support.project import Project

BASE_IMAGE = "docker.io/library/python:3.11-slim-bookworm"
RECIPE_LABEL = "org.oracle-gate.base-recipe"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
PASSED_PREFIXES = ("GITHUB_", "RUNNER_", "INPUT_", "ACTIONS_")
PASSED_NAMES = ("HOME", "CI")
BASE_RECIPE = [
    "mmdebstrap",
    "--variant=apt",
    "--include=python3,python3-pip,python-is-python3,ca-certificates",
    '--customize-hook=rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED',
    '--customize-hook=rm -rf "$1"/var/lib/apt/lists/*',
    "bookworm",
]
BASE_MIRROR = "http://deb.debian.org/debian"
BASE_CONFIG = ["--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
BASE_CONFIG += ["--env", "LANG=C.UTF-8", "--cmd", "python3"]


class ContainerError(AssertionError):
    """A build or a container run that failed; the message ends with the log's last lines."""


def tool_environment() -> dict[str, str]:
    """What buildah and mmdebstrap see: no PIP_*, no pip configuration, no proxy settings of ours."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8"}
    env["HOME"] = os.environ.get("HOME", "/root")
    env["TMPDIR"] = tempfile.gettempdir()
    return env


def tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _run(args: list[str], *, timeout: float = 900, what: str = "") -> str:
    proc = subprocess.run(
        args, env=tool_environment(), capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise ContainerError(
            f"{what or ' '.join(args[:3])} failed (exit {proc.returncode}); last lines:\n"
            + tail(proc.stdout + proc.stderr)
        )
    return proc.stdout


def why_buildah_cannot_run() -> str | None:
    """None when buildah can build and run containers here; else one line saying why not.

    When buildah or mmdebstrap is missing and this process is root, they are installed from
    Debian's packages first (as ``.ci/run`` does).
    """
    missing = [tool for tool in ("buildah", "mmdebstrap") if shutil.which(tool) is None]
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**tool_environment(), "DEBIAN_FRONTEND": "noninteractive"}
        for args in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
            subprocess.run(args, env=env, capture_output=True, check=False, timeout=900)
        missing = [tool for tool in missing if shutil.which(tool) is None]
    if missing:
        return f"container tier skipped: {', '.join(missing)} missing and not installable (needs root + apt)"
    probe = subprocess.run(
        ["buildah", "info"], env=tool_environment(), capture_output=True, text=True, check=False, timeout=120
    )
    if probe.returncode != 0:
        return f"container tier skipped: buildah cannot run here: {tail(probe.stderr, 1)}"
    return None


def recipe_key() -> str:
    recipe = json.dumps({"mmdebstrap": BASE_RECIPE, "mirror": BASE_MIRROR, "config": BASE_CONFIG})
    return hashlib.sha256(recipe.encode()).hexdigest()


def image_labels(image: str) -> dict[str, str] | None:
    """The image's labels, None when there is no such image."""
    proc = subprocess.run(
        ["buildah", "inspect", "--type", "image", image],
        env=tool_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        return None
    labels: dict[str, str] = json.loads(proc.stdout)["OCIv1"]["config"].get("Labels") or {}
    return labels


def image_config(image: str) -> dict[str, object]:
    config: dict[str, object] = json.loads(_run(["buildah", "inspect", "--type", "image", image]))["OCIv1"][
        "config"
    ]
    return config


def ensure_base_image() -> str:
    """The stand-in for ``python:3.11-slim-bookworm``, made (or found) from the cached recipe."""
    key = recipe_key()
    if (image_labels(BASE_IMAGE) or {}).get(RECIPE_LABEL) == key:
        return f"{BASE_IMAGE} already made from recipe {key[:12]}"
    cache = Path(tempfile.gettempdir()) / "oracle-gate-container-cache"
    cache.mkdir(exist_ok=True)
    tarball = cache / f"{key}.tar"
    made = "cached"
    if not tarball.is_file():
        partial = cache / f"{key}.partial.tar"
        _run([*BASE_RECIPE, str(partial), BASE_MIRROR], what="mmdebstrap (the base image's rootfs)")
        partial.rename(tarball)
        made = "made"
    container = _run(["buildah", "from", "scratch"]).strip()
    try:
        _run(["buildah", "add", "--quiet", container, str(tarball), "/"])
        _run(["buildah", "config", *BASE_CONFIG, "--label", f"{RECIPE_LABEL}={key}", container])
        _run(["buildah", "commit", "--quiet", container, BASE_IMAGE])
    finally:
        subprocess.run(["buildah", "rm", container], env=tool_environment(), capture_output=True, check=False)
    return f"{BASE_IMAGE} imported from the {made} rootfs {tarball}"


@dataclass
class Build:
    image: str
    seconds: float
    log: str


FROM_LINE = re.compile(
    r"^FROM\s+(?P<image>\S+?)(?P<digest>@sha256:[0-9a-f]{64})?(?P<rest>\s.*)?$", re.MULTILINE
)


def without_base_digests(dockerfile: str) -> str:
    """``dockerfile`` with the digest of each ``FROM`` removed, so the local stand-in (tagged with
    the same name) is used; a ``FROM`` of a registry image without a digest is an error."""
    stages: set[str] = set()
    for match in FROM_LINE.finditer(dockerfile):
        rest = (match["rest"] or "").split()
        if match["image"] not in stages and not match["digest"]:
            raise ContainerError(f"Dockerfile: FROM {match['image']} is not pinned by digest")
        if len(rest) == 2 and rest[0].upper() == "AS":
            stages.add(rest[1])
    return FROM_LINE.sub(lambda m: f"FROM {m['image']}{m['rest'] or ''}", dockerfile)


def build_image(context: Path, tag: str) -> Build:
    """``buildah bud`` of ``context``'s own Dockerfile (its base digests removed, see the module's
    docstring), never pulling, with the host CA mounted."""
    started = time.monotonic()
    local = Path(tempfile.mkdtemp(prefix="oracle-gate-dockerfile-")) / "Dockerfile"
    local.write_text(without_base_digests((context / "Dockerfile").read_text()))
    args = ["buildah", "bud", "--isolation=chroot", "--pull-never", "--network=host", "--layers=false"]
    args += ["-v", f"{CA_BUNDLE}:{CA_BUNDLE}:ro", "-f", str(local), "-t", tag, str(context)]
    try:
        proc = subprocess.run(args, env=tool_environment(), capture_output=True, text=True, check=False)
    finally:
        shutil.rmtree(local.parent, ignore_errors=True)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise ContainerError(f"the image did not build (exit {proc.returncode}); last lines:\n{tail(log)}")
    return Build(tag, time.monotonic() - started, log)


def image_size(image: str) -> str:
    return _run(["buildah", "images", "--format", "{{.Size}}", image]).strip()


def remove_image(image: str) -> None:
    subprocess.run(["buildah", "rmi", "-f", image], env=tool_environment(), capture_output=True, check=False)


@dataclass(frozen=True)
class Mounts:
    workspace: Path  # -> /github/workspace (the working directory)
    workflow: Path  # -> /github/workflow (event.json)
    file_commands: Path  # -> /github/file_commands (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY)
    home: Path  # -> /github/home
    # read-only at the same path inside: the workspace's "origin" (a file:// remote standing in for
    # github.com) for the fetches the action makes
    same_path: tuple[Path, ...] = ()


def run_action(
    image: str, env: dict[str, str], mounts: Mounts, *, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """One fresh container of ``image`` running its own Entrypoint + Cmd, as the runner runs it."""
    config = image_config(image)
    argv = [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])]  # type: ignore[misc]
    if not argv:
        raise ContainerError(f"{image} has neither Entrypoint nor Cmd")
    passed = {
        name: value for name, value in env.items() if name.startswith(PASSED_PREFIXES) or name in PASSED_NAMES
    }
    container = _run(["buildah", "from", "--pull-never", "--quiet", image]).strip()
    try:
        args = ["buildah", "run", "--isolation=chroot", "--network=host", "--workingdir", "/github/workspace"]
        for host, inside in (
            (mounts.workspace, "/github/workspace"),
            (mounts.workflow, "/github/workflow"),
            (mounts.file_commands, "/github/file_commands"),
            (mounts.home, "/github/home"),
        ):
            args += ["-v", f"{host}:{inside}"]
        for host in mounts.same_path:
            args += ["-v", f"{host}:{host}:ro"]
        for name, value in passed.items():
            args += ["-e", f"{name}={value}"]
        args += [container, "--", *argv]
        return subprocess.run(
            args, env=tool_environment(), capture_output=True, text=True, timeout=timeout, check=False
        )
    finally:
        subprocess.run(["buildah", "rm", container], env=tool_environment(), capture_output=True, check=False)


def run_in_image(image: str, argv: list[str]) -> str:
    """Run ``argv`` (not the Entrypoint) in a fresh container of ``image``: for looking inside it."""
    container = _run(["buildah", "from", "--pull-never", "--quiet", image]).strip()
    try:
        return _run(["buildah", "run", "--isolation=chroot", container, "--", *argv], what=" ".join(argv))
    finally:
        subprocess.run(["buildah", "rm", container], env=tool_environment(), capture_output=True, check=False)


@dataclass(frozen=True)
class Image:
    name: str
    build_seconds: float
    base: str  # how the base image was had (made, cached, already there)


class ContainerRunner(Runner):
    """The e2e Runner, but the action runs in a fresh container of the image."""

    def __init__(self, image: str, project: Project, fake: FakeGitHub, tmp: Path) -> None:
        super().__init__(project, fake, tmp)
        self.image = image

    def execute(
        self, env: dict[str, str], workspace: Path, run_dir: Path, *, path: str | None, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        env = {
            **env,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_OUTPUT": "/github/file_commands/output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
            "GITHUB_ACTIONS": "true",
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "HOME": "/github/home",
            "CI": "true",
            "PATH": "/not/passed",  # dropped by run_action: the image's own PATH applies
        }
        mounts = Mounts(workspace, run_dir, run_dir, self.home, (self.project.origin, self.maps))
        return run_action(self.image, env, mounts, timeout=timeout)


@dataclass(frozen=True)
class Served:
    """``oracle-gate serve`` in a container; :func:`stop_serving` ends it."""

    process: subprocess.Popen[str]
    container: str
    log: Path


def serve_in_container(
    image: str, env: dict[str, str], mounts: list[tuple[Path, str, bool]], log: Path
) -> Served:
    """A fresh container of ``image`` running ``oracle-gate serve`` with the Entrypoint overridden, as
    ``docker run --entrypoint oracle-gate IMAGE serve`` runs it: the given environment only, each
    (host, inside, read-only) mount, the host network (the server listens where ``env`` says)."""
    container = _run(["buildah", "from", "--pull-never", "--quiet", image]).strip()
    args = ["buildah", "run", "--isolation=chroot", "--network=host"]
    for host, inside, read_only in mounts:
        args += ["-v", f"{host}:{inside}{':ro' if read_only else ''}"]
    for name, value in env.items():
        args += ["-e", f"{name}={value}"]
    args += [container, "--", "oracle-gate", "serve"]
    with log.open("w") as out:
        process = subprocess.Popen(
            args,
            env=tool_environment(),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    return Served(process, container, log)


def processes_of_session(session: int) -> dict[int, str]:
    """pid -> command name of every process in ``session`` (one this module started)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, fields = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == session:  # fields after the name: state, ppid, pgrp, session, ...
            found[int(entry.name)] = name
    return found


def stop_serving(served: Served, timeout: float = 60) -> int | None:
    """SIGTERM to the server alone, as ``docker stop`` sends it to the container's process (buildah
    kills its child with SIGKILL when it gets a SIGTERM itself); SIGKILL to the session after
    ``timeout``; the container removed. buildah's exit status (the server's), None when it had to
    be killed."""
    try:
        # the session: buildah, its memfd re-executions (chroot helpers), and the server, whose
        # command name is its script's: oracle-gate
        for pid, name in processes_of_session(served.process.pid).items():
            if name == "oracle-gate":
                os.kill(pid, signal.SIGTERM)
        return served.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(served.process.pid, signal.SIGKILL)
        served.process.wait(timeout=timeout)
        return None
    finally:
        subprocess.run(
            ["buildah", "rm", served.container], env=tool_environment(), capture_output=True, check=False
        )
