"""Reading a parent map, as ``check``, ``freeze``, ``surface``, the Action and the bot do.

One module per job: the manifest (:mod:`~oracle_gate.maps.reader.manifest`), the map's data and
which tests observed which lines (:mod:`~oracle_gate.maps.reader.data`), whether a map is bound to
the parent and the parent coverage read from it (:mod:`~oracle_gate.maps.reader.binding`), a map's
bytes and their sha256 (:mod:`~oracle_gate.maps.reader.mapbytes`), coverage.py's data files read
without coverage.py (:mod:`~oracle_gate.maps.reader.sqlite_map`), the manifest's unstable
observations (:mod:`~oracle_gate.maps.reader.unstable`) and the run that built the map
(:mod:`~oracle_gate.maps.reader.provenance`). Nothing here imports the ``map`` command's modules
(tests/unit/test_import_rules.py).
"""
