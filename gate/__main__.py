"""``python -m oracle_gate``: the same as the ``oracle-gate`` command."""

import sys

from oracle_gate.cli import main

sys.exit(main())
