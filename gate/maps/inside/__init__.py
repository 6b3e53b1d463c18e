"""What runs inside the measured test process: the map's pytest plugin, its collectors and guards.

pytest loads :mod:`oracle_gate.maps.inside.pytest_plugin` into the parent's tests (the ``pytest11``
entry point), so every module here shares that process with the code it measures. They import only
the standard library, pytest (``pytest``, ``_pytest``, ``pluggy``), coverage.py, this subpackage and
the freeze parser (:mod:`oracle_gate.judge.freeze`, pure); tests/unit/test_import_rules.py enforces it.
"""
