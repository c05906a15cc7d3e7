"""The Celery worker's consumer, with one fix for surviving a lost broker (issue 16).

Celery 5.7.0 closes the broken broker connection after ``collect()`` has already released its transport. With
the Redis transport and unacknowledged messages on the channel (our timers are ``acks_late`` ETA tasks, held
reserved until their deadline), closing the channel tries to restore them through the released transport and
raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which ``ignore_errors`` does not
ignore: the worker stops with "Unrecoverable error" instead of reconnecting. The soak found it (bench/soak.py,
``redis_restart``): after a Redis restart the worker was gone and no timer fired any more.

Here that one error is logged and the consumer carries on into its normal reconnect. What the failed close
skipped is harmless: the reserved messages were not restored (Redis redelivers them after its visibility
timeout, and the sweeper fires any missed deadline meanwhile); the prefetch reduction after a reconnect is an
optimisation. Selected by ``CELERY_WORKER_CONSUMER`` in settings.
"""

from __future__ import annotations

import logging

from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    def on_connection_error_after_connected(self, exc: Exception) -> None:
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            log.warning("broker connection lost; its channel could not be closed cleanly, reconnecting", exc_info=True)
