"""Golden renderings of one verdict (JSON and text), byte for byte.

The repository's commits have fixed authors and dates, and the map is a JSON file
with repo-relative paths, so the SHAs and digests in the output are the same on
every machine. Refresh after an intended change of the output with:

    ORACLE_GATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/integration/test_golden.py

and review the diff of tests/golden/ before committing it (tests/golden/README.md lists every file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle_gate.render.formats import format_verdict
from tests.support.factories import TEST_FILE, Project, other_frozen_runs, write_json_map
from tests.support.golden import assert_matches_golden
from tests.support.repo import Repo

MOD = "src/pkg/mod.py"


def verdict_text(project: Project, tmp_path: Path, fmt: str) -> str:
    project.new_parent(lambda repo: repo.write("oracle-gate.toml", 'ignore = ["docs/**"]\ntets = ["x/**"]\n'))

    def head(repo: Repo) -> None:
        text = repo.read(MOD)
        for old, new in (
            ("z = x - 1", "z = x - 2"),
            ("y = x + 1", "y = x + 2"),
            ("return -x", "return 0 - x"),
        ):
            text = text.replace(old, new)
        repo.write(MOD, text)
        repo.write(
            TEST_FILE, repo.read(TEST_FILE).replace("def test_live", "@pytest.mark.xfail\ndef test_live")
        )

    map_doc = {
        f"{TEST_FILE}::test_frozen": {MOD: [project.line("z = x - 1"), project.line("return z * 3")]},
        f"{TEST_FILE}::test_live": {MOD: [project.line("y = x + 1")]},
        **other_frozen_runs(),
    }
    cov = write_json_map(tmp_path / "map.json", map_doc)
    return format_verdict(project.check(project.head(head), coverage=cov), fmt)


@pytest.mark.parametrize(
    ("fmt", "name"), [("json", "verdict_fail_overlap.json"), ("text", "verdict_fail_overlap.txt")]
)
def test_verdict_matches_golden(project: Project, tmp_path: Path, fmt: str, name: str) -> None:
    """The rendered verdict equals the checked-in golden file (see the module docstring to refresh)."""
    assert_matches_golden(name, verdict_text(project, tmp_path, fmt))
