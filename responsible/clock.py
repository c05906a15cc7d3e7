"""The clock responsible gaming reads: this server's, the one a table command's context carries (tests move it
with time-machine)."""

from __future__ import annotations

import time


def now_ms() -> int:
    """Now, in epoch milliseconds."""
    return int(time.time() * 1000)
