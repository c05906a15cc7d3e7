"""``python -m soak [options]``: the soak under faults (soak/cli.py; docs/reliability.md)."""

import sys

from soak.cli import main

sys.exit(main())
