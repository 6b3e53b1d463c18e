"""SCORING.md v2, 2.5: the data files ``map`` reads must be exactly what the collector sealed
(oracle_gate.maps.inside.seal)."""

from __future__ import annotations

import json
from pathlib import Path

from oracle_gate.maps.inside.seal import seal_of, seal_problem


def pipe(*seals: dict[str, str]) -> bytes:
    return b"".join(json.dumps(s).encode() + b"\n" for s in seals)


def test_a_file_as_sealed_is_accepted_and_every_other_case_names_the_file(tmp_path: Path) -> None:
    data = tmp_path / "raw.coverage.1"
    data.write_bytes(b"rows")
    sealed = seal_of(data)
    assert seal_problem([data], pipe(sealed)) is None
    assert "sent no seal" in str(seal_problem([data], pipe()))
    assert "2 seals" in str(seal_problem([data], pipe(sealed, sealed)))
    assert "did not write" in str(seal_problem([data], pipe(sealed) + b"junk\n"))
    assert "stayed open" in str(seal_problem([data], None))
    assert "file is gone" in str(seal_problem([], pipe(sealed)))
    data.write_bytes(b"fewer rows")
    problem = str(seal_problem([data], pipe(sealed)))
    assert problem.startswith(str(data))
    assert "changed after the collector finished" in problem
