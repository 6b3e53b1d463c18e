"""The Action's configuration, read once from the environment GitHub gives a Docker action.

Inputs arrive as ``INPUT_<NAME>`` with the name upper-cased and its hyphens
kept (``github-token`` -> ``INPUT_GITHUB-TOKEN``). Every field has its own
``clean_<field>`` validator raising :class:`~oracle_gate.errors.UsageError` with one
line naming the input. The token is excluded from ``repr`` and never printed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from oracle_gate.errors import UsageError
from oracle_gate.github.defaults import (
    DEFAULT_API_URL,
    DEFAULT_CHECK_NAME,
    DEFAULT_MAX_API_WRITES,
    DEFAULT_TIME_BUDGET,
    MAX_ANNOTATIONS_PER_RUN,
    CommentMode,
    is_repository,
)
from oracle_gate.github.limits import ANNOTATIONS_PER_REQUEST
from oracle_gate.judge.verdict import Outcome
from oracle_gate.review.settings import SETTINGS, default

VERDICTS = tuple(Outcome)


def input_value(env: Mapping[str, str], name: str) -> str:
    """The raw value of an action input (hyphens kept, as GitHub sets it)."""
    return env.get(f"INPUT_{name.upper().replace(' ', '_')}", "").strip()


@dataclass(frozen=True)
class ActionConfig:
    token: str = field(repr=False)
    repository: str
    event_name: str
    event_path: Path
    sha: str
    workspace: Path
    api_url: str = DEFAULT_API_URL
    server_url: str = "https://github.com"
    run_url: str | None = None
    run_id: str | None = None  # GITHUB_RUN_ID: a map this very run built is trusted (map_trust)
    working_directory: str = "."
    coverage_file: str | None = None
    coverage_sha: str | None = None
    coverage_command: str | None = None
    protected: tuple[str, ...] = ()
    check_name: str = DEFAULT_CHECK_NAME
    comment: CommentMode = CommentMode.ON_CHANGE
    comment_author: str | None = None
    fail_on: frozenset[str] = frozenset({Outcome.FAIL, Outcome.UNSCORED})
    allow_failing_parent: bool = False
    allowed_bases: tuple[str, ...] = ()  # empty: the repository's default branch (oracle_gate.review.bases)
    trust_same_run_map: bool = False  # under pull_request, trust a map this run built (map_trust)
    output_path: Path | None = None
    summary_path: Path | None = None
    time_budget: int = DEFAULT_TIME_BUDGET
    max_annotations: int = MAX_ANNOTATIONS_PER_RUN
    max_api_writes: int = DEFAULT_MAX_API_WRITES
    max_changed_bytes: int = int(default("max-changed-bytes"))  # oracle_gate.review.budget
    merge_wait: float = int(default("merge-wait-ms")) / 1000  # seconds between looks (review.freshness)

    @property
    def repo_dir(self) -> Path:
        return self.workspace / self.working_directory

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @classmethod
    def from_environ(cls, env: Mapping[str, str]) -> ActionConfig:
        workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
        server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        repository = clean_repository(env.get("GITHUB_REPOSITORY", ""))
        run_id = env.get("GITHUB_RUN_ID", "")
        max_annotations = clean_count("max-annotations", input_value(env, "max-annotations"))
        max_api_writes = clean_max_api_writes(input_value(env, "max-api-writes"), max_annotations)
        numeric_run_id = run_id.isascii() and run_id.isdigit()
        return cls(
            token=clean_token(input_value(env, "github-token")),
            repository=repository,
            event_name=clean_required("GITHUB_EVENT_NAME", env.get("GITHUB_EVENT_NAME", "")),
            event_path=Path(clean_required("GITHUB_EVENT_PATH", env.get("GITHUB_EVENT_PATH", ""))),
            sha=clean_required("GITHUB_SHA", env.get("GITHUB_SHA", "")),
            workspace=workspace,
            api_url=clean_url("GITHUB_API_URL", env.get("GITHUB_API_URL") or DEFAULT_API_URL),
            server_url=server,
            run_url=f"{server}/{repository}/actions/runs/{run_id}" if numeric_run_id else None,
            run_id=run_id if numeric_run_id else None,
            working_directory=clean_working_directory(
                input_value(env, "working-directory") or default("working-directory")
            ),
            coverage_file=input_value(env, "coverage-file") or None,
            coverage_sha=input_value(env, "coverage-sha") or None,
            coverage_command=input_value(env, "coverage-command") or None,
            protected=clean_protected(input_value(env, "protected")),
            check_name=clean_check_name(input_value(env, "check-name") or default("check-name")),
            comment=clean_comment(input_value(env, "comment")),
            comment_author=clean_login("comment-author", input_value(env, "comment-author")),
            fail_on=clean_fail_on(input_value(env, "fail-on") or default("fail-on")),
            allow_failing_parent=clean_flag("allow-failing-parent", input_value(env, "allow-failing-parent")),
            allowed_bases=clean_allowed_bases(input_value(env, "allowed-bases")),
            trust_same_run_map=clean_flag("trust-same-run-map", input_value(env, "trust-same-run-map")),
            output_path=_optional_path(env.get("GITHUB_OUTPUT")),
            summary_path=_optional_path(env.get("GITHUB_STEP_SUMMARY")),
            time_budget=clean_count("time-budget", input_value(env, "time-budget")),
            max_annotations=max_annotations,
            max_api_writes=max_api_writes,
            max_changed_bytes=clean_count("max-changed-bytes", input_value(env, "max-changed-bytes")),
            merge_wait=clean_count("merge-wait-ms", input_value(env, "merge-wait-ms")) / 1000,
        )


def _optional_path(value: str | None) -> Path | None:
    return Path(value) if value else None


def clean_token(value: str) -> str:
    if not value:
        raise UsageError("input 'github-token' is empty (the default is ${{ github.token }})")
    if any(c.isspace() for c in value):
        raise UsageError("input 'github-token' contains whitespace")
    return value


def clean_required(name: str, value: str) -> str:
    if not value:
        raise UsageError(f"{name} is not set: run oracle-gate as a GitHub Action step")
    return value


def clean_repository(value: str) -> str:
    if not is_repository(value):
        raise UsageError(f"GITHUB_REPOSITORY must be OWNER/NAME, got {value!r}")
    return value


def clean_url(name: str, value: str) -> str:
    if not re.match(r"https?://", value):
        raise UsageError(f"{name} must be an http(s) URL, got {value!r}")
    return value.rstrip("/")


def clean_working_directory(value: str) -> str:
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts:
        raise UsageError(f"input 'working-directory' must be a path inside the workspace, got {value!r}")
    return str(path)


def split_list(value: str) -> list[str]:
    """Items separated by newlines or commas, blanks dropped."""
    return [item.strip() for item in re.split(r"[\n,]", value) if item.strip()]


def clean_protected(value: str) -> tuple[str, ...]:
    globs = split_list(value)
    bad = [g for g in globs if g.startswith("!")]
    if bad:
        raise UsageError(f"input 'protected' can only add globs; negation {bad[0]!r} is not allowed")
    return tuple(globs)


def clean_allowed_bases(value: str) -> tuple[str, ...]:
    """Branch names (newline or comma separated); a glob or a ref path is not a branch name here."""
    setting = SETTINGS["allowed-bases"]
    return setting.branches(value, setting.input)


def clean_check_name(value: str) -> str:
    if len(value) > 100:
        raise UsageError("input 'check-name' is longer than 100 characters")
    return value


def clean_login(name: str, value: str) -> str | None:
    """A GitHub login (``github-actions[bot]`` style bot names included), or None when empty."""
    if not value:
        return None
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?", value):
        raise UsageError(f"input '{name}' must be a GitHub login, got {value!r}")
    return value


def clean_fail_on(value: str) -> frozenset[str]:
    items = split_list(value)
    if items == ["none"]:
        return frozenset()
    unknown = [i for i in items if i not in VERDICTS]
    if unknown or not items:
        raise UsageError(
            f"input 'fail-on' takes verdicts from {', '.join(VERDICTS)} (or 'none'); got {value!r}"
        )
    return frozenset(items)


def clean_comment(value: str) -> CommentMode:
    """The input ``comment`` as the table's setting parses it (its default when empty)."""
    setting = SETTINGS["comment"]
    return setting.comment(value, setting.input)


def clean_flag(name: str, value: str) -> bool:
    """The input ``name``: true or false, in any case (its default when empty)."""
    setting = SETTINGS[name]
    return setting.flag(value, setting.input)


def clean_count(name: str, value: str | None) -> int:
    """The input ``name`` as the table's setting parses it: a whole number within its bounds (digits
    only: no sign, no exponent, no spaces); its default when empty."""
    setting = SETTINGS[name]
    return setting.whole(value or "", setting.input)


def annotation_writes(max_annotations: int) -> int:
    """The write requests that posting ``max_annotations`` annotations takes (at least the check run)."""
    return max(1, -(-max_annotations // ANNOTATIONS_PER_REQUEST))


def clean_max_api_writes(value: str, max_annotations: int) -> int:
    """Enough writes for the check run with every annotation allowed, and one for the sticky comment."""
    writes = clean_count("max-api-writes", value)
    needed = annotation_writes(max_annotations) + 1
    if writes < needed:
        raise UsageError(
            f"input 'max-api-writes' is {writes}: posting {max_annotations} annotations (max-annotations, "
            f"{ANNOTATIONS_PER_REQUEST} per request) and the sticky comment takes at least {needed}"
        )
    return writes
