"""The soak's running commentary: timestamped lines on stderr, one at a time from every thread."""

from __future__ import annotations

import sys
import threading
import time

_print_lock = threading.Lock()


def say(message: str) -> None:
    """One line on stderr, stamped with the time: what the soak is doing, a fault, a violation."""
    with _print_lock:
        print(f"[soak {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

