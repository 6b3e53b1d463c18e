"""action.yml, the code that reads it and docs/action.md say the same thing."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.workflow_io import OUTPUT_NAMES
from oracle_gate.github.defaults import (
    DEFAULT_CHECK_NAME,
    DEFAULT_MAX_API_WRITES,
    MAX_ANNOTATIONS_PER_RUN,
    CommentMode,
)

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
DOCS = (ROOT / "docs" / "action.md").read_text()


def _table(section: str) -> dict[str, str]:
    """First column (a code span) -> second column of the first table under ``## section``."""
    body = DOCS.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)` \| ([^|]*) \|", body, re.M)
    return {name: value.strip() for name, value in rows}


def test_docs_list_every_input_with_its_default() -> None:
    documented = _table("Inputs")
    assert set(documented) == set(ACTION["inputs"])
    for name, spec in ACTION["inputs"].items():
        assert documented[name] == f"`{spec.get('default', '')}`" or (
            documented[name] == '`""`' and spec.get("default", "") == ""
        ), name


def test_docs_and_the_code_list_every_output() -> None:
    assert list(ACTION["outputs"]) == list(OUTPUT_NAMES)
    assert list(_table("Outputs")) == list(OUTPUT_NAMES)


def test_every_input_is_read_by_the_config() -> None:
    source = inspect.getsource(ActionConfig.from_environ)
    for name in ACTION["inputs"]:
        assert f'input_value(env, "{name}")' in source, name


def test_the_action_runs_the_entrypoint_in_docker() -> None:
    assert ACTION["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert 'ENTRYPOINT ["python", "-P", "/action/entrypoint.py"]' in (ROOT / "Dockerfile").read_text()


def test_action_yml_defaults_are_the_codes_defaults() -> None:
    """The check name and the comment mode have one home in the code; action.yml repeats them."""
    assert ACTION["inputs"]["check-name"]["default"] == DEFAULT_CHECK_NAME
    assert ACTION["inputs"]["comment"]["default"] == CommentMode.ON_CHANGE
    assert ActionConfig.check_name == DEFAULT_CHECK_NAME
    assert ACTION["inputs"]["max-annotations"]["default"] == str(MAX_ANNOTATIONS_PER_RUN)
    assert ACTION["inputs"]["max-api-writes"]["default"] == str(DEFAULT_MAX_API_WRITES)
    for mode in CommentMode:
        assert mode in ACTION["inputs"]["comment"]["description"]
