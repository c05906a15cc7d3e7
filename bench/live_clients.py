"""The subscribers of bench/live.py: client processes, each an asyncio loop holding its share of the floor's
WebSockets, and timing every event a socket receives from its commit to its arrival.

The commit time is when the after-commit notification (``tables.notify``) reaches the client process: each process
also subscribes to the tables' notification channels in Redis (one Redis hop, ~0.1 ms, after the commit); an
event's commit is the first notification of a version at or past its ``seq``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field

Seen = dict[int, list[tuple[int, float]]]  # table id -> (version, when its notification arrived), in order


def client_process(
    port: int, pattern: str, plan: list[tuple[str, int]], ready: mp.Queue, measuring: mp.Event, stop: mp.Event,
    out: mp.Queue,
) -> None:  # fmt: skip
    """One client process: open the sockets of ``plan`` (token, table id), put how many connected on ``ready``,
    count and time what arrives while ``measuring`` is set, and once ``stop`` is set put the tally on ``out``."""
    asyncio.run(_client_main(port, pattern, plan, ready, measuring, stop, out))


async def _commits(pattern: str, seen: Seen) -> None:
    """Record when each table's versions are announced (after commit), as the server's watch hears them."""
    import msgpack
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(os.environ["REDIS_URL"])
    pubsub = client.pubsub()
    await pubsub.psubscribe(pattern)
    async for message in pubsub.listen():
        if message["type"] == "pmessage":
            now = time.time()
            body = msgpack.unpackb(message["data"])
            seen.setdefault(body["table"], []).append((body["version"], now))


def _commit_time(seen: Seen, table: int, seq: int) -> float | None:
    for version, at in seen.get(table, ()):
        if version >= seq:
            return at
    return None


@dataclass
class Tally:
    """What one client process's sockets saw: how many connected and closed, and while measuring the messages,
    each event's delay from its commit, and the events whose commit was never announced."""

    delays: list[float] = field(default_factory=list)
    connected: int = 0
    closed: int = 0
    messages: int = 0
    unmatched: int = 0


async def _subscriber(port: int, token: str, table_id: int, seen: Seen, tally: Tally, measuring: mp.Event) -> None:
    """One socket: sign in, then time every event of every message received while measuring."""
    from websockets.asyncio.client import connect

    try:
        async with connect(f"ws://127.0.0.1:{port}/ws/v1/tables/{table_id}", open_timeout=60, max_queue=None) as ws:
            await ws.send(json.dumps({"type": "auth", "token": token}))
            json.loads(await ws.recv())
            tally.connected += 1
            async for raw in ws:
                now = time.time()
                message = json.loads(raw)
                if not measuring.is_set():
                    continue
                tally.messages += 1
                for event in message["events"]:
                    committed = _commit_time(seen, table_id, event["seq"])
                    if committed is None:
                        tally.unmatched += 1
                    else:
                        tally.delays.append(now - committed)
    except Exception:
        pass
    finally:
        tally.closed += 1


async def _client_main(
    port: int, pattern: str, plan: list[tuple[str, int]], ready: mp.Queue, measuring: mp.Event, stop: mp.Event,
    out: mp.Queue,
) -> None:  # fmt: skip
    tally = Tally()
    seen: Seen = {}
    commits = asyncio.create_task(_commits(pattern, seen))
    await asyncio.sleep(0.5)
    tasks = []
    for i, (token, table_id) in enumerate(plan):
        tasks.append(asyncio.create_task(_subscriber(port, token, table_id, seen, tally, measuring)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # do not open them all in the same instant
    deadline = time.monotonic() + 120
    while tally.connected + tally.closed < len(plan) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    ready.put(tally.connected)
    cpu = await _cpu_while_measuring(measuring, stop)
    while not stop.is_set():
        await asyncio.sleep(0.1)
    still_open = len(plan) - tally.closed
    for task in [*tasks, commits]:
        task.cancel()
    await asyncio.gather(*tasks, commits, return_exceptions=True)
    out.put(
        {
            "delays": tally.delays,
            "messages": tally.messages,
            "still_open": still_open,
            "unmatched": tally.unmatched,
            "cpu": cpu,
        }
    )


async def _cpu_while_measuring(measuring: mp.Event, stop: mp.Event) -> float:
    """This process's CPU seconds from when ``measuring`` is set until it is cleared (0 if ``stop`` comes first)."""
    while not measuring.is_set() and not stop.is_set():
        await asyncio.sleep(0.01)
    cpu = time.process_time()
    while measuring.is_set():
        await asyncio.sleep(0.01)
    return time.process_time() - cpu
