"""Issue #43, "moves and mints chips": whoever holds the application's database role (web, live, workers, beat)
tried to move chips the game never moved, each as that role and each failing (DESIGN.md principle 17).

- insert ordinary balanced transactions: a victim's wallet 50 -> 10, a thief's 1 -> 1,041, 1,000 minted from the
  cage (the application role inserts no transaction and no posting at all);
- post a hand entry whose legs are not what its event moves, or one naming an event that moves no chips, no event,
  or another table's event (``ledger_hand_entry`` derives the legs from the stored event and refuses the rest).

What it may still do is what the game does: store events. An event it forges moves only what it says, and the signer's
replay of the hand (tables/signer.py) is the check someone else runs on it.
"""

from __future__ import annotations

import json

import pytest
from django.db import DatabaseError, connection, transaction

from ledger import services
from ledger.models import Posting, Transaction
from tests.support import chip_events

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def victim_and_thief(make_user, operator):
    victim, thief = make_user("victim"), make_user("thief")
    services.deposit(user=victim, amount=50, reference="r", operator=operator, cause=f"request:{victim.pk}:d")
    services.deposit(user=thief, amount=1, reference="r", operator=operator, cause=f"request:{thief.pk}:d")
    return victim, thief


def _trace() -> tuple[int, int]:
    return Transaction.objects.count(), Posting.objects.count()


def _balances(victim, thief) -> tuple[int, int, int]:
    return services.wallet_balance(victim), services.wallet_balance(thief), services.balance("house:cage")


def test_the_application_role_inserts_no_transaction_and_no_posting(victim_and_thief):
    victim, thief = victim_and_thief
    before, trace = _balances(victim, thief), _trace()
    wallets = {u.pk: services.wallet_for(u).pk for u in (victim, thief)}
    cage = services.house_account("house:cage").pk
    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, details) "
            "VALUES ('correction', 'moved', 'attack:1', '', '{}') RETURNING id"
        )
    existing = Transaction.objects.order_by("id").first().pk  # postings hung on a transaction that exists
    legs = [(wallets[victim.pk], -40), (wallets[thief.pk], 1_040), (cage, -1_000)]
    for account, amount in legs:
        with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic(), connection.cursor() as c:
            c.execute(
                "INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after) VALUES (%s, %s, %s, 0)",
                [existing, account, amount],
            )
    assert _balances(victim, thief) == before == (50, 1, -51) and _trace() == trace


def _hand_entry(kind: str, cause: str, table_id: int, parties: list[int | None], amounts: list[int], **extra) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT ledger_hand_entry(%s, %s, '', 'forged', %s, 1, NULL, '{}'::jsonb, %s, %s::bigint[], %s::bigint[], "
            "%s::jsonb)",
            [kind, cause, table_id, extra.get("banker"), parties, amounts, json.dumps(extra.get("nets", []))],
        )
        return str(cursor.fetchone()[0])


def test_a_hand_entry_posts_only_what_its_stored_event_moves(victim_and_thief):
    """A real bet of 10 by the thief, banked by the victim for 10; then the calls the attacker made."""
    victim, thief = victim_and_thief
    chip_events.store_event(
        5,
        1,
        {
            "type": "BetPlaced",
            "player_id": str(thief.pk),
            "punter_reserve": 1,
            "banker_reserve": 1,
            "banker_id": str(victim.pk),
        },
    )
    chip_events.store_event(5, 2, {"type": "SeatTaken", "player_id": str(thief.pk), "seat": 2})
    chip_events.store_event(6, 1, {"type": "HandSettled", "payouts": {str(thief.pk): 1_000}, "results": []})
    before, trace = _balances(victim, thief), _trace()
    attempts = [
        # the victim's 40 into escrow under the thief's bet
        ("stake_reserve", "event:5:1", 5, [thief.pk, victim.pk], [-1, -40], {"banker": victim.pk}),
        # the right amounts, another banker
        ("stake_reserve", "event:5:1", 5, [thief.pk, None], [-1, -1], {"banker": None}),
        # the bet's event as a settlement paying the thief
        ("hand_settlement", "event:5:1", 5, [thief.pk], [2], {}),
        # an event that moves no chips, a version with no event, another table's event under this table
        ("stake_reserve", "event:5:2", 5, [thief.pk, victim.pk], [-1, -1], {"banker": victim.pk}),
        ("stake_reserve", "event:5:3", 5, [thief.pk, victim.pk], [-1, -1], {"banker": victim.pk}),
        ("hand_settlement", "event:6:1", 5, [thief.pk], [1_000], {}),
        # a cause of another form altogether
        ("hand_settlement", "attack:6:1", 6, [thief.pk], [1_000], {}),
    ]
    for kind, cause, table_id, parties, amounts, extra in attempts:
        with pytest.raises(DatabaseError, match="is not what its stored event moves"), transaction.atomic():
            _hand_entry(kind, cause, table_id, parties, amounts, **extra)
    assert _balances(victim, thief) == before and _trace() == trace
    # what the event moves is posted
    services.reserve_stake(
        cause="event:5:1", table_id=5, hand_id=1, punter=thief, punter_amount=1, banker=victim, banker_amount=1
    )
    assert _balances(victim, thief) == (49, 0, -51)
