"""The import package's name in the users' test environments (issue 21).

The pytest plugin is an entry point (``pytest11``), so pytest imports the gate's plugin module at
the start of EVERY pytest run in an environment where the gate is installed, not only for maps.
When the import package was named ``gate``, a project with its own top-level ``gate`` package got
ours in ``sys.modules`` before its tests imported theirs, and its own suite broke. The import
package is ``oracle_gate`` now (the folder stays ``gate/`` through package-dir): this test is the
reproduction, and it must pass.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.repo import clean_env


def test_a_projects_own_gate_package_is_not_shadowed_by_the_installed_gate(tmp_path: Path) -> None:
    (tmp_path / "gate").mkdir()
    (tmp_path / "gate" / "__init__.py").write_text('VALUE = "the project\'s own gate"\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_own.py").write_text(
        'from gate import VALUE\n\n\ndef test_value():\n    assert VALUE == "the project\'s own gate"\n'
    )
    pytest_script = Path(sys.executable).with_name("pytest")
    proc = subprocess.run(
        [str(pytest_script), "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert "ImportError" not in proc.stdout, proc.stdout[-2000:]
    assert proc.returncode == 0, proc.stdout[-2000:]
