"""Parent coverage maps, in three parts.

The modules at this level are the ``map`` command: the parser (:mod:`~oracle_gate.maps.command`), the
build (:mod:`~oracle_gate.maps.build`) and what it runs, combines and writes. :mod:`oracle_gate.maps.inside`
runs inside the measured test process (the pytest plugin and the collectors); :mod:`oracle_gate.maps.reader`
is what ``check`` and the other readers of a map use.
"""
