"""``map --combine`` keeps contract v3.4's record: the parts' ``unstable`` observations, united, and
their one ``repeat`` count; parts run a different number of times, or a part whose record of what
differed went missing, are refused without writing anything."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from coverage import CoverageData

from oracle_gate.maps.combine import combine_maps
from oracle_gate.maps.mapfile import MapError
from oracle_gate.maps.reader.manifest import Manifest, read_manifest

ONE, TWO = "tests/test_a.py::test_one", "tests/test_b.py::test_two"
ROWS = {1: {f"{ONE}|run": {"src/m.py": [1, 2]}}, 2: {f"{TWO}|run": {"src/m.py": [2, 3]}}}
ABSENT = object()  # the key is not in the manifest at all


def shard(tmp_path: Path, index: int, *, repeat: object = ABSENT, unstable: object = ABSENT) -> Path:
    """Shard ``index`` of 2, its manifest recording ``repeat`` and ``unstable`` as given."""
    path = tmp_path / f"s{index}.coverage"
    data = CoverageData(basename=str(path))
    for context, files in ROWS[index].items():
        data.set_context(context)
        data.add_lines({name: dict.fromkeys(lines) for name, lines in files.items()})
    data.close()
    extra = {key: value for key, value in (("repeat", repeat), ("unstable", unstable)) if value is not ABSENT}
    manifest = Manifest(
        path=path.with_name(path.name + ".manifest.json"),
        data=path,
        sha="a" * 40,
        data_sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        coverage_version="7.17.5",
        command=("pytest",),
        tests_passed=True,
        tests=1,
        exit_status=0,
        shard=(index, 2),
        extra=extra,
    )
    manifest.path.write_text(json.dumps(manifest.to_document()))
    return path


def combined(tmp_path: Path, *parts: Path) -> dict[str, Any]:
    result = combine_maps(parts, tmp_path / "out" / "map.coverage")
    return dict(read_manifest(result.manifest).extra)


def test_the_parts_unstable_observations_are_united(tmp_path: Path) -> None:
    one = shard(tmp_path, 1, repeat=2, unstable={ONE: {"src/m.py": [2]}})
    two = shard(tmp_path, 2, repeat=2, unstable={TWO: {"src/m.py": [3], "src/n.py": [7]}})
    extra = combined(tmp_path, one, two)
    assert extra["repeat"] == 2
    assert extra["unstable"] == {ONE: {"src/m.py": [2]}, TWO: {"src/m.py": [3], "src/n.py": [7]}}
    assert [part["repeat"] for part in extra["combined"]] == [2, 2]


def test_one_test_in_two_whole_maps_gets_the_union_of_its_lines(tmp_path: Path) -> None:
    one = shard(tmp_path, 1, repeat=3, unstable={ONE: {"src/m.py": [4, 2]}})
    two = shard(tmp_path, 2, repeat=3, unstable={ONE: {"src/m.py": [2, 9]}})
    assert combined(tmp_path, one, two)["unstable"] == {ONE: {"src/m.py": [2, 4, 9]}}


def test_parts_run_twice_with_nothing_unstable_say_so(tmp_path: Path) -> None:
    extra = combined(
        tmp_path, shard(tmp_path, 1, repeat=2, unstable={}), shard(tmp_path, 2, repeat=2, unstable={})
    )
    assert (extra["repeat"], extra["unstable"]) == (2, {})


def test_parts_run_once_stay_a_map_run_once(tmp_path: Path) -> None:
    extra = combined(tmp_path, shard(tmp_path, 1, repeat=1), shard(tmp_path, 2))  # no repeat: one run
    assert extra["repeat"] == 1
    assert "unstable" not in extra


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (
            {"repeat": 2, "unstable": {}},
            {"repeat": 1},
            r"s2.coverage.manifest.json: measured with --repeat 1, but ",
        ),
        ({"repeat": 2, "unstable": {}}, {}, r"s2.coverage.manifest.json: measured with --repeat 1, but "),
        (
            {"repeat": 1},
            {"repeat": 3, "unstable": {}},
            r"measured with --repeat 3, but .*s1.coverage.manifest.json",
        ),
        # the record of what differed went missing: it must not read as "nothing was unstable"
        (
            {"repeat": 2, "unstable": {ONE: {"src/m.py": [2]}}},
            {"repeat": 2},
            "records --repeat 2 but no 'unstable'",
        ),
        (
            {"repeat": 2, "unstable": {}},
            {"repeat": 2, "unstable": None},
            "records --repeat 2 but no 'unstable'",
        ),
        ({"repeat": 2, "unstable": {}}, {"repeat": 2, "unstable": {TWO: [3]}}, "'unstable'"),
        ({"repeat": 2, "unstable": {}}, {"repeat": "2", "unstable": {}}, "'repeat' must be a whole number"),
        ({"repeat": True}, {"repeat": 1}, "'repeat' must be a whole number"),
        ({"repeat": 0}, {"repeat": 0}, "'repeat' must be a whole number"),
    ],
)
def test_parts_that_cannot_be_combined_are_refused_naming_the_manifest(
    tmp_path: Path, first: dict[str, object], second: dict[str, object], message: str
) -> None:
    one, two = shard(tmp_path, 1, **first), shard(tmp_path, 2, **second)
    out = tmp_path / "map.coverage"
    out.write_bytes(b"a good map from before")
    with pytest.raises(MapError, match=message) as caught:
        combine_maps([one, two], out)
    assert "\n" not in str(caught.value)
    assert "not combined" in str(caught.value)
    assert out.read_bytes() == b"a good map from before"
    assert not out.with_name("map.coverage.manifest.json").exists()
