"""The image itself: how it starts, and that only the installed package is in it."""

from __future__ import annotations

import pytest

from tests.support import container
from tests.support.container import Image

pytestmark = pytest.mark.container


def test_the_entrypoint_is_exec_form_python_and_nothing_overrides_it(image: Image) -> None:
    """Exec form: the runner's INPUT_GITHUB-TOKEN reaches Python (``/bin/sh -c`` would drop it);
    no Cmd to be appended; no USER (GitHub runs Docker actions as root) and no WORKDIR."""
    config = container.image_config(image.name)
    entrypoint = config.get("Entrypoint") or []
    assert isinstance(entrypoint, list)
    assert entrypoint[:1] == ["python"], f"Entrypoint is not exec-form python: {entrypoint}"
    assert entrypoint[-1] == "/action/entrypoint.py"
    assert not config.get("Cmd"), f"Cmd would be appended to the Entrypoint: {config.get('Cmd')}"
    assert config.get("User") in (None, "", "root", "0"), f"USER {config.get('User')}: GitHub needs root"
    assert config.get("WorkingDir") in (None, "", "/"), "WORKDIR: GitHub sets /github/workspace itself"


def test_only_the_installed_package_is_in_the_image(image: Image) -> None:
    """/action holds the entrypoint alone, the wheel's package has its templates, no build
    leftovers or second copy of gate, git is there, and python -P sees the installed package."""
    script = r"""
set -e
echo "action: $(ls -A /action | tr '\n' ' ')"
python -P -c 'import oracle_gate; print(oracle_gate.__file__)'
python -P -c 'import oracle_gate.templates as t, os; print(sorted(os.listdir(os.path.dirname(t.__file__))))'
find / -xdev \( -name 'oracle_gate*.egg-info' -o -path '*/oracle_gate/action/run.py' -o -name '*.whl' \
  -o -path '/src*' \) -print | sort
git --version
"""
    out = container.run_in_image(image.name, ["sh", "-c", script]).splitlines()
    assert out[0] == "action: entrypoint.py ", out[0]
    where = out[1]
    assert where.endswith("-packages/oracle_gate/__init__.py"), where
    assert "'check_summary.md.j2'" in out[2], out[2]
    assert "'check_error.md.j2'" in out[2], out[2]
    found = [line for line in out[3:] if line.startswith("/")]
    assert found == [where.replace("__init__.py", "action/run.py")], f"copies or leftovers: {found}"
    assert out[-1].startswith("git version "), out[-1]
