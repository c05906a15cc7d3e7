"""Hands as the ledger sees them, for bench/ledger.py: each hand's stakes reserved (punter and banker into the
table's escrow) and then settled, every service call its own committed transaction as one game command is; and
threads that start playing together. Each entry is caused by a stored event moving exactly its chips, as the
database requires (tables/migrations/0017); storing it is not timed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def play_hands(
    table_id: int,
    people: list[Any],
    hands: int,
    house_bank: bool,
    timings: dict[str, list[float]],
    shared_banker: Any = None,
) -> int:
    """Play ``hands`` hands at one table; return the number of postings written. ``shared_banker``: a player who
    banks every table at once (one balance row that all of them lock, as the one house:bankroll row was)."""
    from ledger import services
    from tests.support.chip_events import settlement_entry, stake_entry

    banker = shared_banker if shared_banker is not None else None if house_bank else people[0]
    punters = people[1:]
    postings = 0
    for hand_id in range(1, hands + 1):
        reserved: dict[int | None, int] = {}
        for seat, punter in enumerate(punters):
            stake = 10 + (hand_id + seat) % 90
            entry = stake_entry(
                cause=f"event:{table_id}:{hand_id}:{seat}",
                table_id=table_id,
                hand_id=hand_id,
                punter=punter,
                punter_amount=stake,
                banker=banker,
                banker_amount=stake,
                memo="bet",
            )
            started = time.perf_counter()
            tx = services.reserve_stake(**entry)
            timings["reserve_stake"].append(time.perf_counter() - started)
            postings += len(tx.posted)
            reserved[punter.pk] = stake
            key = None if banker is None else banker.pk
            reserved[key] = reserved.get(key, 0) + stake
        results = []
        for seat, punter in enumerate(punters):  # alternate wins, losses and pushes
            net = (reserved[punter.pk], -reserved[punter.pk], 0)[(hand_id + seat) % 3]
            results.append({"seat": seat + 1, "user_id": punter.pk, "net": net})
        bank = None if banker is None else banker.pk
        payouts = {row["user_id"]: reserved[row["user_id"]] + row["net"] for row in results}
        payouts[bank] = reserved[bank] - sum(row["net"] for row in results)
        entry = settlement_entry(
            cause=f"event:{table_id}:{hand_id}:settle",
            table_id=table_id,
            hand_id=hand_id,
            payouts=payouts,
            results=results,
        )
        started = time.perf_counter()
        tx = services.post_settlement(**entry)
        timings["post_settlement"].append(time.perf_counter() - started)
        postings += len(tx.posted)
    return postings


def run_in_threads(threads: int, work: Callable[[int], int]) -> tuple[int, float]:
    """Run ``work(i)`` in ``threads`` threads released together; returns the sum of what they return and the
    seconds from their release to the last one's end (the first error, if any, is raised)."""
    from django.db import connections

    barrier = threading.Barrier(threads + 1)
    counts = [0] * threads
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            counts[i] = work(i)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=target, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return sum(counts), elapsed
