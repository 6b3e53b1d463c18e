"""Verdicts to publish, built directly: the publisher takes values, not repositories."""

from __future__ import annotations

from gate.judge.verdict import FAIL, PASS, UNSCORED, Protocol, Reason, Verdict

PARENT = "a" * 40
HEAD = "b" * 40
PROTOCOL = Protocol(gate_version="0.1.0")


def passing() -> Verdict:
    return Verdict(
        PASS,
        (
            Reason(
                "live_surface_covers_diff",
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
        FAIL,
        (
            Reason(
                "oracle_edit_forbidden",
                "tests/test_retry.py: edited (protected by 'tests/**')",
                "tests/test_retry.py",
            ),
            Reason(
                "skip_marker_added", "tests/test_io.py:12: adds 'pytest.mark.skip'", "tests/test_io.py", 12
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
        UNSCORED,
        (
            Reason(
                "freeze_overlap",
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


def with_many_reasons(count: int, detail_size: int = 200) -> Verdict:
    """A fail verdict whose report is far too long for one comment or check summary."""
    reasons = tuple(
        Reason(
            "oracle_edit_forbidden",
            f"fixtures/f{i:05d}.json: edited " + "x" * detail_size,
            f"fixtures/f{i:05d}.json",
        )
        for i in range(count)
    )
    return Verdict(FAIL, reasons, {}, {}, 0.0, PARENT, HEAD, PROTOCOL)
