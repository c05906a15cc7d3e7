"""Each table's house bankroll (``house:bankroll:table:<id>``) swept into ``house:bankroll`` (API.md; ledger/sweeps.py):
what a sweep posts, that it changes no total, is idempotent, keeps every hand verifiable and the ledger reconciled,
and that beat runs it."""

from __future__ import annotations

import random
import threading

import pytest
from django.conf import settings
from django.db import connection

from ledger import services
from ledger.models import Transaction
from ledger.reconcile import reconcile
from ledger.sweeps import sweep_table_bankroll, sweep_table_bankrolls, tables_to_sweep
from ledger.tasks import sweep_bankrolls
from tables.models import Hand
from tables.verify import verify_hand
from tests.support import chip_events
from tests.support.play import make_players, make_table, play_hands


def _house_hand(user, table_id: int, hand_id: int, *, punter_net: int) -> None:
    """A house-banked hand of ``user`` at ``table_id``: 10 staked each way, the punter nets ``punter_net``."""
    chip_events.reserve_stake(
        cause=f"event:{table_id}:{hand_id}:r", table_id=table_id, hand_id=hand_id, punter=user, punter_amount=10,
        banker=None, banker_amount=10,
    )  # fmt: skip
    chip_events.post_settlement(
        cause=f"event:{table_id}:{hand_id}:s", table_id=table_id, hand_id=hand_id,
        payouts={user.pk: 10 + punter_net, None: 10 - punter_net}, results=[{"user_id": user.pk, "net": punter_net}],
    )  # fmt: skip


@pytest.mark.django_db
def test_a_sweep_moves_the_tables_balance_into_the_bankroll_and_changes_no_total(make_user, operator):
    alice = make_user("alice")
    services.deposit(user=alice, amount=100, reference="r", operator=operator, cause="dep")
    _house_hand(alice, 7, 70, punter_net=-10)  # the house wins 10 at table 7
    _house_hand(alice, 8, 80, punter_net=10)  # and loses 10 at table 8
    _house_hand(alice, 8, 81, punter_net=10)
    assert services.balance("house:bankroll:table:7") == 10 and services.balance("house:bankroll:table:8") == -20
    assert tables_to_sweep() == [7, 8]
    total = services.house_bankroll()

    swept = sweep_table_bankroll(7)
    assert swept is not None and swept.kind == "bankroll_sweep" and swept.table_id == 7 and swept.hand_id is None
    assert swept.cause.startswith("sweep:house:bankroll:table:7:")
    codes = dict(
        Transaction.objects.get(pk=swept.pk).postings.values_list("account__code", "amount")
    )  # fmt: skip
    assert codes == {"house:bankroll:table:7": -10, "house:bankroll": 10}
    assert sweep_table_bankrolls() == 1  # table 8 (a negative balance is swept the same way)
    assert services.balance("house:bankroll:table:7") == 0 and services.balance("house:bankroll:table:8") == 0
    assert services.balance("house:bankroll") == -10 == total == services.house_bankroll()
    # nothing left: a second sweep posts nothing
    assert sweep_table_bankroll(7) is None and sweep_table_bankrolls() == 0 and tables_to_sweep() == []
    assert reconcile().ok


@pytest.mark.django_db
def test_a_table_never_used_by_a_house_bank_is_not_swept():
    assert sweep_table_bankroll(12345) is None
    assert not Transaction.objects.filter(kind="bankroll_sweep").exists()


@pytest.mark.django_db(transaction=True)
def test_sweeps_between_and_during_real_house_banked_hands_keep_every_hand_verified_and_the_ledger_reconciled():
    """Real house-banked tables played through the services, swept between hands while other tables play
    (a thread sweeping as hands post: the locks are taken in one order, so nothing deadlocks); afterwards every
    hand verifies (its ledger check reads only its own entries), reconcile passes and the total is unchanged."""
    players = make_players(3, chips=5000, prefix="sw")
    tables = [make_table("classic", bank="house") for _ in range(2)]
    stop = threading.Event()
    sweeps: list[int] = []

    def sweeper() -> None:
        try:
            while not stop.is_set():
                sweeps.append(sweep_table_bankrolls())
        finally:
            connection.close()

    thread = threading.Thread(target=sweeper)
    thread.start()
    try:
        for round_ in range(2):
            for n, table in enumerate(tables):
                play_hands(table, players, 2, random.Random(round_ * 10 + n))
    finally:
        stop.set()
        thread.join(30)
    sweep_table_bankrolls()
    assert sum(sweeps) >= 1
    for table in tables:
        assert services.balance(f"house:bankroll:table:{table.pk}") == 0
    assert services.house_bankroll() == services.balance("house:bankroll")
    chips = sum(services.wallet_balance(p) for p in players)
    assert services.balance("house:bankroll") == 3 * 5000 - chips  # what the players lost, the house holds
    for hand in Hand.objects.filter(table__in=tables, status="settled"):
        report = verify_hand(hand, record=False)
        assert report.failing() == {}, report
    assert reconcile().ok


def test_beat_sweeps_the_table_bankrolls():
    schedule = settings.CELERY_BEAT_SCHEDULE["sweep-table-bankrolls"]
    assert schedule["task"] == sweep_bankrolls.name == "ledger.sweep_table_bankrolls"
    assert schedule["schedule"] == float(settings.LEDGER_SWEEP_INTERVAL_S) > 0
