"""Benchmark of keeping the live sockets' slots (tables/live/limits.py): N open sockets' slots refreshed the way
the live server does now, together (``Keeper.refresh_all``: one pipelined round trip), beside the baseline of one
refresh per socket (what each socket's own task did before: N scripts through the process's pool of 32 Redis
connections, all at once as N sockets opened together would). Prints, for each, the wall time of one round of
refreshes and the CPU this process spent on it (the live process's share; Redis's is not counted).

Usage: python -m devtools.devenv bench bench/live_slots.py [--sockets 2000] [--rounds 5]
(on the Redis of REDIS_URL, under keys of users 980000 and up, removed afterwards)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings_test")

import django

django.setup()

from django.conf import settings  # noqa: E402

from tables.live import limits  # noqa: E402

FIRST_USER = 980_000
USERS = 100  # the bench's spectator accounts (bench/live.py --watchers 100)


async def _one_by_one(slots: list[limits.Slot], ttl_s: int) -> None:
    client = limits._client()
    await asyncio.gather(
        *(client.eval(limits._REFRESH, 1, limits.key(s.user_id), ttl_s, s.member) for s in slots)  # type: ignore[misc]
    )


async def main(sockets: int, rounds: int) -> None:
    ttl_s = settings.LIVE_SLOT_TTL_S
    slots = [limits.Slot(FIRST_USER + i % USERS, f"socket:bench{i}", "socket") for i in range(sockets)]
    keeper = limits.Keeper()
    for slot in slots:
        keeper._slots.add(slot)  # kept, without the keeper's own timer
    results: dict[str, list[tuple[float, float]]] = {"one refresh per socket (baseline)": [], "together": []}
    await keeper.refresh_all(ttl_s)  # warm: the pool's connections and the script cached
    for _ in range(rounds):
        for name, run in (
            ("one refresh per socket (baseline)", lambda: _one_by_one(slots, ttl_s)),
            ("together", lambda: keeper.refresh_all(ttl_s)),
        ):
            wall, cpu = time.perf_counter(), time.process_time()
            await run()
            results[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    await limits._client().delete(*{limits.key(s.user_id) for s in slots})
    load = os.getloadavg()[0]
    print(f"{sockets} sockets' slots of {USERS} users, {rounds} rounds each (median); load average {load:.1f}")
    print(f"{'refresh':<36} {'wall ms':>9} {'CPU ms':>8} {'CPU us/socket':>14}")
    for name, samples in results.items():
        wall = statistics.median(s[0] for s in samples) * 1000
        cpu = statistics.median(s[1] for s in samples) * 1000
        print(f"{name:<36} {wall:>9.1f} {cpu:>8.1f} {cpu * 1000 / sockets:>14.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.sockets, args.rounds))
