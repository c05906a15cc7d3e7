"""Many threads (each with its own database connection and transactions) move chips between the same accounts at
once: no deadlock, no lost update, exact final balances."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import DatabaseError, connections

from ledger import services
from ledger.errors import IdempotencyConflict, InsufficientFunds
from ledger.models import Posting, Transaction
from ledger.reconcile import reconcile
from tests.support import chip_events

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8


def run_threads(work: Callable[[int], Any], threads: int = THREADS) -> list[Any]:
    """Run ``work(i)`` in ``threads`` threads started together; return their results; re-raise any failure."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except BaseException as error:  # reported to the test thread below
            errors.append(error)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=target, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in pool), "a thread hung (deadlock?)"
    if errors:
        raise errors[0]
    return results


def test_crossing_transfers_stakes_and_settlements_neither_deadlock_nor_lose_updates(make_user, operator):
    players = [make_user() for _ in range(4)]
    for user in players:
        services.deposit(user=user, amount=10_000, reference="r", operator=operator, cause=f"request:{user.pk}:d")
    ops_per_thread = 40

    def work(thread: int) -> Counter[int]:
        """Random operations on the same four wallets, the same table escrow, the cage and the bankroll; returns
        this thread's net effect per wallet."""
        rng = random.Random(thread)
        delta: Counter[int] = Counter()
        for n in range(ops_per_thread):
            a, b = rng.sample(players, 2)
            amount = rng.randint(1, 10)
            op = rng.choice(["transfer", "hand", "house_hand", "cage"])
            if op == "transfer":  # both directions between the same pairs, entries in either order
                entries = {f"player:{a.username}": -amount, f"player:{b.username}": amount}
                if rng.random() < 0.5:
                    entries = dict(reversed(list(entries.items())))
                services.post_correction(cause=f"t{thread}:{n}", operator=operator, entries=entries, memo="move")
                delta[a.pk] -= amount
                delta[b.pk] += amount
            elif op in ("hand", "house_hand"):  # a is punter; b (or the house) banks; one shared table escrow
                banker = b if op == "hand" else None
                hand_id = thread * 1000 + n
                chip_events.reserve_stake(
                    cause=f"r{thread}:{n}",
                    table_id=1,
                    hand_id=hand_id,
                    punter=a,
                    punter_amount=amount,
                    banker=banker,
                    banker_amount=amount,
                )
                net = rng.choice([-amount, 0, amount])
                chip_events.post_settlement(
                    cause=f"s{thread}:{n}",
                    table_id=1,
                    hand_id=hand_id,
                    payouts={a.pk: amount + net, (banker.pk if banker else None): amount - net},
                    results=[{"user_id": a.pk, "net": net}],
                )
                delta[a.pk] += net
                if banker:
                    delta[banker.pk] -= net
            else:
                services.deposit(user=a, amount=amount, reference="r", operator=operator, cause=f"d{thread}:{n}")
                services.withdraw(user=b, amount=amount, reference="w", operator=operator, cause=f"w{thread}:{n}")
                delta[a.pk] += amount
                delta[b.pk] -= amount
        return delta

    deltas = run_threads(work)
    expected = {user.pk: 10_000 + sum(d[user.pk] for d in deltas) for user in players}
    assert services.wallet_balances(expected) == expected
    assert services.balance("escrow:table:1") == 0
    report = reconcile()
    assert report.ok, report.render()


def test_concurrent_withdrawals_never_overdraw_and_lose_nothing(make_user, operator):
    user = make_user()
    services.deposit(user=user, amount=1_000, reference="r", operator=operator, cause="request:seed")
    attempts = 20

    def work(thread: int) -> int:
        paid = 0
        for n in range(attempts):
            try:
                services.withdraw(user=user, amount=7, reference="w", operator=operator, cause=f"w{thread}:{n}")
                paid += 1
            except InsufficientFunds:
                pass
        return paid

    paid = sum(run_threads(work))
    assert paid == 1_000 // 7  # 142 of the 160 attempts succeed, whatever the interleaving
    assert services.wallet_balance(user) == 1_000 - 7 * paid
    assert services.balance("house:cage") == -(1_000 - 7 * paid)


def test_the_same_cause_posted_at_once_is_posted_once(make_user, operator):
    punter, banker = make_user(), make_user()
    for user in (punter, banker):
        services.deposit(user=user, amount=100, reference="r", operator=operator, cause=f"request:{user.pk}:d")

    def work(thread: int) -> Any:
        try:
            return chip_events.reserve_stake(
                cause="event:1:7",
                table_id=1,
                hand_id=1,
                punter=punter,
                punter_amount=10,
                banker=banker,
                # half the threads send other content under the same cause
                banker_amount=10 if thread % 2 == 0 else 20,
            ).pk
        except IdempotencyConflict:
            return "conflict"
        except DatabaseError as refused:  # the event stored first carries the other content
            assert "is not what its stored event moves" in str(refused)
            return "conflict"

    outcomes = run_threads(work)
    ids = {o for o in outcomes if o != "conflict"}
    assert len(ids) == 1  # every success is the one transaction
    assert Transaction.objects.filter(cause="event:1:7").count() == 1
    assert Posting.objects.filter(transaction_id__in=ids).count() == 3
    assert services.balance("escrow:table:1") in (20, 30)
    assert outcomes.count("conflict") == THREADS // 2  # the other content loses, whichever posted first
