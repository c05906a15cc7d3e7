"""``python -m lab``: the house-edge lab without a database (see lab/cli.py)."""

import sys

from .cli import main

sys.exit(main())
