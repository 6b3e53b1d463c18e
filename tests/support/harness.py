"""Run ``entrypoint.py`` the way GitHub runs the Docker action, and read back what it left.

The subprocess gets only the environment a Docker action receives (``INPUT_*`` with hyphens kept,
every input of action.yml with its default unless a test sets it (``merge-wait-ms`` is 0 here: no
test sleeps between two looks at a test merge), the ``GITHUB_*`` variables,
``HOME``, ``PATH``) plus the fake GitHub's API URL, and runs in the workspace, which belongs to
another user as the runner's workspace does inside the container.

A :class:`Runner` made with ``in_process=True`` runs the same main with the same environment in
this process instead (:mod:`tests.support.in_process`): an unpaced GitHub client, no interpreter
start-up; the end-to-end tier does so for all but a few smoke tests.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest
from oracle_gate.maps.reader.provenance import Producer
from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.in_process import run_action
from tests.support.producers import default_branch_push_run
from tests.support.project import OTHER_UID, REPO, Project, PullRequest, chown_tree, git

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "entrypoint.py"
ACTION_YML = ROOT / "action.yml"
RUN_ID = "4242"
MAP_PATH = ".oracle-gate/map.coverage"
#: The default-branch push run that built the parent's map the tests give the action (a trusted store).
MAP_PRODUCER = default_branch_push_run(REPO, run_id="1000")


def action_defaults() -> dict[str, str]:
    """Every input of action.yml with its default, as the runner sets them (the token aside)."""
    inputs = yaml.safe_load(ACTION_YML.read_text())["inputs"]
    return {name: str(spec.get("default", "")) for name, spec in inputs.items() if name != "github-token"}


@dataclass
class Result:
    status: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workspace: Path

    @property
    def log(self) -> str:
        return self.stdout + self.stderr

    def verdict_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads((self.workspace / "verdict.json").read_text())
        return doc

    def commands(self, name: str) -> list[str]:
        """The messages of ``::name::`` workflow commands in the log."""
        return [m.group(1) for m in re.finditer(rf"^::{name}(?: [^:]*)?::(.*)$", self.stdout, re.M)]


def parse_outputs(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT`` as the runner reads it: ``name=value`` or ``name<<DELIM`` ... ``DELIM``."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
            i += 1
        else:
            assert not line, f"unparseable GITHUB_OUTPUT line {line!r}"
            i += 1
    return outputs


class Runner:
    """Prepares workspaces and event files under ``tmp`` and runs the action against ``fake``."""

    def __init__(self, project: Project, fake: FakeGitHub, tmp: Path, *, in_process: bool = False) -> None:
        self.project = project
        self.in_process = in_process
        self.fake = fake
        self.tmp = tmp
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)
        self.runs = 0
        self.started = 0.0
        self.maps = tmp / "maps"  # outside every workspace: where a trusted job left the parent's map
        self.maps.mkdir(exist_ok=True)
        self.map_manifest = self.write_map(MAP_PRODUCER)

    # -- workspaces, as actions/checkout leaves them -------------------------------------------

    def workspace(
        self,
        *,
        at: str,
        pr: PullRequest | None = None,
        depth: int | None = 1,
        url: str | None = None,
        auth_header: str | None = None,
    ) -> Path:
        """A checkout of ``pr``'s test merge (``at="merge"``, pull_request) or of main (``at="base"``).

        Made like actions/checkout with ``persist-credentials: false``: ``git init``, a remote,
        a fetch of one commit (``depth``), a detached checkout. Then everything is given to another
        user (the parent's map is kept outside the checkout, under ``maps``). ``auth_header`` is used
        for that one fetch only, as actions/checkout does with ``persist-credentials: false``.
        """
        ws = self.tmp / f"workspace-{len(list(self.tmp.glob('workspace-*')))}"
        origin = url or f"file://{self.project.origin}"
        git(self.tmp, "init", "-q", str(ws))
        git(ws, "remote", "add", "origin", origin)
        deep = [f"--depth={depth}"] if depth else []
        if at == "merge":
            assert pr is not None
            assert pr.merge is not None
            refspec = f"+{pr.merge}:refs/remotes/pull/{pr.number}/merge"
            ref = f"refs/remotes/pull/{pr.number}/merge"
        else:
            refspec, ref = "+refs/heads/main:refs/remotes/origin/main", "refs/remotes/origin/main"
        auth = ["-c", f"http.extraHeader=AUTHORIZATION: {auth_header}"] if auth_header else []
        git(ws, *auth, "fetch", "-q", "--no-tags", *deep, "origin", refspec)
        git(ws, "checkout", "-q", "--force", "--detach", ref)
        chown_tree(ws)
        return ws

    def write_map(
        self,
        producer: Producer | None,
        *,
        name: str = "parent",
        content: bytes | None = None,
        parent: str | None = None,
    ) -> Path:
        """The project's measured parent map (or ``content``) with a manifest recording ``producer``,
        bound to ``parent`` (default: main), under ``maps``; returns the manifest's path."""
        parent = parent or self.project.main
        data = self.maps / f"{name}.coverage"
        if content is None:
            shutil.copyfile(self.project.coverage, data)
        else:
            data.write_bytes(content)
        manifest = Manifest(
            path=data.with_name(data.name + MANIFEST_SUFFIX),
            data=data,
            sha=parent,
            data_sha256=hashlib.sha256(data.read_bytes()).hexdigest(),
            producer=producer and replace(producer, sha=producer.sha or parent),
        )
        manifest.path.write_text(json.dumps(manifest.to_document()))
        return manifest.path

    # -- running the action --------------------------------------------------------------------

    def run(
        self,
        event_name: str,
        payload: dict[str, Any] | str,
        workspace: Path,
        *,
        sha: str,
        token: str | None = None,
        inputs: dict[str, str] | None = None,
        server_url: str = "https://github.com",
        path: str | None = None,
        timeout: float = 120,
    ) -> Result:
        self.runs += 1
        run_dir = self.tmp / f"run-{self.runs}"
        run_dir.mkdir()
        event = run_dir / "event.json"
        event.write_text(payload if isinstance(payload, str) else json.dumps(payload))
        output, summary = run_dir / "output", run_dir / "summary"
        output.touch()
        summary.touch()
        settings = action_defaults()
        # No wait between two looks at a test merge not yet fresh (merge-wait-ms): a test that makes
        # GitHub "still compute" the merge does not sleep for it; a test may set it back.
        settings.update({"coverage-file": str(self.map_manifest), "merge-wait-ms": "0"})
        settings.update(inputs or {})
        token = token or self.fake.token
        env = {
            **{f"INPUT_{name.upper()}": value for name, value in settings.items()},
            "INPUT_GITHUB-TOKEN": token,
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_SHA": sha,
            "GITHUB_SERVER_URL": server_url,
            "GITHUB_RUN_ID": RUN_ID,
            **self.fake.env(),
        }
        self.started = time.monotonic()
        proc = self.execute(env, workspace, run_dir, path=path, timeout=timeout)
        result = Result(
            proc.returncode,
            proc.stdout,
            proc.stderr,
            parse_outputs(output.read_text()),
            summary.read_text(),
            workspace,
        )
        leaked = [where for where, text in self._texts(result) if token in text]
        assert not leaked, f"the token appeared in {leaked}"
        return result

    def run_target(
        self, pr: PullRequest, *, token: str | None = None, inputs: dict[str, str] | None = None
    ) -> Result:
        """``pr`` under ``pull_request_target``: the default branch's workflow on a fresh checkout of
        main (``sha`` is main's tip)."""
        payload = events.pull_request(self.project, pr)
        base, main = self.workspace(at="base"), self.project.main
        return self.run("pull_request_target", payload, base, sha=main, token=token, inputs=inputs)

    def run_pull_request(
        self, pr: PullRequest, workspace: Path, *, inputs: dict[str, str] | None = None, timeout: float = 120
    ) -> Result:
        """``pr`` under ``pull_request`` on ``workspace`` (``sha`` is the test merge, as GitHub sets it)."""
        assert pr.merge is not None
        payload = events.pull_request(self.project, pr)
        return self.run("pull_request", payload, workspace, sha=pr.merge, inputs=inputs, timeout=timeout)

    def execute(
        self, env: dict[str, str], workspace: Path, run_dir: Path, *, path: str | None, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """Run ``entrypoint.py`` directly (or its main in this process, with ``in_process``), with the
        host paths of the event, the file commands and HOME (the container tier overrides this and
        runs the image instead)."""
        env = {
            **env,
            "GITHUB_EVENT_PATH": str(run_dir / "event.json"),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_OUTPUT": str(run_dir / "output"),
            "GITHUB_STEP_SUMMARY": str(run_dir / "summary"),
            "HOME": str(self.home),
            "PATH": path or f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        }
        if self.in_process:
            ran = run_action(env, workspace)
            return subprocess.CompletedProcess([], ran.status, ran.stdout, ran.stderr)
        return subprocess.run(
            [sys.executable, str(ENTRYPOINT)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def seconds_to_first_check(self) -> float | None:
        """From the last run's start to the first check run posted (None: none was)."""
        posts = self.fake.log("POST", "/repos/*/check-runs")
        return posts[0].at - self.started if posts else None

    @staticmethod
    def _texts(result: Result) -> list[tuple[str, str]]:
        texts = [
            ("stdout", result.stdout),
            ("stderr", result.stderr),
            ("summary", result.summary),
            ("outputs", json.dumps(result.outputs)),
        ]
        verdict = result.workspace / "verdict.json"
        if verdict.is_file():
            texts.append(("verdict.json", verdict.read_text()))
        config = result.workspace / ".git" / "config"
        texts.append((".git/config", config.read_text()))
        return texts


def owned_by_another_user(path: Path) -> bool:
    return path.stat().st_uid == OTHER_UID
