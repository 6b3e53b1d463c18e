"""``oracle-gate map --combine``: merge maps measured at one commit (shards, whole maps) into one."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.errors import InputError
from oracle_gate.maps.combine_stability import combined_stability
from oracle_gate.maps.inside.outcomes import combined_facts
from oracle_gate.maps.inside.shards import COVERAGE_COLLECTOR
from oracle_gate.maps.mapfile import (
    MAX_LISTED,
    MapError,
    MapResult,
    map_test_ids,
    merge_parts,
    now,
    publish_map,
)
from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest, locate, manifest_beside
from oracle_gate.maps.reader.provenance import PRODUCER_KEY, Producer
from oracle_gate.maps.reader.unstable import REPEAT_KEY


def combine_maps(inputs: Sequence[Path], out: Path, *, producer: Producer | None = None) -> MapResult:
    """Merge maps measured at one commit (a full set of shards, whole maps, or both) into ``out``.

    Every input needs its manifest; the data must match its digest; all must
    name the same commit and coverage.py version; shards must form complete
    sets (1..N, each once), since a missing shard would silently drop tests; all must have been
    run the same number of times (``--repeat``), and their ``unstable`` observations are kept
    (:mod:`oracle_gate.maps.combine_stability`).

    The combined map's ``producer`` is the combining run; each input's producer is kept in its
    ``combined`` entry, so a reader trusts the combined map only when every part is trusted too.
    """
    if not inputs:
        raise MapError("--combine needs at least one map to merge")
    manifests = [_shard_manifest(path) for path in inputs]
    first = manifests[0]
    for m in manifests[1:]:
        if m.sha != first.sha:
            raise MapError(
                f"{m.path}: measured at {m.sha[:12]}, but {first.path} at {first.sha[:12]}; not combined"
            )
        if m.coverage_version != first.coverage_version:
            raise MapError(
                f"{m.path}: measured with coverage.py {m.coverage_version}, but {first.path} with "
                f"{first.coverage_version}; not combined"
            )
    _check_shard_sets(manifests)
    collector = _one_collector(manifests)
    stability = combined_stability(manifests)
    started = time.monotonic()
    from coverage import CoverageData
    from coverage.exceptions import CoverageException

    with tempfile.TemporaryDirectory(prefix="oracle-gate-combine-") as tmp:
        built = Path(tmp) / "map.coverage"
        merged = CoverageData(basename=str(built))
        try:
            merge_parts(merged, [m.data for m in manifests])
            merged.close()
        except (CoverageException, sqlite3.Error) as exc:
            raise MapError(f"cannot combine the maps: {exc}") from exc
        if not map_test_ids(built):
            raise MapError("the combined map has no test contexts; nothing was written")
        tests = [m.tests for m in manifests]
        commands = {m.command for m in manifests}
        manifest = Manifest(
            path=manifest_beside(out),
            data=out,
            sha=first.sha,
            data_sha256="",
            coverage_version=first.coverage_version,
            command=commands.pop() if len(commands) == 1 else (),
            tests_passed=all(m.tests_passed for m in manifests),
            tests=sum(t for t in tests if t is not None) if None not in tests else None,
            exit_status=None,
            shard=None,
            tests_ran=combined_tests_ran(manifests),
            producer=producer,
            extra={
                "created": now(),
                "gate_version": __version__,
                "combined": [
                    {
                        "data": m.data.name,
                        "data_sha256": m.data_sha256,
                        "shard": {"index": m.shard[0], "total": m.shard[1]} if m.shard else None,
                        "tests": m.tests,
                        "tests_passed": m.tests_passed,
                        "exit_status": m.exit_status,
                        "command": list(m.command),
                        REPEAT_KEY: m.extra.get(REPEAT_KEY),
                        PRODUCER_KEY: m.producer.to_document() if m.producer else None,
                    }
                    for m in manifests
                ],
                "collector": collector,
                "python": first.extra.get("python"),
                "failed": sorted({str(t) for m in manifests for t in m.extra.get("failed", [])})[:MAX_LISTED],
                **combined_facts([m.extra for m in manifests]),
                **stability,
            },
        )
        publish_map(built, manifest)
    return MapResult(
        data=out,
        manifest=manifest.path,
        sha=first.sha,
        tests=manifest.tests or 0,
        tests_passed=manifest.tests_passed,
        seconds=time.monotonic() - started,
    )


def _shard_manifest(path: Path) -> Manifest:
    try:
        data, manifest = locate(path)
        if manifest is None:
            raise MapError(
                f"{path}: no map manifest beside it ({data.name}{MANIFEST_SUFFIX}); only maps made by "
                "'oracle-gate map' can be combined (the manifest says which commit they measured)"
            )
        raw = manifest.data.read_bytes()
    except InputError as exc:
        raise MapError(str(exc)) from exc
    except OSError as exc:
        raise MapError(f"{path}: cannot read the map data ({exc.strerror or exc})") from exc
    if hashlib.sha256(raw).hexdigest() != manifest.data_sha256:
        raise MapError(f"{manifest.data}: its sha256 does not match its manifest {manifest.path.name}")
    return manifest


def _one_collector(manifests: Sequence[Manifest]) -> str:
    """The collector all the maps were measured with (coverage.py for maps that do not say)."""
    named = [(str(m.extra.get("collector") or COVERAGE_COLLECTOR), m.path) for m in manifests]
    for collector, path in named[1:]:
        if collector != named[0][0]:
            raise MapError(
                f"{path}: measured with the {collector} collector, but {named[0][1]} with {named[0][0]}; "
                "not combined (measure every part the same way)"
            )
    return named[0][0]


def _check_shard_sets(manifests: Sequence[Manifest]) -> None:
    shards = [(m.shard, m.path) for m in manifests if m.shard is not None]
    totals = sorted({total for (_, total), _ in shards})
    if len(totals) > 1:
        splits = ", ".join(f"N={n}" for n in totals)
        raise MapError(f"shards of different splits ({splits}); not combined")
    if not totals:
        return
    total = totals[0]
    seen: dict[int, Path] = {}
    for (index, _), path in shards:
        if index in seen:
            raise MapError(f"{path}: shard {index}/{total} given twice (also {seen[index]})")
        seen[index] = path
    missing = sorted(set(range(1, total + 1)) - set(seen))
    if missing:
        listed = ", ".join(f"{i}/{total}" for i in missing)
        raise MapError(f"shard(s) {listed} missing: a map without them would silently drop their tests")


def combined_tests_ran(manifests: Sequence[Manifest]) -> tuple[str, ...] | None:
    """v2: the union of the shards' test ids that ran; None when a shard did not record them."""
    if any(m.tests_ran is None for m in manifests):
        return None
    return tuple(sorted({t for m in manifests for t in m.tests_ran or ()}))
