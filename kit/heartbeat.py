"""Heartbeats of the processes the casino needs besides its web servers, for ``/readyz`` and the healthchecks.

Every ``HEARTBEAT_INTERVAL_S`` a process of kind ``worker`` (a Celery worker consuming the timers' queue),
``lab_worker`` (one consuming only the house-edge queue), ``beat`` (Celery beat) or ``signer`` (the checkpoint
signer) writes ``now`` under its name in the Redis sorted set ``<HEARTBEAT_PREFIX><kind>``. A kind is alive when
one of its processes wrote within ``HEARTBEAT_STALE_S``. ``casino.celery`` starts the worker's and beat's
heartbeats; another long-running process (the signer) calls :func:`start` once (or :func:`beat` in its own
loop) and adds its kind to ``READINESS_REQUIRES`` (docs/operations.md, "Health and readiness").

``python -m kit.heartbeat KIND [--here]`` exits 0 when a process of that kind (with ``--here``: one on this
host, i.e. in this container) is alive: the compose healthcheck of the workers and beat. It reads ``REDIS_URL``
and ``HEARTBEAT_PREFIX`` from the environment and loads no Django, so it is cheap enough to run every few
seconds.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time

import redis

log = logging.getLogger(__name__)

KINDS = ("worker", "lab_worker", "beat", "signer")
DEFAULT_PREFIX = "casino:alive:"
DEFAULT_INTERVAL_S = 5.0
DEFAULT_STALE_S = 30.0


def _setting(name: str, default: str) -> str:
    from django.conf import settings

    if settings.configured:
        return str(getattr(settings, name, default))
    return os.environ.get(name, default)


def _client(url: str | None = None) -> redis.Redis:
    url = url or _setting("REDIS_URL", os.environ.get("REDIS_URL", ""))
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)


def _key(kind: str, prefix: str | None = None) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown process kind {kind!r} (one of {', '.join(KINDS)})")
    return f"{prefix if prefix is not None else _setting('HEARTBEAT_PREFIX', DEFAULT_PREFIX)}{kind}"


def process_name() -> str:
    """This process's name in its kind's set: host and pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def beat(kind: str, name: str | None = None, *, client: redis.Redis | None = None) -> None:
    """Say that ``name`` (this process by default) of ``kind`` is alive now; forget the long dead ones."""
    client = client or _client()
    key = _key(kind)
    now = time.time()
    stale = float(_setting("HEARTBEAT_STALE_S", str(DEFAULT_STALE_S)))
    pipe = client.pipeline(transaction=False)
    pipe.zadd(key, {name or process_name(): now})
    pipe.zremrangebyscore(key, "-inf", now - 10 * stale)
    pipe.expire(key, int(10 * stale) + 1)
    pipe.execute()


def last_seen(kind: str, name: str | None = None, *, client: redis.Redis | None = None) -> float | None:
    """When ``name`` of ``kind`` (any of them without ``name``) last said it was alive (epoch seconds)."""
    client = client or _client()
    key = _key(kind)
    if name is not None:
        score = client.zscore(key, name)
        return float(score) if score is not None else None
    newest = client.zrevrange(key, 0, 0, withscores=True)
    return float(newest[0][1]) if newest else None


def age(kind: str, name: str | None = None, *, client: redis.Redis | None = None) -> float | None:
    """Seconds since ``kind`` (or one process of it) last said it was alive; None: never."""
    seen = last_seen(kind, name, client=client)
    return None if seen is None else max(0.0, time.time() - seen)


def start(kind: str, name: str | None = None, interval: float | None = None) -> threading.Thread:
    """Beat now and then every ``interval`` seconds from a daemon thread (a Redis outage is logged and retried)."""
    every = interval if interval is not None else float(_setting("HEARTBEAT_INTERVAL_S", str(DEFAULT_INTERVAL_S)))
    me = name or process_name()
    _key(kind)

    def loop() -> None:
        client = _client()
        failing = False
        while True:
            try:
                beat(kind, me, client=client)
                if failing:
                    log.warning("heartbeat of %s %s written again", kind, me)
                failing = False
            except redis.RedisError as exc:
                if not failing:
                    log.warning("heartbeat of %s %s not written: %s", kind, me, exc.__class__.__name__)
                failing = True
            time.sleep(every)

    thread = threading.Thread(target=loop, name=f"heartbeat-{kind}", daemon=True)
    thread.start()
    return thread


def main(argv: list[str]) -> int:
    """The healthcheck: ``python -m kit.heartbeat KIND [--here]``; 0 when alive, 1 otherwise."""
    if not argv or argv[0] not in KINDS or argv[1:] not in ([], ["--here"]):
        print(f"usage: python -m kit.heartbeat {{{'|'.join(KINDS)}}} [--here]", file=sys.stderr)
        return 2
    kind, here = argv[0], argv[1:] == ["--here"]
    stale = float(os.environ.get("HEARTBEAT_STALE_S", DEFAULT_STALE_S))
    prefix = os.environ.get("HEARTBEAT_PREFIX", os.environ.get("REDIS_KEY_PREFIX", "") + DEFAULT_PREFIX)
    try:
        entries = _client(os.environ["REDIS_URL"]).zrange(_key(kind, prefix), 0, -1, withscores=True)
    except (KeyError, redis.RedisError) as exc:
        print(f"{kind}: cannot read the heartbeats: {exc.__class__.__name__}", file=sys.stderr)
        return 1
    host = f"{socket.gethostname()}:"
    seen = [score for name, score in entries if not here or name.decode().startswith(host)]
    newest = max(seen, default=None)
    if newest is None or time.time() - newest > stale:
        print(f"{kind}: no heartbeat{' on this host' if here else ''} within {stale:g} s", file=sys.stderr)
        return 1
    print(f"{kind}: alive ({time.time() - newest:.0f} s ago)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
