"""Integration tier: real temporary git repositories, coverage really measured with
pytest-cov contexts (``tests.support.repo.measure_coverage``, once per session), and the
CLI run as a subprocess (``run_cli``). Nothing is mocked."""
