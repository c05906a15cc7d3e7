"""Gunicorn settings of the production web server (``gunicorn -c python:casino.gunicorn_conf``).

With ``PROMETHEUS_MULTIPROC_DIR`` set, each worker writes its metrics to files there (kit/metrics.py): the
directory is emptied when the server starts, and a worker's live gauges are dropped when it exits, so
``/metrics`` on any worker adds up exactly the workers alive.
"""

from __future__ import annotations

import os
import shutil
from typing import Any


def on_starting(server: Any) -> None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
