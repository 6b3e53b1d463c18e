"""The import package's name in the users' test environments (issue 21).

The pytest plugin is an entry point (``pytest11``), so pytest imports ``gate.maps.pytest_plugin`` at
the start of EVERY pytest run in an environment where the gate is installed, not only for maps. A
project with its own top-level ``gate`` package then gets ours in ``sys.modules`` before its tests
import theirs: its own suite breaks. Kept here, strict-xfail, until the lead renames the import
package (proposed: ``gate`` -> ``oracle_gate``, the folder staying ``gate/`` through package-dir).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.repo import clean_env


@pytest.mark.xfail(
    reason="the import package is still named 'gate' (see the module's docstring)", strict=True
)
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
