"""The subscribers of bench/live.py: client processes, each an asyncio loop holding its share of the floor's
WebSockets, and timing every event a socket receives from its commit to its arrival, and every ``table`` message
(v1.3: the view after the events) from the commit of its version to its arrival.

The commit time is the one the after-commit notification carries (``tables.notify.message``: ``at``, the
committing process's clock, on this machine): each client process also subscribes to the tables' notification
channels in Redis and keeps every version it hears with its ``at``; an event's commit is the first notification
of a version at or past its ``seq``. Deliveries are matched to commits once the step is over, so the order in
which a busy client process happens to read its sockets and its subscription does not matter (matching on
arrival, as this bench first did, counted a delivery read before the notification of its own commit as
"unmatched": 3,638-8,447 of them on the hot tables, issue #45). What is still ``unheard`` at the end is a
delivery whose commit's notification never reached this process (lost, or the subscription dropped: counted
in ``resubscribed``).
"""

from __future__ import annotations

import asyncio
import bisect
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


async def _commits(pattern: str, seen: Seen, tally: Tally) -> None:
    """Record each table's versions as they are announced (after commit), with the commit's time; subscribe
    again if the subscription drops."""
    import msgpack
    import redis.asyncio as aioredis

    while True:
        client = aioredis.Redis.from_url(os.environ["REDIS_URL"])
        try:
            pubsub = client.pubsub()
            await pubsub.psubscribe(pattern)
            async for message in pubsub.listen():
                if message["type"] == "pmessage":
                    now = time.time()
                    body = msgpack.unpackb(message["data"])
                    seen.setdefault(body["table"], []).append((body["version"], float(body.get("at", now))))
        except asyncio.CancelledError:
            raise
        except Exception:
            tally.resubscribed += 1
            await asyncio.sleep(0.1)
        finally:
            await client.aclose()


def _commit_time(commits: list[tuple[int, float]], seq: int) -> float | None:
    """The time of the first commit at or past ``seq`` (``commits``: sorted by version)."""
    found = bisect.bisect_left(commits, (seq, float("-inf")))
    return commits[found][1] if found < len(commits) else None


@dataclass
class Tally:
    """What one client process's sockets saw: how many connected and closed, and while measuring the messages
    and each event's and each table view's (table, seq or version, arrival), matched to commits at the end."""

    events: list[tuple[int, int, float]] = field(default_factory=list)
    views: list[tuple[int, int, float]] = field(default_factory=list)
    connected: int = 0
    closed: int = 0
    messages: int = 0
    resubscribed: int = 0

    def delays(self, seen: Seen, arrivals: list[tuple[int, int, float]]) -> tuple[list[float], int]:
        """Each arrival's delay from its commit, and how many had no commit heard (``unheard``)."""
        ordered = {table: sorted(commits) for table, commits in seen.items()}
        delays, unheard = [], 0
        for table, seq, arrived in arrivals:
            committed = _commit_time(ordered.get(table, []), seq)
            if committed is None:
                unheard += 1
            else:
                delays.append(arrived - committed)
        return delays, unheard


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
                if message["type"] == "table":
                    tally.views.append((table_id, message["table"]["version"], now))
                else:
                    tally.events.extend((table_id, event["seq"], now) for event in message["events"])
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
    commits = asyncio.create_task(_commits(pattern, seen, tally))
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
    delays, unheard = tally.delays(seen, tally.events)
    view_delays, views_unheard = tally.delays(seen, tally.views)
    out.put(
        {
            "delays": delays,
            "view_delays": view_delays,
            "messages": tally.messages,
            "still_open": still_open,
            "unheard": unheard + views_unheard,
            "resubscribed": tally.resubscribed,
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
