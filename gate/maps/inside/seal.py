"""SCORING.md v2, 2.5: the map is what the collector wrote.

The gate's collector writes its data file when the session finishes; code of the tests still runs
after that in the same process (an ``atexit`` handler, a finalizer, another plugin's
``sessionfinish``, a thread) and could rewrite the file: delete a frozen test's rows, say, so that a
later change to what only that test observes looks unobserved. So the collector *seals* what it
wrote: the moment its writer has closed the file, the plugin sends the file's name and SHA-256 down a
pipe whose other end is the ``map`` process (:data:`ENV_SEAL`; under pytest-xdist a worker hands its
seal to the controller, which sends it). What is on the pipe cannot be taken back; ``map``, which
runs no test code, checks every data file against exactly one seal before it reads any
(:func:`seal_problem`). A file without a seal, with two, or with another digest is no map.

The coverage.py path (``--cov``, ``coverage run``) has no seal: coverage.py writes its data itself,
after the plugin has finished. That path is the user's choice of measurement, and its manifest says
which collector measured.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ENV_SEAL = "ORACLE_GATE_MAP_SEAL"  # the pipe's write end (a descriptor number), in the tests' process


def seal_of(path: Path) -> dict[str, str]:
    """The seal of one data file: its name (the directory is ``map``'s) and its SHA-256."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"file": path.name, "sha256": digest.hexdigest()}


def collector_seal(collector: Any) -> dict[str, str] | None:
    """The seal of the file the (stopped) collector wrote, or None when it wrote none."""
    data = getattr(getattr(collector, "writer", None), "data", None)
    name = data.data_filename() if data is not None else None
    if not name or not os.path.isfile(name):
        return None
    return seal_of(Path(name))


def send_seals(seals: Iterable[Mapping[str, str]], environ: Mapping[str, str] | None = None) -> None:
    """Send the seals down ``map``'s pipe (nothing when ``map`` gave none: a run outside ``map``)."""
    from oracle_gate.maps.inside.pipe import write_line

    raw = (os.environ if environ is None else environ).get(ENV_SEAL, "")
    if not raw.isdigit():
        return
    lines = "".join(json.dumps(dict(seal), sort_keys=True) + "\n" for seal in seals)
    write_line(int(raw), lines.encode())


def parse_seals(data: bytes) -> tuple[list[dict[str, str]], int]:
    """The seals on the pipe, and how many lines were not seals."""
    from oracle_gate.maps.inside.pipe import json_lines

    seals: list[dict[str, str]] = []
    lines, bad = json_lines(data)
    for line in lines:
        if isinstance(line, dict) and _is_seal(line):
            seals.append({"file": line["file"], "sha256": line["sha256"]})
        else:
            bad += 1
    return seals, bad


def _is_seal(line: object) -> bool:
    return isinstance(line, dict) and all(isinstance(line.get(key), str) for key in ("file", "sha256"))


def seal_problem(data_files: Sequence[Path], pipe: bytes | None) -> str | None:
    """Why the data files are not exactly what the collector sealed, naming the file; else None."""
    if pipe is None:
        return (
            "the collector's seal pipe stayed open after the test command exited (a process the tests "
            "started still holds it), so nothing shows the data is what the collector wrote"
        )
    seals, bad = parse_seals(pipe)
    if bad:
        return f"the collector's seal pipe holds {bad} line(s) the collector did not write"
    by_name: dict[str, list[str]] = {}
    for seal in seals:
        by_name.setdefault(seal["file"], []).append(seal["sha256"])
    problem = _file_problem(data_files, by_name)
    if problem is None and by_name:
        return f"{sorted(by_name)[0]}: the collector sealed it, but the file is gone"
    return problem


def _file_problem(data_files: Sequence[Path], by_name: dict[str, list[str]]) -> str | None:
    """The first data file that is not exactly as sealed (each checked one is taken out of ``by_name``)."""
    for path in data_files:
        sealed = by_name.pop(path.name, [])
        if not sealed:
            return (
                f"{path}: the collector sent no seal for it (was the data written by the collector, and "
                "does the test command keep the descriptors it inherits?)"
            )
        if len(sealed) > 1:
            return f"{path}: {len(sealed)} seals were sent for it; the collector sends one"
        if seal_of(path)["sha256"] != sealed[0]:
            return f"{path}: the data changed after the collector finished writing it (its SHA-256 differs)"
    return None
