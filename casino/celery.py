"""The Celery app. Tasks are thin (ids in, one service call) and enqueued with transaction.on_commit.

Celery sets up the worker's and beat's log handlers (``--loglevel``, ``--logfile``); Celery's per-task
"received"/"succeeded" lines and beat's "sending due task" lines are turned down to warnings (``LOGGING`` in
casino.settings, and again once Celery has set up its loggers): each task writes one line of its own instead
(below), the timeout sweeper none while it finds nothing to fire. ``LOG_FORMAT=json`` applies to Celery's
handlers too."""

import logging
import os
import time
from typing import Any

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.celeryd_after_setup.connect
def _consume_table_queues(sender: Any = None, instance: Any = None, **_: Any) -> None:
    """A worker that consumes the timers' queue (``make run``'s, compose's, the soak's: no ``-Q``, or ``-Q`` naming
    it) consumes every table's queue too; a worker started with ``-Q <queue>.<n>`` serves only that shard."""
    from django.conf import settings

    from tables.queues import table_queues

    queues = instance.app.amqp.queues
    if settings.TABLE_TIMER_QUEUE in queues.consume_from:
        for name in table_queues():
            queues.select_add(name)


# --- one log line per task (kit/requestlog.py) and the task counter (kit/metrics.py) ---------------------
# This module is imported with the ``casino`` package itself (casino/__init__.py), before Django's settings and
# apps are loaded; the handlers below import what they need when they run (Django app loading, not a cycle).
@signals.task_prerun.connect
def _task_started(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    from kit import requestlog

    task.request.casino_log = (requestlog.begin(task_id=task_id), time.perf_counter())


@signals.task_postrun.connect
def _task_finished(task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any) -> None:
    from kit import metrics, requestlog

    token, started = getattr(task.request, "casino_log", (None, time.perf_counter()))
    if token is None:
        return
    fields = requestlog.end(token)
    quiet = fields.pop("quiet", False)
    fields.setdefault("outcome", "ok" if state == "SUCCESS" else (state or "unknown").lower())
    fields["ms"] = round((time.perf_counter() - started) * 1000)
    metrics.TASKS.labels(task.name, str(fields["outcome"])).inc()
    if not quiet or state != "SUCCESS":
        level = logging.ERROR if state == "FAILURE" else logging.INFO  # SUCCESS, RETRY
        requestlog.task_log.log(level, "%s %s", task.name, requestlog.line(fields), extra=fields)


@signals.worker_init.connect
def _worker_metrics(**_: Any) -> None:
    """A worker container's own /metrics (kit/metrics.py), when ``METRICS_WORKER_PORT`` is set."""
    port = os.environ.get("METRICS_WORKER_PORT", "")
    if port:
        from backoffice.metrics import serve_worker_metrics

        serve_worker_metrics(int(port), os.environ.get("METRICS_WORKER_ADDR", "0.0.0.0"))


@signals.after_setup_logger.connect
def _quiet_celery_loggers(logger: Any = None, **_: Any) -> None:
    from django.conf import settings

    for name, config in settings.LOGGING.get("loggers", {}).items():
        if name.startswith("celery") and "level" in config:
            logging.getLogger(name).setLevel(config["level"])
    if settings.LOG_FORMAT == "json" and logger is not None:
        from kit.requestlog import JsonUTCFormatter

        json_config = settings.LOGGING["formatters"]["json"]
        for handler in logger.handlers:
            handler.setFormatter(JsonUTCFormatter(json_config["fmt"], rename_fields=json_config["rename_fields"]))


# --- heartbeats for /readyz and the compose healthchecks (kit/heartbeat.py) -----------------------------------
@signals.worker_ready.connect
def _worker_heartbeat(sender: Any = None, **_: Any) -> None:
    """A worker that consumes the timers' queue is a ``worker``; one that consumes only the lab's a ``lab_worker``;
    one that consumes only the checkpoint signer's queue the ``signer``."""
    from django.conf import settings

    from kit import heartbeat

    task_consumer = getattr(sender, "task_consumer", None)
    queues = {queue.name for queue in task_consumer.queues} if task_consumer is not None else set()
    if queues and queues <= {settings.HOUSE_EDGE_QUEUE}:
        kind = "lab_worker"
    elif queues and queues <= {settings.CHECKPOINT_SIGNER_QUEUE}:
        kind = "signer"
    else:
        kind = "worker"
    heartbeat.start(kind)


@signals.beat_init.connect
def _beat_heartbeat(**_: Any) -> None:
    from kit import heartbeat

    heartbeat.start("beat")
