"""One parse per changed ``.py`` file for the three v3 syntax rules (v3.1, v3.2, v3.3).

Skip markers, rebinding sites and measurement references are asked file by file from three places
(the read side and two verdict rules); each would parse the head blob and resolve its names again.
:func:`python_facts` does it once per (blob, added lines) and keeps only the small results, keyed by
the blob's digest so the cache never holds a blob (a long-running bot judges many changes).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from oracle_gate.judge.measurement import MEASURING_PACKAGES, find_measurement, measuring_packages
from oracle_gate.judge.pyrefs import (
    build_resolver,
)
from oracle_gate.judge.pysource import AddedLines, parse_tree
from oracle_gate.judge.rebinding_sites import Sites, find_sites
from oracle_gate.judge.syntax_markers import find_markers

CACHE_SIZE = 1024


@dataclass(frozen=True)
class PythonFacts:
    """What the v3 syntax rules found on the added lines of one head file."""

    markers: tuple[tuple[int, str], ...]
    sites: Sites
    #: measurement references with every measuring package (the gate's own included), and without it
    measurement: tuple[tuple[int, str], ...]
    measurement_without_gate: tuple[tuple[int, str], ...]


_CACHE: OrderedDict[tuple[str, frozenset[int]], PythonFacts | None] = OrderedDict()


def python_facts(blob: bytes | None, added: frozenset[int]) -> PythonFacts | None:
    """The v3 findings of one head file; ``None`` when it does not parse."""
    if blob is None:
        return None
    key = (hashlib.sha256(blob).hexdigest(), added)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    facts = _analyze(blob, added)
    _CACHE[key] = facts
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return facts


def _analyze(blob: bytes, added: frozenset[int]) -> PythonFacts | None:
    tree = parse_tree(blob)
    if tree is None:
        return None
    lines = AddedLines(added)
    if not lines.numbers:
        return PythonFacts((), Sites(), (), ())
    resolver = build_resolver(tree)
    return PythonFacts(
        markers=tuple(find_markers(tree, resolver, lines)),
        sites=find_sites(tree, resolver, lines),
        measurement=tuple(find_measurement(tree, resolver, lines, measuring_packages())),
        measurement_without_gate=tuple(find_measurement(tree, resolver, lines, MEASURING_PACKAGES)),
    )
