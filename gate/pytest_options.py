"""The options every pytest run the gate starts adds after the project's own (issue 28).

``-p no:cacheprovider``: a run writes no ``.pytest_cache`` into the checkout. ``-p no:randomly``:
pytest-randomly, installed (it loads itself) or named in ``addopts`` (``-p randomly``), shuffles the
tests and reseeds ``random`` before each one; the map, the collections of ``freeze``, ``score``'s two
runs (the second in reverse order) and the mutants need the project's own order, the same in every
run. pytest reads the command line after ``addopts`` and ``PYTEST_ADDOPTS``, so these win over the
project's ``-p randomly``; and pytest accepts ``-p no:NAME`` for a plugin that is not installed, so
they are always given.
"""

from __future__ import annotations

import importlib.util

NEUTRAL = ("-p", "no:cacheprovider", "-p", "no:randomly")
RANDOMLY_NOTE = (
    "pytest-randomly is installed: the gate's pytest runs pass -p no:randomly (the project's test "
    "order, random not reseeded per test)"
)


def randomly_note() -> str | None:
    """The one line saying randomly is switched off, when it is installed in this interpreter (the
    one the gate runs pytest with), else None."""
    return RANDOMLY_NOTE if importlib.util.find_spec("pytest_randomly") is not None else None
