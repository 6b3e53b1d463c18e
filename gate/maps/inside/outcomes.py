"""What a pytest run did, per test, and what ran it: the facts the scoring run compares with.

``oracle-gate map`` records them for the parent (SCORING.md, Inputs) and ``oracle-gate score`` for
head, both through the same functions, so the two sides cannot disagree on what "skipped" means:

* :class:`OutcomeLog`: one outcome per test id from its reports (``passed``, ``failed``, ``error``
  (setup or teardown failed), ``skipped``, ``xfailed``, ``xpassed``) and a skip's reason;
* :func:`loaded_plugins`: the distribution name and version of every plugin the run loaded through
  a ``pytest11`` entry point or ``-p`` (a ``-p`` module no distribution provides is named by its
  module, version ``None``), so a plugin that arrives with a dependency is seen;
* :func:`python_version`.

Standard library only at import time (the map plugin imports this lazily and must stay cheap).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

OUTCOMES_KEY = "outcomes"  # manifest: {test id: outcome}
SKIP_REASONS_KEY = "skip_reasons"  # manifest: {test id: reason} for skipped and xfailed tests
PLUGINS_KEY = "pytest_plugins"  # manifest: [{"name": dist, "version": v}, ...]
PYTHON_KEY = "python_version"  # manifest: "3.11.7"
# manifest: 1 when the plugin set lists every registered plugin by origin (SCORING.md v2, 2.1); a map
# without it lists distributions only, and ``score`` cannot compare the tree's plugins with it.
PLUGIN_ORIGINS_KEY = "plugin_origins"
PLUGIN_ORIGINS = 1
OUTCOME_WORDS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
# Load-time switches, not plugins: "-p no:NAME" blocks a plugin, which the loaded set then shows.
_NOT_A_PLUGIN = ("no:",)


class OutcomeLog:
    """Outcomes of the tests of one run, built from their reports in the order pytest gives them."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.reasons: dict[str, str] = {}

    def add(self, report: Any) -> None:
        """Fold one ``TestReport`` (setup, call or teardown) into its test's outcome."""
        nodeid, when = str(report.nodeid), str(report.when)
        word = _phase_outcome(report)
        if word is None:
            return
        previous = self.outcomes.get(nodeid)
        if when == "teardown" and previous is not None and word != "error":
            return  # a clean teardown leaves the test's outcome as it was
        if previous in ("failed", "error") and word not in ("failed", "error"):
            return  # nothing after a failure makes it pass
        self.outcomes[nodeid] = word
        if word in ("skipped", "xfailed"):
            self.reasons[nodeid] = skip_reason(report)

    def document(self) -> dict[str, Any]:
        return {OUTCOMES_KEY: dict(sorted(self.outcomes.items())), SKIP_REASONS_KEY: dict(self.reasons)}


def _phase_outcome(report: Any) -> str | None:
    when, wasxfail = report.when, hasattr(report, "wasxfail")
    if report.skipped:
        return "xfailed" if wasxfail else "skipped"
    if report.failed:
        return "failed" if when == "call" else "error"
    if when == "call":
        return "xpassed" if wasxfail else "passed"
    if when == "setup":
        return None  # the call decides
    return "passed"  # a clean teardown of a test whose call never reported (cannot normally happen)


def skip_reason(report: Any) -> str:
    """The reason pytest gives for a skip (``longrepr`` is ``(path, line, "Skipped: why")``)."""
    if hasattr(report, "wasxfail"):
        return str(report.wasxfail or "xfail")
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "")


def loaded_plugins(config: Any, own: Sequence[str] = ()) -> list[dict[str, str | None]]:
    """Every plugin the run loaded: ``pytest11`` entry points (which pytest loaded, as pluggy records
    them), ``-p`` / ``PYTEST_PLUGINS`` names, and (SCORING.md v2, 2.1) every other plugin registered
    with the plugin manager by origin (:mod:`oracle_gate.maps.inside.plugin_origins`), sorted by name, each
    once. ``own``: ``-p`` modules of the gate's own that the caller added (not part of the project's
    set)."""
    from oracle_gate.maps.inside.plugin_origins import origins

    found: dict[str, str | None] = {}
    counted: set[str] = set()  # top-level packages of the entry points' modules: their distribution is in
    for plugin, dist in config.pluginmanager.list_plugin_distinfo():
        # One parse of the distribution's METADATA (its name and its version would each parse it again).
        metadata = dist.metadata
        found[normalize(str(metadata["name"]))] = str(metadata["version"])
        counted.add(str(getattr(plugin, "__name__", "")).split(".", 1)[0])
    named = named_plugins(config.invocation_params.args, os.environ.get("PYTEST_PLUGINS", ""))
    for module in (m for m in named if m not in own):
        name, version = _module_distribution(module)
        found.setdefault(name, version)
    root = config.invocation_params.dir  # the checkout: ``map`` and ``score`` run pytest at its top
    for name, version in origins(config.pluginmanager, root, _module_distribution, counted).items():
        found.setdefault(name, version)
    return [{"name": name, "version": found[name]} for name in sorted(found)]


