"""Reading a parent map, as ``check``, ``freeze``, ``surface``, the Action and the bot do.

The manifest and the map's data (:mod:`~oracle_gate.maps.reader.read`), its bytes and their sha256
(:mod:`~oracle_gate.maps.reader.mapbytes`), coverage.py's data files without coverage.py
(:mod:`~oracle_gate.maps.reader.sqlite_map`), the manifest's unstable observations
(:mod:`~oracle_gate.maps.reader.unstable`) and the run that built it
(:mod:`~oracle_gate.maps.reader.provenance`). Nothing here imports the ``map`` command's modules
(tests/unit/test_import_rules.py).
"""
