"""Map manifests, shard sets and combining, on coverage.py data files made with its own API."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import TypedDict

import pytest
from coverage import CoverageData

from oracle_gate.errors import InputError
from oracle_gate.files import MAX_MANIFEST_BYTES
from oracle_gate.judge.freeze import nodeid_matches
from oracle_gate.maps.combine import combine_maps
from oracle_gate.maps.command import TerminalProgress
from oracle_gate.maps.inside.shards import parse_shard, shard_of
from oracle_gate.maps.mapfile import MapError
from oracle_gate.maps.reader.binding import binding_problems, listed_test_matching, unseen_frozen
from oracle_gate.maps.reader.data import EarlyMapRead, open_map
from oracle_gate.maps.reader.manifest import Manifest, locate, read_manifest
from oracle_gate.maps.reader.mapbytes import EarlyHash, read_map_bytes
from oracle_gate.maps.reader.sqlite_map import test_id_of_context as id_of_context
from oracle_gate.maps.runner import RunReport

SHA_A = "a" * 40
SHA_B = "b" * 40

Rows = dict[str, dict[str, list[int]]]  # context -> path -> lines


def write_data(path: Path, rows: Rows) -> Path:
    data = CoverageData(basename=str(path))
    data.add_lines({})
    for context, files in rows.items():
        data.set_context(context)
        data.add_lines({name: dict.fromkeys(lines) for name, lines in files.items()})
    data.close()
    return path


class MapOptions(TypedDict, total=False):
    """Keyword arguments of :func:`write_map`, for parametrized cases."""

    sha: str
    shard: tuple[int, int] | None
    version: str
    passed: bool


def write_map(
    path: Path,
    rows: Rows,
    *,
    sha: str = SHA_A,
    shard: tuple[int, int] | None = None,
    version: str = "7.17.5",
    passed: bool = True,
) -> Path:
    write_data(path, rows)
    manifest = Manifest(
        path=path.with_name(path.name + ".manifest.json"),
        data=path,
        sha=sha,
        data_sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        coverage_version=version,
        command=("pytest",),
        tests_passed=passed,
        tests=len(rows),
        exit_status=0 if passed else 1,
        shard=shard,
    )
    manifest.path.write_text(json.dumps(manifest.to_document()))
    return path


def contexts_per_line(path: Path) -> dict[str, dict[int, set[str]]]:
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    result = {
        name: {line: set(ctx) for line, ctx in data.contexts_by_lineno(name).items()}
        for name in data.measured_files()
    }
    data.close()
    return result


SHARD_1: Rows = {"tests/test_a.py::test_one|run": {"src/m.py": [1, 2]}}
SHARD_2: Rows = {"tests/test_b.py::test_two|run": {"src/m.py": [2, 3]}}


def test_manifest_round_trips_through_its_reader(tmp_path: Path) -> None:
    """What the writer puts down, read_manifest reads back, informational fields included."""
    original = Manifest(
        path=tmp_path / "m.coverage.manifest.json",
        data=tmp_path / "m.coverage",
        sha=SHA_A,
        data_sha256="ab" * 32,
        coverage_version="7.17.5",
        command=("python", "-m", "pytest"),
        tests_passed=False,
        tests=12,
        exit_status=1,
        shard=(2, 3),
        extra={"failed": ["tests/t.py::test_x"], "created": "2025-01-01T00:00:00Z"},
    )
    original.path.write_text(json.dumps(original.to_document()))
    back = read_manifest(original.path)
    assert back == original
    assert back.extra["failed"] == ["tests/t.py::test_x"]
    assert json.loads(original.path.read_text())["data"] == "m.coverage"


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("schema", 2, "unsupported map manifest schema"),
        ("shard", {"index": 3, "total": 2}, "'shard' must be null"),
        ("shard", "1/2", "'shard' must be null"),
        ("tests", "12", "'tests' must be an integer"),
    ],
)
def test_manifest_reader_refuses_malformed_fields(
    tmp_path: Path, field: str, value: object, problem: str
) -> None:
    path = tmp_path / "x.manifest.json"
    doc = {"kind": "oracle-gate-map", "sha": SHA_A, "data": "x", "data_sha256": "00", field: value}
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=problem):
        read_manifest(path)


def test_a_shard_is_not_a_whole_map_for_check(tmp_path: Path) -> None:
    manifest = Manifest(path=tmp_path / "m", data=tmp_path / "d", sha=SHA_A, data_sha256="00", shard=(1, 2))
    problems = binding_problems(
        parent=SHA_A, claimed_sha=None, manifest=manifest, digest="00", allow_failing_parent=False, source="d"
    )
    assert len(problems) == 1
    assert "shard 1/2" in str(problems[0])


@pytest.mark.parametrize(("text", "expected"), [("1/4", (1, 4)), ("4/4", (4, 4)), (" 2/3 ", (2, 3))])
def test_parse_shard(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/4", "5/4", "1", "a/b", "1/0", "-1/2", "", "\u00b2/3"])
def test_parse_shard_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="shard"):
        parse_shard(text)


def test_shards_split_by_file_and_cover_every_test() -> None:
    ids = [f"tests/test_{i}.py::test_{j}" for i in range(40) for j in range(3)]
    shards = {nodeid: shard_of(nodeid, 4) for nodeid in ids}
    assert set(shards.values()) == {1, 2, 3, 4}
    for i in range(40):
        assert len({shards[f"tests/test_{i}.py::test_{j}"] for j in range(3)}) == 1
    assert shard_of("tests/test_1.py::TestA::test_y[1]", 4) == shard_of("tests/test_1.py", 4)


def test_combine_merges_shards_keeping_contexts(tmp_path: Path) -> None:
    one = write_map(tmp_path / "s1.coverage", SHARD_1, shard=(1, 2))
    two = write_map(tmp_path / "s2.coverage", SHARD_2, shard=(2, 2))
    result = combine_maps([one, two], tmp_path / "out" / "map.coverage")
    assert contexts_per_line(result.data) == {
        "src/m.py": {
            1: {"tests/test_a.py::test_one|run"},
            2: {"tests/test_a.py::test_one|run", "tests/test_b.py::test_two|run"},
            3: {"tests/test_b.py::test_two|run"},
        }
    }
    manifest = read_manifest(result.manifest)
    assert (manifest.sha, manifest.shard, manifest.tests, manifest.tests_passed) == (SHA_A, None, 2, True)
    assert manifest.data_sha256 == hashlib.sha256(result.data.read_bytes()).hexdigest()
    assert [c["shard"] for c in manifest.extra["combined"]] == [
        {"index": 1, "total": 2},
        {"index": 2, "total": 2},
    ]


def test_combine_carries_a_failing_shard_flag(tmp_path: Path) -> None:
    one = write_map(tmp_path / "s1.coverage", SHARD_1, shard=(1, 2))
    two = write_map(tmp_path / "s2.coverage", SHARD_2, shard=(2, 2), passed=False)
    result = combine_maps([one, two], tmp_path / "map.coverage")
    assert result.tests_passed is False
    assert read_manifest(result.manifest).tests_passed is False


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ({"sha": SHA_B, "shard": (2, 2)}, "measured at bbbbbbbbbbbb, but"),
        ({"version": "7.13.0", "shard": (2, 2)}, "coverage.py 7.13.0"),
        ({"shard": (1, 2)}, "shard 1/2 given twice"),
        ({"shard": (2, 3)}, "shards of different splits"),
    ],
)
def test_combine_refuses_shards_that_do_not_belong_together(
    tmp_path: Path, second: MapOptions, message: str
) -> None:
    one = write_map(tmp_path / "s1.coverage", SHARD_1, shard=(1, 2))
    two = write_map(tmp_path / "s2.coverage", SHARD_2, **second)
    out = tmp_path / "map.coverage"
    out.write_bytes(b"a good map from before")
    with pytest.raises(MapError, match=message):
        combine_maps([one, two], out)
    assert out.read_bytes() == b"a good map from before"
    assert not out.with_name("map.coverage.manifest.json").exists()


def test_combine_refuses_a_missing_shard(tmp_path: Path) -> None:
    one = write_map(tmp_path / "s1.coverage", SHARD_1, shard=(1, 3))
    two = write_map(tmp_path / "s2.coverage", SHARD_2, shard=(2, 3))
    with pytest.raises(MapError, match=r"shard\(s\) 3/3 missing"):
        combine_maps([one, two], tmp_path / "map.coverage")


def test_combine_refuses_data_without_manifest_or_with_a_wrong_digest(tmp_path: Path) -> None:
    bare = write_data(tmp_path / "bare.coverage", SHARD_1)
    with pytest.raises(MapError, match="no map manifest beside it"):
        combine_maps([bare], tmp_path / "map.coverage")
    tampered = write_map(tmp_path / "t.coverage", SHARD_1)
    write_data(tampered, SHARD_2)  # more data after the manifest was written
    with pytest.raises(MapError, match="sha256 does not match"):
        combine_maps([tampered], tmp_path / "map.coverage")


def test_combine_refuses_maps_without_test_contexts(tmp_path: Path) -> None:
    empty = write_map(tmp_path / "e.coverage", {"": {"src/m.py": [1]}})
    with pytest.raises(MapError, match="no test contexts"):
        combine_maps([empty], tmp_path / "map.coverage")


def test_run_report_reads_only_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "report.jsonl"
    report = RunReport()
    report.poll(path)  # not written yet
    path.write_text('{"event": "collected", "tests": 3, "frozen": 1}\n{"event": "test", "nod')
    report.poll(path)
    assert (report.selected, report.done) == (3, 0)
    with path.open("a") as handle:
        handle.write('eid": "t::a", "outcome": "done"}\n{"event": "finish", "exit_status": 0}\n')
    report.poll(path)
    assert report.done == 1
    assert report.finish == {"event": "finish", "exit_status": 0}


def test_terminal_progress_draws_a_bar_when_the_total_is_known_and_a_spinner_otherwise() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(stream)
    bar(90, 360, 75.4)
    assert stream.getvalue() == "\r  [######..................] 90/360 tests  01:15\x1b[K"
    stream.truncate(0)
    stream.seek(0)
    bar(3, None, 2.0)
    assert stream.getvalue() == "\r  / 3 tests  00:02\x1b[K"


def test_the_map_modules_public_names_stay_importable_from_build() -> None:
    """oracle_gate.maps.build keeps naming what the Action imports from it (the split's seam); the
    command line's ``run_map_cli`` lives in oracle_gate.maps.command, which imports build (not the
    reverse)."""
    from oracle_gate.maps import build, combine, mapfile, runner

    assert build.combine_maps is combine.combine_maps
    assert build.default_command is runner.default_command
    assert (build.MapError, build.MapResult) == (mapfile.MapError, mapfile.MapResult)
    assert sorted(build.__all__) == [
        "MapError",
        "MapResult",
        "build_map",
        "combine_maps",
        "default_command",
    ]


def test_a_manifest_listing_fifty_thousand_tests_is_read(tmp_path: Path) -> None:
    """v2 lists every test id that ran; a 50,000-test suite's manifest is over 2 MB and must be read."""
    data = write_map(tmp_path / "big.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    ran = tuple(f"tests/test_m{i // 100:04d}.py::TestCase::test_{i}[param-{i}]" for i in range(50_000))
    manifest = read_manifest(data.with_name(data.name + ".manifest.json"))
    big = dataclasses.replace(manifest, tests_ran=ran)
    big.path.write_text(json.dumps(big.to_document()))
    assert big.path.stat().st_size > 2 * 1024 * 1024
    assert read_manifest(big.path).tests_ran == ran


def test_a_manifest_over_the_cap_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.manifest.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_MANIFEST_BYTES + 1)
    with pytest.raises(InputError) as refused:
        read_manifest(path)
    assert str(path) in str(refused.value)
    assert "limit" in str(refused.value)


def test_listed_test_matching_agrees_with_a_scan_of_every_id() -> None:
    """The bisection finds exactly what testing every listed id with ``nodeid_matches`` finds."""
    rng = random.Random(7)  # noqa: S311 -- reproducible cases, not secrets
    pieces = ["tests/test_a.py", "tests/test_ab.py", "::T", "::test_x", "[1]", "[1-2]", "::test_x[", "_y"]
    listed = sorted({"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 5))) for _ in range(400)})
    nodeids = {"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 4))) for _ in range(300)}
    outcomes = {n: listed_test_matching(listed, n) for n in sorted(nodeids)}
    assert outcomes == {n: any(nodeid_matches(n, t) for t in listed) for n in sorted(nodeids)}
    assert any(outcomes.values())
    assert not all(outcomes.values())


def test_unseen_frozen_reads_an_unsorted_manifest_list_too(tmp_path: Path) -> None:
    """A manifest written by hand need not list its test ids sorted; the answer does not change."""
    data = write_map(tmp_path / "m.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    manifest = dataclasses.replace(
        read_manifest(data.with_name(data.name + ".manifest.json")),
        tests_ran=("tests/test_z.py::test_9", "tests/test_b.py::test_1[x]", "tests/test_a.py::test_0"),
    )
    reader, _ = open_map(data)
    frozen = ["tests/test_b.py::test_1", "tests/test_z.py", "tests/test_c.py::test_2", "tests/test_a.py"]
    assert unseen_frozen(frozen, reader, manifest) == {"tests/test_c.py::test_2"}


def test_the_early_read_gives_what_locating_and_hashing_give(tmp_path: Path) -> None:
    """EarlyMapRead runs locate() and the hash on a thread: same answer, same errors."""
    data = write_map(tmp_path / "m.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    manifest_path = data.with_name(data.name + ".manifest.json")
    for given in (data, manifest_path):
        path, manifest, read = EarlyMapRead(given).result()
        assert (path, manifest) == locate(given)
        assert read == read_map_bytes(data)
        assert read.digest == hashlib.sha256(data.read_bytes()).hexdigest()
    broken = tmp_path / "broken.manifest.json"
    broken.write_text('{"kind": "oracle-gate-map", "schema": 1}')
    for given in (tmp_path / "absent.coverage", broken):
        with pytest.raises(InputError) as direct:
            read_map_bytes(locate(given)[0])
        with pytest.raises(InputError) as early:
            EarlyMapRead(given).result()
        assert str(early.value) == str(direct.value)


def test_open_map_hashes_itself_when_the_early_read_was_of_another_file(tmp_path: Path) -> None:
    one = write_map(tmp_path / "one.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    two = write_map(tmp_path / "two.coverage", {"tests/test_b.py::test_1|run": {"src/b.py": [2]}})
    _, digest = open_map(two, read_map_bytes(one))
    assert digest == hashlib.sha256(two.read_bytes()).hexdigest()


@pytest.mark.parametrize("arcs", [False, True])
def test_a_test_ran_when_a_context_it_matches_has_rows(tmp_path: Path, arcs: bool) -> None:
    """Freeze visibility without a manifest: the prefix range of contexts, then the first matching
    context that has a row; a context whose rows were purged does not count, a neighbour in the
    range (``test_10`` for ``test_1``) does not match."""
    path = tmp_path / "m.coverage"
    data = CoverageData(basename=str(path))
    for context, files in {
        "t.py::test_10|run": {"a.py": [1], "gate.py": [2]},
        "t.py::test_2|run": {"gate.py": [3]},
        "t.py::test_1[x]|run": {"a.py": [4]},
    }.items():
        data.set_context(context)
        if arcs:
            data.add_arcs({name: [(-1, n), (n, -1)] for name, n_list in files.items() for n in n_list})
        else:
            data.add_lines(files)
    data.purge_files(["gate.py"])  # test_2's only rows: its context stays, with nothing measured
    data.close()
    reader, _ = open_map(path)
    asked = ["t.py::test_1", "t.py::test_10", "t.py::test_2", "t.py::test_3", "t.py", "t.py::test_1[x]", "t"]
    answers = {nodeid: reader.ran_test_matching(nodeid) for nodeid in asked}  # type: ignore[attr-defined]
    assert answers == {
        "t.py::test_1": True,
        "t.py::test_10": True,
        "t.py::test_2": False,
        "t.py::test_3": False,
        "t.py": True,
        "t.py::test_1[x]": True,
        "t": False,
    }


def test_the_early_hash_is_used_for_the_data_file_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line hashes ``--coverage`` before importing the gate; the later read takes that
    hash for the same file and hashes nothing again."""
    data = write_map(tmp_path / "m.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    early = EarlyHash(data)
    assert early.read_of(data) == read_map_bytes(data)

    def no_second_hash(path: Path) -> object:
        raise AssertionError(f"hashed {path} again")

    monkeypatch.setattr("oracle_gate.maps.reader.data.read_map_bytes", no_second_hash)
    path, _, read = EarlyMapRead(data, early).result()
    assert (path, read.digest) == (data, hashlib.sha256(data.read_bytes()).hexdigest())


def test_the_early_hash_skips_a_manifest_and_stays_silent_on_errors(tmp_path: Path) -> None:
    """Given a manifest, the data file it names is hashed by the later read; an unreadable path is
    reported by the later read, exactly as without the early hash."""
    data = write_map(tmp_path / "m.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    manifest = data.with_name(data.name + ".manifest.json")
    assert EarlyHash(manifest).read_of(manifest) is None
    path, _, read = EarlyMapRead(manifest, EarlyHash(manifest)).result()
    assert (path, read) == (data, read_map_bytes(data))
    missing = tmp_path / "absent.coverage"
    assert EarlyHash(missing).read_of(missing) is None
    with pytest.raises(InputError) as early:
        EarlyMapRead(missing, EarlyHash(missing)).result()
    with pytest.raises(InputError) as direct:
        read_map_bytes(missing)
    assert str(early.value) == str(direct.value)


def test_a_map_that_grows_while_it_is_hashed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded work: the hash reads at most the size the file had when it was opened."""
    data = write_map(tmp_path / "m.coverage", {"tests/test_a.py::test_0|run": {"src/a.py": [1]}})
    real_fstat = os.fstat

    def shrunk(fd: int) -> os.stat_result:  # the file "was" 100 bytes when checked, then grew
        info = real_fstat(fd)
        return os.stat_result((info.st_mode, *info[1:6], 100, *info[7:10]))

    monkeypatch.setattr("oracle_gate.maps.reader.mapbytes.os.fstat", shrunk)
    with pytest.raises(InputError) as refused:
        read_map_bytes(data)
    assert str(data) in str(refused.value)
    assert "grew" in str(refused.value)


def brute_force_ran(path: Path, nodeid: str) -> bool:
    """The definition, read the slow way: some context ``nodeid`` matches has a line or arc row."""
    with closing(sqlite3.connect(path)) as con:
        tables = [
            t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE name IN ('line_bits', 'arc')")
        ]
        used = " OR ".join(f"id IN (SELECT context_id FROM {t})" for t in tables)  # noqa: S608
        rows = con.execute(f"SELECT context FROM context WHERE {used}").fetchall()  # noqa: S608
    return any(nodeid_matches(nodeid, id_of_context(c)) for (c,) in rows)


@pytest.mark.parametrize("seed", range(12))
def test_freeze_visibility_agrees_with_the_definition_whatever_the_row_order(
    tmp_path: Path, seed: int
) -> None:
    """The bisection over rowids (issue 19: no scan per freeze entry) relies on rows being written in
    context order; maps where they are not (contexts revisited, rows replaced, rows deleted) must get
    the same answers as the definition, through the fallback pass."""
    rng = random.Random(seed)  # noqa: S311 -- reproducible cases, not secrets
    path = tmp_path / "m.coverage"
    data = CoverageData(basename=str(path))
    contexts = [f"t{m}.py::test_{i}|run" for m in range(3) for i in range(12)]
    for _ in range(60):  # revisits and replacements break the context order of the rowids
        data.set_context(rng.choice(contexts))
        data.add_lines({f"f{rng.randrange(6)}.py": [rng.randrange(1, 30)]})
    data.close()
    with closing(sqlite3.connect(path)) as con:  # rows of some contexts vanish, their contexts stay
        for context_id in rng.sample(range(1, len(contexts)), 6):
            con.execute("DELETE FROM line_bits WHERE context_id = ?", (context_id,))
        con.commit()
    reader, _ = open_map(path)
    asked = [f"t{m}.py::test_{i}" for m in range(3) for i in range(14)] + ["t0.py", "t1.py", "t9.py"]
    expected = {n for n in asked if brute_force_ran(path, n)}
    assert reader.ran_tests_matching(asked) == expected  # type: ignore[attr-defined]
    assert {n for n in asked if reader.ran_test_matching(n)} == expected  # type: ignore[attr-defined]
