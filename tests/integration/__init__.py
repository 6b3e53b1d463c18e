"""Integration tier: real temporary git repositories, coverage really measured with
pytest-cov contexts (``tests.support.repo.measure_coverage``, once per session), and the
CLI run in-process with a subprocess's environment (``tests.support.in_process.run_cli``) or, in a
few smoke tests, as a subprocess (``tests.support.repo.run_cli``). Nothing is mocked."""
