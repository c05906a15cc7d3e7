"""The services the rest of the system calls: what they post, what they refuse, idempotency, reads."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ledger import services
from ledger.errors import (
    BankCannotCover,
    HandAlreadySettled,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidEntry,
    LedgerInvariantError,
    SettlementMismatch,
    UnknownAccount,
)
from ledger.models import Account, Posting, Transaction
from tests.support import chip_events

# Inside the test's transaction, as inside the game's command transaction: each service runs in a savepoint.
# (Commit-time behaviour is covered by the constraint, property and concurrency tests, which really commit.)
pytestmark = pytest.mark.django_db


def _deposit(user, amount, operator, n=1):
    return services.deposit(
        user=user, amount=amount, reference=f"cash-{n}", operator=operator, cause=f"request:{user.pk}:dep{n}"
    )


def _counts() -> tuple[int, int]:
    return Transaction.objects.count(), Posting.objects.count()


@pytest.fixture
def alice(make_user, operator):
    user = make_user("alice")
    _deposit(user, 100, operator)
    return user


@pytest.fixture
def bob(make_user, operator):
    user = make_user("bob")
    _deposit(user, 50, operator)
    return user


# --- the cage -------------------------------------------------------------------------------------------------


def test_deposit_credits_the_wallet_from_the_cage(make_user, operator):
    user = make_user()
    tx = _deposit(user, 250, operator)
    assert tx.kind == "deposit" and tx.actor_id == operator.pk and tx.details["reference"] == "cash-1"
    assert [(p.amount, p.balance_after) for p in tx.posted] == [(-250, -250), (250, 250)]
    assert services.balance(f"player:{user.username}") == 250
    assert services.balance("house:cage") == -250
    wallet = Account.objects.get(user=user)
    assert wallet.code == f"player:{user.username}" and wallet.kind == "wallet"


def test_withdrawal_pays_back_to_the_cage(alice, operator):
    tx = services.withdraw(user=alice, amount=30, reference="out", operator=operator, cause="request:1:w1")
    assert tx.kind == "withdrawal"
    assert [p.balance_after for p in tx.posted] == [70, -70]


def test_withdrawal_beyond_the_wallet_is_refused_and_leaves_no_trace(alice, operator):
    before = _counts()
    with pytest.raises(InsufficientFunds) as refused:
        services.withdraw(user=alice, amount=101, reference="out", operator=operator, cause="request:1:w1")
    assert refused.value.code == "insufficient_funds"
    assert refused.value.to_json()["error"]["details"] == {
        "account": f"player:{alice.username}",
        "balance": 100,
        "amount": 101,
    }
    assert _counts() == before and services.wallet_balance(alice) == 100
    # The refused cause is free: a later valid request with it posts.
    services.withdraw(user=alice, amount=100, reference="out", operator=operator, cause="request:1:w1")
    assert services.wallet_balance(alice) == 0


@pytest.mark.parametrize("amount", [0, -5, 1.5, True, "10", None])
def test_amounts_are_positive_integers(make_user, operator, amount):
    with pytest.raises(InvalidEntry) as refused:
        services.deposit(user=make_user(), amount=amount, reference="r", operator=operator, cause="request:x")
    assert refused.value.code == "invalid_request"
    assert Transaction.objects.count() == 0


def test_a_repeated_cause_with_the_same_content_returns_the_first_transaction(make_user, operator):
    user = make_user()
    first = _deposit(user, 40, operator)
    before = _counts()
    again = _deposit(user, 40, operator)
    assert again.pk == first.pk
    assert [p.pk for p in again.posted] == [p.pk for p in first.posted]
    assert _counts() == before and services.wallet_balance(user) == 40


def test_a_repeated_cause_with_other_content_is_an_idempotency_conflict(make_user, operator):
    user = make_user()
    first = _deposit(user, 40, operator)
    with pytest.raises(IdempotencyConflict) as conflict:
        services.deposit(user=user, amount=41, reference="cash-1", operator=operator, cause=first.cause)
    assert conflict.value.code == "idempotency_conflict"
    assert conflict.value.details["transaction_id"] == first.pk
    with pytest.raises(IdempotencyConflict):  # the same cause for another kind of entry
        services.withdraw(user=user, amount=40, reference="cash-1", operator=operator, cause=first.cause)
    assert services.wallet_balance(user) == 40


# --- stakes ---------------------------------------------------------------------------------------------------


def test_reserve_with_a_house_bank_takes_the_cover_from_the_bankroll(alice):
    tx = chip_events.reserve_stake(
        cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=10, banker=None, banker_amount=10
    )
    assert tx.kind == "stake_reserve" and tx.hand_id == 70 and tx.table_id == 7 and tx.actor_id == alice.pk
    assert [(p.amount, p.balance_after) for p in tx.posted] == [(-10, 90), (-10, -10), (20, 20)]
    assert services.balance("escrow:table:7") == 20
    # the table's part of the house bankroll (no shared row between tables); the bankroll may go negative
    assert services.balance("house:bankroll:table:7") == -10 and services.house_bankroll() == -10


def test_reserve_with_a_player_banker_takes_from_both_wallets(alice, bob):
    chip_events.reserve_stake(
        cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=40, banker=bob, banker_amount=50
    )
    assert services.wallet_balances([alice.pk, bob.pk]) == {alice.pk: 60, bob.pk: 0}
    assert services.balance("escrow:table:7") == 90


def test_reserve_skips_a_zero_amount(alice, bob):
    tx = chip_events.reserve_stake(
        cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=10, banker=bob, banker_amount=0
    )
    assert [p.amount for p in tx.posted] == [-10, 10]
    with pytest.raises(InvalidEntry):
        chip_events.reserve_stake(
            cause="event:7:4", table_id=7, hand_id=70, punter=alice, punter_amount=0, banker=bob, banker_amount=0
        )


def test_a_punter_short_of_chips_is_refused_with_insufficient_funds(alice, bob):
    before = _counts()
    with pytest.raises(InsufficientFunds):
        chip_events.reserve_stake(
            cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=101, banker=bob, banker_amount=5
        )
    assert _counts() == before
    assert services.wallet_balances([alice.pk, bob.pk]) == {alice.pk: 100, bob.pk: 50}


def test_a_banker_who_cannot_cover_is_refused_with_bank_cannot_cover(alice, bob):
    before = _counts()
    with pytest.raises(BankCannotCover) as refused:
        chip_events.reserve_stake(
            cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=20, banker=bob, banker_amount=51
        )
    assert refused.value.code == "bank_cannot_cover"
    assert _counts() == before and services.balance("escrow:table:7") == 0


def test_the_punter_cannot_bank_his_own_stake(alice):
    with pytest.raises(InvalidEntry):
        chip_events.reserve_stake(
            cause="e", table_id=7, hand_id=70, punter=alice, punter_amount=1, banker=alice, banker_amount=1
        )


def test_all_stakes_of_a_hand_have_the_same_banker(alice, bob, make_user, operator):
    carol = make_user("carol")
    _deposit(carol, 100, operator)
    chip_events.reserve_stake(
        cause="event:7:3", table_id=7, hand_id=70, punter=alice, punter_amount=5, banker=bob, banker_amount=5
    )
    with pytest.raises(LedgerInvariantError):
        chip_events.reserve_stake(
            cause="event:7:4", table_id=7, hand_id=70, punter=carol, punter_amount=5, banker=None, banker_amount=5
        )


# --- settlement -----------------------------------------------------------------------------------------------


@pytest.fixture
def hand_in_play(alice, bob, make_user, operator):
    """Table 7, hand 70, banker bob: alice stakes 10 (reserve 10, bob covers 10), carol stakes 20 (reserve
    20, bob covers 20)."""
    carol = make_user("carol")
    _deposit(carol, 100, operator)
    for n, (punter, stake) in enumerate([(alice, 10), (carol, 20)]):
        chip_events.reserve_stake(
            cause=f"event:7:{n}",
            table_id=7,
            hand_id=70,
            punter=punter,
            punter_amount=stake,
            banker=bob,
            banker_amount=stake,
        )
    return alice, bob, carol


def test_settlement_pays_out_of_escrow_and_leaves_the_hand_at_zero(hand_in_play):
    alice, bob, carol = hand_in_play
    results = [{"seat": 1, "user_id": alice.pk, "net": 10}, {"seat": 2, "user_id": carol.pk, "net": -20}]
    # alice wins 10: gets 10 + 10; carol loses 20: gets 0; bob: 30 reserved - 10 + 20 = 40.
    tx = chip_events.post_settlement(
        cause="event:7:9", table_id=7, hand_id=70, payouts={alice.pk: 20, bob.pk: 40, carol.pk: 0}, results=results
    )
    assert tx.kind == "hand_settlement" and tx.details["results"] == results and tx.details["banker"] == bob.pk
    assert [p.amount for p in tx.posted] == [-60, 20, 40]  # zero payouts get no posting
    assert services.balance("escrow:table:7") == 0
    assert services.wallet_balances([alice.pk, bob.pk, carol.pk]) == {alice.pk: 110, bob.pk: 60, carol.pk: 80}


def test_settlement_leaves_other_hands_of_the_table_in_escrow(hand_in_play, make_user, operator):
    alice, bob, carol = hand_in_play
    chip_events.reserve_stake(
        cause="event:7:20", table_id=7, hand_id=71, punter=alice, punter_amount=5, banker=None, banker_amount=5
    )
    chip_events.post_settlement(
        cause="event:7:9",
        table_id=7,
        hand_id=70,
        payouts={alice.pk: 20, bob.pk: 30, carol.pk: 10},
        results=[{"user_id": alice.pk, "net": 10}, {"user_id": carol.pk, "net": -10}],
    )
    assert services.balance("escrow:table:7") == 10


def test_house_bank_settlement_pays_the_bankroll(alice):
    chip_events.reserve_stake(
        cause="event:7:1", table_id=7, hand_id=70, punter=alice, punter_amount=10, banker=None, banker_amount=10
    )
    chip_events.post_settlement(
        cause="event:7:2", table_id=7, hand_id=70, payouts={None: 20}, results=[{"user_id": alice.pk, "net": -10}]
    )
    assert services.balance("house:bankroll:table:7") == 10 and services.wallet_balance(alice) == 90
    assert services.house_bankroll() == 10


def test_payouts_must_add_up_to_what_the_hand_holds(hand_in_play):
    alice, bob, carol = hand_in_play
    before = _counts()
    with pytest.raises(SettlementMismatch, match="holds 60"):
        chip_events.post_settlement(
            cause="event:7:9",
            table_id=7,
            hand_id=70,
            payouts={alice.pk: 20, bob.pk: 39},
            results=[{"user_id": alice.pk, "net": 10}, {"user_id": carol.pk, "net": -20}],
        )
    assert _counts() == before


def test_payouts_must_match_the_results(hand_in_play):
    alice, bob, carol = hand_in_play
    with pytest.raises(SettlementMismatch, match="do not match its results") as refused:
        chip_events.post_settlement(
            cause="event:7:9",
            table_id=7,
            hand_id=70,
            payouts={alice.pk: 30, bob.pk: 30},  # sums to 60
            results=[{"user_id": alice.pk, "net": 10}, {"user_id": carol.pk, "net": -20}],
        )
    assert refused.value.code == "settlement_mismatch"
    assert {d["party"] for d in refused.value.details["differences"]} == {alice.pk, bob.pk}


def test_a_hand_is_settled_once(hand_in_play):
    alice, bob, carol = hand_in_play
    args = {
        "table_id": 7,
        "hand_id": 70,
        "payouts": {alice.pk: 20, bob.pk: 40},
        "results": [{"user_id": alice.pk, "net": 10}, {"user_id": carol.pk, "net": -20}],
    }
    first = chip_events.post_settlement(cause="event:7:9", **args)
    assert chip_events.post_settlement(cause="event:7:9", **args).pk == first.pk  # a retried event
    with pytest.raises(HandAlreadySettled):
        chip_events.post_settlement(cause="event:7:10", **args)
    with pytest.raises(HandAlreadySettled):
        chip_events.reserve_stake(
            cause="event:7:11", table_id=7, hand_id=70, punter=alice, punter_amount=1, banker=bob, banker_amount=0
        )


def test_a_hand_without_reserves_cannot_be_settled(alice):
    with pytest.raises(SettlementMismatch, match="no stake reserves"):
        chip_events.post_settlement(cause="event:7:9", table_id=7, hand_id=70, payouts={}, results=[])


@pytest.mark.parametrize(
    "results",
    [
        [{"net": 1}],
        [{"user_id": "1", "net": 1}],
        [{"user_id": 1, "net": 1.0}],
        "x",
        [1],
        [{"user_id": 1, "net": 0, "when": object()}],  # not storable as JSON
    ],
)
def test_results_rows_carry_integer_user_id_and_net(hand_in_play, results):
    with pytest.raises(InvalidEntry):
        chip_events.post_settlement(cause="event:7:9", table_id=7, hand_id=70, payouts={}, results=results)


# --- corrections ----------------------------------------------------------------------------------------------


def test_a_correction_is_a_new_balanced_entry(alice, bob, operator):
    entries = {f"player:{alice.username}": -15, f"player:{bob.username}": 15}
    tx = services.post_correction(
        cause="correction:1", operator=operator, entries=entries, memo="chips credited twice", dispute_id=3
    )
    assert tx.kind == "correction" and tx.actor_id == operator.pk and tx.details["dispute_id"] == 3
    assert services.wallet_balances([alice.pk, bob.pk]) == {alice.pk: 85, bob.pk: 65}
    repeat = services.post_correction(
        cause="correction:1", operator=operator, entries=entries, memo="another wording", dispute_id=3
    )
    assert repeat.pk == tx.pk  # the memo is not part of the content
    with pytest.raises(IdempotencyConflict):
        services.post_correction(cause="correction:1", operator=operator, entries=entries, memo="x")


def test_a_correction_can_touch_house_accounts_and_escrows(alice, operator):
    services.post_correction(cause="c", operator=operator, entries={"house:fees": 3, "house:bankroll": -3}, memo="fee")
    assert services.balance("house:fees") == 3


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        ({"house:fees": 3, "house:bankroll": -2}, InvalidEntry),  # unbalanced
        ({"house:fees": 3}, InvalidEntry),  # one leg
        ({"house:fees": 0, "house:bankroll": 0}, InvalidEntry),
        ({"player:nobody-at-all": 3, "house:bankroll": -3}, UnknownAccount),
        ({"bank:of:nowhere": 3, "house:bankroll": -3}, InvalidEntry),
    ],
)
def test_bad_corrections_are_refused(operator, entries, error):
    with pytest.raises(error):
        services.post_correction(cause="c", operator=operator, entries=entries, memo="why")
    assert Transaction.objects.filter(kind="correction").count() == 0


def test_a_correction_cannot_overdraw_a_wallet(alice, operator):
    with pytest.raises(InsufficientFunds):
        services.post_correction(
            cause="c", operator=operator, entries={f"player:{alice.username}": -101, "house:cage": 101}, memo="x"
        )


def test_a_correction_needs_a_memo(alice, operator):
    with pytest.raises(InvalidEntry):
        services.post_correction(cause="c", operator=operator, entries={"house:fees": 1, "house:cage": -1}, memo=" ")


# --- inside a caller's transaction ----------------------------------------------------------------------------


def test_a_refusal_inside_a_callers_transaction_rolls_back_only_the_service(alice, bob, operator):
    with transaction.atomic():
        _deposit(alice, 5, operator, n=2)
        with pytest.raises(BankCannotCover):
            chip_events.reserve_stake(
                cause="event:7:1",
                table_id=7,
                hand_id=70,
                punter=alice,
                punter_amount=5,
                banker=bob,
                banker_amount=500,
            )
        chip_events.reserve_stake(  # the next event: the refused one's chips are never posted
            cause="event:7:2", table_id=7, hand_id=70, punter=alice, punter_amount=5, banker=bob, banker_amount=5
        )
    assert services.wallet_balances([alice.pk, bob.pk]) == {alice.pk: 100, bob.pk: 45}


def test_a_callers_rollback_takes_the_entries_with_it(alice, bob):
    with pytest.raises(RuntimeError), transaction.atomic():
        chip_events.reserve_stake(
            cause="event:7:1", table_id=7, hand_id=70, punter=alice, punter_amount=5, banker=bob, banker_amount=5
        )
        raise RuntimeError("the command failed after posting")
    assert services.wallet_balances([alice.pk, bob.pk]) == {alice.pk: 100, bob.pk: 50}
    assert not Transaction.objects.filter(cause="event:7:1").exists()


# --- cost -----------------------------------------------------------------------------------------------------


def test_a_stake_reserve_costs_a_handful_of_statements(alice, bob):
    chip_events.reserve_stake(
        cause="event:7:1", table_id=7, hand_id=70, punter=alice, punter_amount=5, banker=bob, banker_amount=5
    )
    entry = chip_events.stake_entry(
        cause="event:7:2", table_id=7, hand_id=70, punter=alice, punter_amount=5, banker=bob, banker_amount=5
    )
    with CaptureQueriesContext(connection) as captured:
        services.reserve_stake(**entry)
    # one call of ledger_hand_entry (cause lookup, lock, hand state, transaction and postings), no savepoint
    assert [q["sql"][:30] for q in captured.captured_queries] == ["SELECT ledger_hand_entry('stak"]


# --- reads ----------------------------------------------------------------------------------------------------


def test_balances_read_by_account_or_code_and_zero_for_unused_accounts(alice, make_user):
    assert services.balance(services.wallet_for(alice)) == 100
    assert services.balance(f"player:{alice.username}") == 100
    assert services.balance("escrow:table:999") == 0
    assert services.balance(f"player:{make_user().username}") == 0
    with pytest.raises(InvalidEntry):
        services.balance("nonsense")


def test_wallet_balances_is_one_query(alice, bob, make_user, django_assert_num_queries):
    stranger = make_user()
    with django_assert_num_queries(1):
        found = services.wallet_balances([alice.pk, bob.pk, stranger.pk])
    assert found == {alice.pk: 100, bob.pk: 50, stranger.pk: 0}


def test_account_postings_are_the_me_ledger_rows_newest_first(alice, bob):
    chip_events.reserve_stake(
        cause="event:7:1",
        table_id=7,
        hand_id=70,
        punter=alice,
        punter_amount=10,
        banker=bob,
        banker_amount=10,
        memo="bet 10",
    )
    rows = [services.ledger_row(p) for p in services.account_postings(f"player:{alice.username}")]
    assert [(r["kind"], r["amount"], r["balance_after"], r["hand_id"], r["memo"]) for r in rows] == [
        ("stake_reserve", -10, 90, 70, "bet 10"),
        ("deposit", 100, 100, None, "deposit cash-1"),
    ]
    assert set(rows[0]) == {"transaction_id", "at", "kind", "amount", "balance_after", "hand_id", "memo"}
    newest = services.account_postings(f"player:{alice.username}")[0]
    older = services.account_postings(services.wallet_for(alice), before_id=newest.pk)
    assert [p.amount for p in older] == [100]


def test_hand_ledger_lists_the_hands_entries(hand_in_play):
    alice, bob, _carol = hand_in_play
    entries = services.hand_ledger(table_id=7, hand_id=70)
    assert [e["kind"] for e in entries] == ["stake_reserve", "stake_reserve"]
    assert entries[0]["postings"] == [
        {"account": f"player:{alice.username}", "amount": -10},
        {"account": f"player:{bob.username}", "amount": -10},
        {"account": "escrow:table:7", "amount": 20},
    ]


def test_accounts_are_created_once_with_the_api_codes(alice):
    assert services.wallet_for(alice).pk == services.wallet_for(alice.pk).pk
    assert services.escrow_for(12).code == "escrow:table:12"
    assert services.house_account("house:fees").kind == "fees"
    with pytest.raises(InvalidEntry):
        services.house_account("house:vault")
