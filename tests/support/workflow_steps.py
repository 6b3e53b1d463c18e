"""Run a workflow's ``run:`` steps here, in bash, as a runner would: one job at a time, in a clean
clone, each step's ``env`` evaluated from a small context, ``GITHUB_OUTPUT`` read back as the
step's outputs.

Only what these tests need of GitHub's expression language: a step's ``env`` values and its
``if`` may hold ``${{ name.path }}`` references to names the caller gives (``github.ref_name``,
``needs.image.outputs.digest``, ...) and ``steps.ID.outputs.NAME`` of earlier steps. Anything else
(a function call, an operator) is an error, never silently empty: a new step that needs more must
be taught here, or the test stops covering it.

A ``uses:`` step is emulated by a function the caller names for its action, or skipped with a
reason the caller gives; an action with neither is an error.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

ROOT = Path(__file__).resolve().parents[2]
EXPRESSION = re.compile(r"\$\{\{\s*(?P<name>[A-Za-z_][\w.-]*)\s*\}\}")
STEP_TIMEOUT = 600


class WorkflowStepError(AssertionError):
    """A step failed, or the workflow asks for something these tests cannot emulate."""


@dataclass
class Job:
    """One job's state while its steps run."""

    name: str
    workdir: Path
    context: dict[str, str]  # expression name -> value
    env: dict[str, str]  # the process environment of every step
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # step id -> outputs
    ran: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # step label -> why

    def value(self, name: str) -> str:
        parts = name.split(".")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        if name in self.context:
            return self.context[name]
        raise WorkflowStepError(f"job {self.name}: no value for ${{{{ {name} }}}} in this test")

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m["name"]), text)


Emulator = Callable[[Job, dict[str, Any]], None]


def load_jobs(workflow: Path) -> dict[str, dict[str, Any]]:
    jobs: dict[str, dict[str, Any]] = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]
    return jobs


def label(step: dict[str, Any]) -> str:
    return str(step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0])


def run_step(job: Job, step: dict[str, Any]) -> None:
    """One ``run:`` step with bash, as GitHub runs it (``bash --noprofile --norc -eo pipefail``)."""
    output = job.workdir.parent / f".github-output-{len(job.ran)}"
    output.write_text("")
    env = {**job.env, "GITHUB_OUTPUT": str(output)}
    env.update({key: job.expand(str(value)) for key, value in (step.get("env") or {}).items()})
    script = str(step["run"])
    if EXPRESSION.search(script):
        raise WorkflowStepError(f"{label(step)}: an expression inside run: (pass it through env)")
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=job.workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise WorkflowStepError(
            f"job {job.name}, step {label(step)!r} exited {proc.returncode}\n"
            f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    if "id" in step:
        job.outputs[str(step["id"])] = read_outputs(output.read_text())


def read_outputs(text: str) -> dict[str, str]:
    """``name=value`` lines of a ``GITHUB_OUTPUT`` file (the heredoc form is not used here)."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def run_job(
    job: Job,
    steps: list[dict[str, Any]],
    *,
    emulate: Mapping[str, Emulator],
    needs_github: Mapping[str, str],
) -> None:
    """Run ``steps`` in order: a ``run:`` step in bash unless ``needs_github`` names it (by its
    label) with the reason; a ``uses:`` step by the emulator of its action (the ``owner/name`` before
    ``@``), or skipped when ``needs_github`` names the action."""
    for step in steps:
        if "if" in step:
            raise WorkflowStepError(f"{label(step)}: a condition this test does not evaluate")
        name = label(step)
        if "uses" in step:
            action = str(step["uses"]).split("@", 1)[0]
            if action in emulate:
                emulate[action](job, step)
                job.ran.append(name)
            elif action in needs_github:
                job.skipped[action] = needs_github[action]
            else:
                raise WorkflowStepError(f"job {job.name}: no emulation for {action}")
        elif name in needs_github:
            job.skipped[name] = needs_github[name]
        else:
            run_step(job, step)
            job.ran.append(name)


def base_env(home: Path) -> dict[str, str]:
    """A runner's environment: this machine's PATH and pip configuration, nothing of the tests'."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")
    env = {key: value for key, value in os.environ.items() if key in keep or key.startswith("PIP_")}
    env.update({"HOME": str(home), "CI": "true", "GITHUB_ACTIONS": "true"})
    # pip's download cache stays this machine's (a runner's is empty, but only slower for it)
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    return env


def copy_of_this_tree(dest: Path) -> Path:
    """This working tree's tracked and new (not ignored) files, copied to ``dest``: what a clean
    clone would hold once the work in progress is committed."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    dest.mkdir(parents=True, exist_ok=True)
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file() or source.is_symlink():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    return dest
