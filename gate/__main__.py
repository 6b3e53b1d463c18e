"""``python -m gate``: the same as the ``oracle-gate`` command."""

import sys

from gate.cli import main

sys.exit(main())