def plugins_union(*sets: Sequence[Mapping[str, Any]]) -> list[dict[str, str | None]]:
    """Plugin lists taken at several points of a run (the end of collection, the end of the session)
    as one: every plugin registered at any of them."""
    found: dict[str, str | None] = {}
    for entries in sets:
        for name, version in plugin_set(entries).items():
            found.setdefault(name, version)
    return [{"name": name, "version": found[name]} for name in sorted(found)]


def named_plugins(args: Sequence[str], env_plugins: str = "") -> list[str]:
    """The module names given by ``-p NAME`` / ``-pNAME`` and ``PYTEST_PLUGINS`` (blocks left out)."""
    names: list[str] = []
    items = list(args)
    for index, arg in enumerate(items):
        if arg == "-p" and index + 1 < len(items):
            names.append(items[index + 1])
        elif arg.startswith("-p") and len(arg) > 2 and not arg.startswith("--"):
            names.append(arg[2:])
    names += [n.strip() for n in env_plugins.split(",") if n.strip()]
    return [n for n in names if not n.startswith(_NOT_A_PLUGIN)]


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return "-".join(part for part in name.lower().replace("_", "-").replace(".", "-").split("-") if part)


def _module_distribution(module: str) -> tuple[str, str | None]:
    """The distribution that provides ``module`` (its top-level package), else the module itself."""
    import importlib.metadata  # here, not at the top: ``map`` imports this module for run_facts

    top = module.split(".", 1)[0]
    dists = _packages_distributions().get(top, [])
    if dists:
        name = normalize(dists[0])
        try:
            return name, importlib.metadata.version(dists[0])
        except importlib.metadata.PackageNotFoundError:
            return name, None
    if top in _BUILTIN:
        return f"pytest:{top}", None
    return f"module:{module}", None


_DISTRIBUTIONS: list[Mapping[str, list[str]]] = []


def _packages_distributions() -> Mapping[str, list[str]]:
    """``importlib.metadata.packages_distributions()``, read once per process (it scans every
    installed distribution)."""
    import importlib.metadata

    if not _DISTRIBUTIONS:
        _DISTRIBUTIONS.append(importlib.metadata.packages_distributions())
    return _DISTRIBUTIONS[0]


# pytest's own plugins, loadable by ``-p NAME``: part of pytest, whose version the set already has.
_BUILTIN = frozenset(
    {
        "pytester",
        "cacheprovider",
        "doctest",
        "faulthandler",
        "junitxml",
        "legacypath",
        "monkeypatch",
        "pastebin",
        "recwarn",
        "setuponly",
        "setupplan",
        "stepwise",
        "terminal",
        "tmpdir",
        "unraisableexception",
        "threadexception",
        "warnings",
        "logging",
        "capture",
        "debugging",
        "skipping",
        "unittest",
        "python_path",
        "nose",
        "helpconfig",
        "fixtures",
    }
)


def python_version() -> str:
    import platform

    return platform.python_version()


def run_facts(finish: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's per-test outcomes, skip reasons, plugin set and Python version, from the map
    plugin's ``finish`` event (empty when the plugin did not report them: an old or absent plugin,
    which ``score`` then refuses to score against)."""
    facts: dict[str, Any] = {}
    for key in (OUTCOMES_KEY, SKIP_REASONS_KEY, PLUGINS_KEY, PYTHON_KEY, PLUGIN_ORIGINS_KEY):
        if key in finish:
            facts[key] = finish[key]
    return facts


def plugin_set(entries: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """``[{"name", "version"}, ...]`` as ``{name: version}`` (the form the score compares)."""
    return {
        str(e.get("name")): (None if e.get("version") is None else str(e.get("version"))) for e in entries
    }


def combined_facts(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run facts of a map combined from shards: the outcomes and skip reasons of all parts; the
    plugin set and Python version only when every part recorded the same (else none, and ``score``
    refuses to compare with a parent whose runs differed)."""
    facts: dict[str, Any] = {}
    if parts and all(isinstance(p.get(OUTCOMES_KEY), dict) for p in parts):
        facts[OUTCOMES_KEY] = dict(sorted(o for p in parts for o in p[OUTCOMES_KEY].items()))
        facts[SKIP_REASONS_KEY] = {k: v for p in parts for k, v in (p.get(SKIP_REASONS_KEY) or {}).items()}
    for key in (PLUGINS_KEY, PYTHON_KEY, PLUGIN_ORIGINS_KEY):
        values = [p.get(key) for p in parts]
        if values and values[0] is not None and all(v == values[0] for v in values):
            facts[key] = values[0]
    return facts
