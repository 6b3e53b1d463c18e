"""The Docker action's entrypoint: the process's environment in, exit status out.

Everything else is :func:`gate.action.entry.main` (configuration, clients, the run, failing closed),
which the end-to-end tests also call in-process.
"""

from __future__ import annotations

import os
import sys

from gate.action.entry import main

if __name__ == "__main__":
    sys.exit(main(os.environ))
