"""Verdicts to publish, built directly: what is posted is values, not repositories."""

from __future__ import annotations

from oracle_gate.judge.verdict import Outcome, Provenance, Reason, ReasonCode, Verdict

PARENT = "a" * 40
HEAD = "b" * 40
PROTOCOL = Provenance(gate_version="0.1.0")


def passing() -> Verdict:
    return Verdict(
        Outcome.PASS_CLEAN,
        (
            Reason(
                ReasonCode.LIVE_SURFACE_COVERS_DIFF,
                "3 touched parent line(s) in 1 file(s); none is observed by frozen tests alone",
            ),
        ),
        {},
        {"src/retry.py": [10, 11, 12]},
        0.0,
        PARENT,
        HEAD,
        PROTOCOL,
    )


def failing() -> Verdict:
    return Verdict(
        Outcome.FAIL,
        (
            Reason(
                ReasonCode.ORACLE_EDIT_FORBIDDEN,
                "tests/test_retry.py: edited (protected by 'tests/**')",
                "tests/test_retry.py",
            ),
            Reason(
                ReasonCode.SKIP_MARKER_ADDED,
                "tests/test_io.py:12: adds 'pytest.mark.skip'",
                "tests/test_io.py",
                12,
            ),
        ),
        {},
        {"src/retry.py": [10]},
        0.0,
        PARENT,
        HEAD,
        PROTOCOL,
    )


def unscored(lines: list[int] | None = None, path: str = "src/retry.py") -> Verdict:
    """Overlap on ``lines`` of ``path`` (parent coordinates), each observed by one frozen test."""
    overlap = lines if lines is not None else [40, 41, 60]
    return Verdict(
        Outcome.UNSCORED,
        (
            Reason(
                ReasonCode.FREEZE_OVERLAP,
                f"{path}: {len(overlap)} touched line(s) observed only by frozen tests",
                path,
            ),
        ),
        {path: overlap},
        {path: [*overlap, max(overlap) + 100]},
        round(len(overlap) / (len(overlap) + 1), 4),
        PARENT,
        HEAD,
        PROTOCOL,
        {path: {n: [f"tests/test_retry.py::test_backoff[{n}]"] for n in overlap}},
    )


def with_many_reasons(count: int, detail_size: int = 200, path_prefix: str = "fixtures/f") -> Verdict:
    """A fail verdict whose report is far too long for one comment or check summary."""
    reasons = tuple(
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            f"{path_prefix}{i:05d}.json: edited " + ("x" if path_prefix.isascii() else "测") * detail_size,
            f"{path_prefix}{i:05d}.json",
        )
        for i in range(count)
    )
    return Verdict(Outcome.FAIL, reasons, {}, {}, 0.0, PARENT, HEAD, PROTOCOL)
