"""The options every pytest run the gate starts adds after the project's own (issue 28).

``-p no:cacheprovider``: a run writes no ``.pytest_cache`` into the checkout. ``-p no:randomly``:
pytest-randomly, installed (it loads itself) or named in ``addopts`` (``-p randomly``), shuffles the
tests and reseeds ``random`` before each one; the map, the collections of ``freeze``, ``score``'s two
runs (the second in reverse order) and the mutants need the project's own order, the same in every
run. pytest reads the command line after ``addopts`` and ``PYTEST_ADDOPTS``, so these win over the
project's ``-p randomly``, and it accepts ``-p no:NAME`` for a plugin that is not installed. Where
randomly is installed, ``-p randomly`` comes first: it registers randomly's options, so a
``--randomly-seed`` in the project's ``addopts`` still parses, and ``-p no:randomly`` then unregisters
the plugin. Every such run is started with the gate's own interpreter, the one looked at here.
"""

from __future__ import annotations

from importlib.util import find_spec


def randomly_installed() -> bool:
    """pytest-randomly is importable by this interpreter. Its module is looked for, not its entry
    point: ``importlib.metadata`` reads every installed distribution (some 30 ms, and ``map`` starts
    without it, tests/integration/test_map_startup.py); an installed pytest-randomly has both."""
    return find_spec("pytest_randomly") is not None


RANDOMLY_INSTALLED = randomly_installed()
NEUTRAL = ("-p", "no:cacheprovider", *(("-p", "randomly") if RANDOMLY_INSTALLED else ()), "-p", "no:randomly")
RANDOMLY_NOTE = (
    "pytest-randomly is installed: the gate's pytest runs pass -p no:randomly (the project's test "
    "order, random not reseeded per test)"
)


def randomly_note() -> str | None:
    """The one line saying randomly is switched off, when it is installed, else None."""
    return RANDOMLY_NOTE if RANDOMLY_INSTALLED else None
