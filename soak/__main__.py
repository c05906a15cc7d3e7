"""``python -m soak [options]``: the soak under faults (soak/__init__.py; docs/reliability.md)."""

import sys

from soak.run import main

sys.exit(main())
