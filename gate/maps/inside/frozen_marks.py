"""Is a frozen test skipped (or expected to fail) in place on the parent? Only then is its marker a
freeze policy error.

A ``skipif``/``xfail`` whose condition is false does nothing: the test runs, and the freeze decides
alone (attrs' version-conditional ``skipif`` on ``TestAnnotations`` is false on every Python it
supports, and must not stop ``map``). The conditions are evaluated exactly as pytest evaluates them
when it runs the test (``_pytest.skipping``'s own functions); a condition that cannot be evaluated
counts as applying (fail closed: the freeze must not hide a skip).
"""

from __future__ import annotations

import pytest

MARKERS = ("skip", "skipif", "xfail")


def marker_in_effect(item: pytest.Item) -> str | None:
    """The name of the skip/skipif/xfail marker that takes ``item`` out in place, or None."""
    names = [m.name for m in item.iter_markers() if m.name in MARKERS]
    if not names or "skip" in names:
        return names[0] if names else None
    try:
        return _evaluated(item, names)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - a condition that raises (pytest.fail() is an OutcomeException)
        return names[0]  # pytest would report an error for it; the freeze says so too


def _evaluated(item: pytest.Item, names: list[str]) -> str | None:
    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks

    if "skipif" in names and evaluate_skip_marks(item) is not None:
        return "skipif"
    if "xfail" in names and evaluate_xfail_marks(item) is not None:
        return "xfail"
    return None
