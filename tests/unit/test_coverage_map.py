"""The coverage map's pure parts: contexts, the JSON map's shape, path remapping, binding."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.errors import InputError
from oracle_gate.judge.observers import map_measured_paths, touched_observers
from oracle_gate.maps.reader.binding import binding_problems
from oracle_gate.maps.reader.data import JsonMap
from oracle_gate.maps.reader.data import test_id_of_context as id_of_context  # not a test: keep pytest off it
from oracle_gate.maps.reader.manifest import Manifest

PARENT = "p" * 40


@pytest.mark.parametrize(
    ("context", "test_id"),
    [
        ("tests/t.py::test_a|run", "tests/t.py::test_a"),
        ("tests/t.py::test_a|setup", "tests/t.py::test_a"),
        ("tests/t.py::test_a[x|y]|run", "tests/t.py::test_a[x|y]"),  # only the last | is the phase
        ("tests/t.py::test_a", "tests/t.py::test_a"),  # no phase at all
        ("", ""),  # import/collection time: not a test
        ("|run", ""),
    ],
)
def test_phase_suffix_is_dropped(context: str, test_id: str) -> None:
    """Everything after the last ``|`` is the phase; the empty context is no test."""
    assert id_of_context(context) == test_id


def json_map(doc: object) -> JsonMap:
    return JsonMap(Path("cov.json"), json.dumps(doc).encode())


def test_json_map_is_read_per_file() -> None:
    """The JSON map {nodeid: {path: [lines]}} is inverted to path -> line -> tests."""
    m = json_map({"t::a": {"src/m.py": [1, 2]}, "t::b": {"src/m.py": [2]}, "": {"src/m.py": [3]}})
    assert set(m.measured_files()) == {"src/m.py"}
    assert m.tests_by_line("src/m.py") == {1: {"t::a"}, 2: {"t::a", "t::b"}}  # "" observes nothing
    assert m.has_test_contexts()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"not json", "neither a coverage.py data file nor valid JSON"),
        (b"\xff\xfe", "neither a coverage.py data file nor valid JSON"),
        (json.dumps([1, 2]).encode(), "JSON map must be an object"),
        (json.dumps({"t::a": [1]}).encode(), "must be an object {path: [lines]}"),
        (json.dumps({"t::a": {"m.py": 3}}).encode(), "must be a list of positive line numbers"),
        (json.dumps({"t::a": {"m.py": [0]}}).encode(), "must be a list of positive line numbers"),
        (json.dumps({"t::a": {"m.py": ["1"]}}).encode(), "must be a list of positive line numbers"),
        (json.dumps({"t::a": {"m.py": [True]}}).encode(), "must be a list of positive line numbers"),
    ],
)
def test_json_map_of_the_wrong_shape_names_the_file(raw: bytes, problem: str) -> None:
    """A JSON map of the wrong shape is an InputError naming the file and what is wrong."""
    with pytest.raises(InputError) as caught:
        JsonMap(Path("maps/cov.json"), raw)
    assert caught.value.source == "maps/cov.json"
    assert problem in caught.value.problem
    assert "\n" not in str(caught.value)


def existing(files: Iterable[str]) -> Callable[[set[str]], set[str]]:
    known = set(files)
    return lambda candidates: candidates & known


def test_absolute_paths_map_to_repo_relative_paths() -> None:
    """A measured absolute path maps to the repo path it ends with."""
    mapping = map_measured_paths(
        ["/home/ci/work/repo/src/pkg/m.py", "C:\\ci\\repo\\src\\pkg\\m.py", "src/pkg/m.py"],
        ["src/pkg/m.py"],
        existing(["src/pkg/m.py"]),
    )
    assert mapping == {
        "src/pkg/m.py": ["/home/ci/work/repo/src/pkg/m.py", "C:\\ci\\repo\\src\\pkg\\m.py", "src/pkg/m.py"]
    }


def test_longest_trailing_run_wins() -> None:
    """When both pkg/m.py and src/pkg/m.py exist, /x/src/pkg/m.py belongs to the longer one."""
    parent = existing(["pkg/m.py", "src/pkg/m.py"])
    measured = ["/x/src/pkg/m.py", "/y/lib/pkg/m.py"]
    assert map_measured_paths(measured, ["pkg/m.py"], parent) == {"pkg/m.py": ["/y/lib/pkg/m.py"]}
    assert map_measured_paths(measured, ["src/pkg/m.py"], parent) == {"src/pkg/m.py": ["/x/src/pkg/m.py"]}
    both = map_measured_paths(measured, ["pkg/m.py", "src/pkg/m.py"], parent)
    assert both == {"pkg/m.py": ["/y/lib/pkg/m.py"], "src/pkg/m.py": ["/x/src/pkg/m.py"]}


def test_paths_naming_no_parent_file_are_dropped() -> None:
    """A measured path that names no wanted parent file maps nowhere."""
    parent = existing(["src/m.py"])
    assert map_measured_paths(["/x/other/n.py", "/x/srcm.py", "/x/m.py"], ["src/m.py"], parent) == {}


def test_trailing_separators_and_dots_still_map() -> None:
    """The cheap suffix test skips a path only when its last component cannot be the wanted name:
    paths ending in a separator or a "." component still go through the full split."""
    measured = ["/x/src/m.py/", "/x/src/m.py/.", "C:\\x\\src\\m.py\\", "/x/src/m.pyc", "/x/src/am.py"]
    mapping = map_measured_paths(measured, ["src/m.py"], existing(["src/m.py"]))
    assert mapping == {"src/m.py": ["/x/src/m.py/", "/x/src/m.py/.", "C:\\x\\src\\m.py\\"]}


def test_suffix_filter_agrees_with_the_full_split_on_random_paths() -> None:
    """The fast path and a reference (every path split) agree on paths built from tricky parts."""
    rng = random.Random(13)  # noqa: S311 -- reproducible cases, not secrets
    parts = ["src", "m.py", "am.py", ".", "", "pkg", "m.py.", "M.py", "\\", "x/m.py"]
    measured = ["/".join(rng.choice(parts) for _ in range(rng.randrange(1, 5))) for _ in range(3000)]
    wanted = ["m.py", "src/m.py", "pkg/m.py"]
    parent = existing(wanted)

    def reference(raw: str) -> str | None:
        split = [p for p in raw.replace("\\", "/").split("/") if p not in ("", ".")]
        for path in sorted(wanted, key=lambda p: -p.count("/")):
            depth = path.count("/") + 1
            if split and "/".join(split[-depth:]) == path:
                longer = {"/".join(split[-n:]) for n in range(depth + 1, len(split) + 1)}
                return None if longer & set(wanted) else path
        return None

    expected: dict[str, list[str]] = {}
    for raw in sorted(set(measured)):
        target = reference(raw)
        if target is not None:
            expected.setdefault(target, []).append(raw)
    assert map_measured_paths(measured, wanted, parent) == expected
    assert expected  # the generated paths do hit the wanted names


class MemoryReader:
    """A map reader over plain values (the MapReader protocol)."""

    def __init__(self, rows: dict[str, dict[int, set[str]]]) -> None:
        self.rows = rows

    def measured_files(self) -> Iterable[str]:
        return self.rows.keys()

    def has_test_contexts(self) -> bool:
        return True

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        return self.rows.get(measured, {})


def test_observers_merge_measured_copies_and_keep_touched_lines_only() -> None:
    """Rows of every measured copy of a file are merged; only touched lines are kept."""
    reader = MemoryReader(
        {
            "/a/src/m.py": {1: {"t::a"}, 2: {"t::a"}},
            "/b/src/m.py": {2: {"t::b"}, 9: {"t::c"}},
            "/b/other.py": {1: {"t::d"}},
        }
    )
    observers = touched_observers(reader, {"src/m.py": [2, 3, 9]}, existing(["src/m.py", "other.py"]))
    assert observers == {"src/m.py": {2: frozenset({"t::a", "t::b"}), 9: frozenset({"t::c"})}}


def manifest(**kw: object) -> Manifest:
    values: dict[str, Any] = {
        "path": Path("m.manifest.json"),
        "data": Path("m"),
        "sha": PARENT,
        "data_sha256": "d" * 64,
    }
    values.update(kw)
    return Manifest(**values)


def test_binding_by_coverage_sha_or_manifest() -> None:
    """A map is bound by --coverage-sha equal to the parent or by a manifest of the parent."""
    problems = functools.partial(
        binding_problems, parent=PARENT, digest="d" * 64, allow_failing_parent=False, source="m"
    )
    assert problems(claimed_sha=PARENT, manifest=None) == []
    assert problems(claimed_sha=None, manifest=manifest()) == []


@pytest.mark.parametrize(
    ("claimed", "man", "problem"),
    [
        (None, None, "not bound to a commit"),
        ("c" * 40, None, "bound to " + "c" * 40 + ", not to the parent"),
        (None, manifest(sha="c" * 40), "binds the map to " + "c" * 40),
        (None, manifest(data_sha256="e" * 64), "does not match the manifest's"),
        (None, manifest(tests_passed=False), "test run failed"),
    ],
    ids=["unbound", "wrong-sha", "manifest-wrong-sha", "manifest-wrong-digest", "failing-parent"],
)
def test_binding_problems(claimed: str | None, man: Manifest | None, problem: str) -> None:
    """An unbound map, a map bound elsewhere, a digest mismatch or a failed run is not usable."""
    problems = binding_problems(
        parent=PARENT,
        claimed_sha=claimed,
        manifest=man,
        digest="d" * 64,
        allow_failing_parent=False,
        source="m",
    )
    assert len(problems) == 1
    assert problem in str(problems[0])
    assert problems[0].source == ("m" if man is None else str(man.path))


def test_allow_failing_parent_accepts_a_failed_run() -> None:
    """--allow-failing-parent accepts a manifest that records a failing parent run."""
    assert (
        binding_problems(
            parent=PARENT,
            claimed_sha=None,
            manifest=manifest(tests_passed=False),
            digest="d" * 64,
            allow_failing_parent=True,
            source="m",
        )
        == []
    )
