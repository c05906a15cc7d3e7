"""Property test: random sequences of deposits, withdrawals, stake reserves and settlements for many players,
refused ones included, keep the ledger's invariants after every step (each step commits for real).

A model of the wallets and hands predicts every outcome; after each step: the trial balance is zero, every
balance equals the sum of its postings, no wallet or escrow is negative, the table's escrow holds exactly the
reserves of its hands in play, the wallets are what the model says, and a refused operation left no trace.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ledger import services
from ledger.errors import (
    BankCannotCover,
    HandAlreadySettled,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidEntry,
    LedgerError,
    SettlementMismatch,
)
from ledger.reconcile import reconcile
from tests.support import chip_events
from tests.support.staff import staff_user

PLAYERS = 5
_runs = itertools.count(1)
OUTCOMES: Counter[str] = Counter()


@dataclass
class Hand:
    hand_id: int
    banker: int | None  # user id, None for the house
    reserved: dict[int | None, int] = field(default_factory=dict)  # party -> chips it put in escrow
    punters: set[int] = field(default_factory=set)
    settled: bool = False

    @property
    def held(self) -> int:
        return 0 if self.settled else sum(self.reserved.values())


def sql(statement: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(statement)
        return cursor.fetchall()


def _ledger_trace() -> tuple[Any, ...]:
    """Everything a refused operation must leave unchanged."""
    return (
        sql("SELECT count(*), coalesce(max(id), 0) FROM ledger_transaction")[0],
        sql("SELECT count(*), coalesce(max(id), 0) FROM ledger_posting")[0],
        tuple(sql("SELECT account_id, balance FROM ledger_balance ORDER BY account_id")),
    )


class LedgerMachine(RuleBasedStateMachine):
    @initialize(funding=st.lists(st.integers(0, 600), min_size=PLAYERS, max_size=PLAYERS))
    def open_casino(self, funding: list[int]) -> None:
        run = next(_runs)
        user_model = get_user_model()
        self.operator = staff_user(f"prop{run}-op", "operator", password="x" * 12)
        self.players = [user_model.objects.create(username=f"prop{run}-p{i}").pk for i in range(PLAYERS)]
        self.table_id = 10_000 + run
        self.wallets = dict.fromkeys(self.players, 0)
        self.hands: list[Hand] = []
        self.causes = itertools.count(1)
        self.last: tuple[Any, Any, int] | None = None  # (service, kwargs, transaction id) of the last success
        for player, amount in enumerate(funding):
            if amount:
                self.deposit(player, amount)
        self.open_hand(None)

    # --- helpers ---------------------------------------------------------------------------------------------

    def _cause(self) -> str:
        return f"event:{self.table_id}:{next(self.causes)}"  # the bridge's form: a hand entry's names its event

    def _post(self, service: Any, expected_error: type[LedgerError] | None, **kwargs: Any) -> bool:
        before = _ledger_trace()
        outcome = f"{service.__name__}: " + (f"refused, {expected_error.__name__}" if expected_error else "posted")
        event(outcome)
        OUTCOMES[outcome] += 1
        if expected_error is not None:
            with pytest.raises(expected_error):
                service(**kwargs)
            assert _ledger_trace() == before, "a refused operation left a trace"
            return False
        tx = service(**kwargs)
        self.last = (service, kwargs, tx.pk)
        return True

    # --- the cage ----------------------------------------------------------------------------------------------

    @rule(player=st.integers(0, PLAYERS - 1), amount=st.integers(1, 300))
    def deposit(self, player: int, amount: int) -> None:
        user = self.players[player]
        self._post(
            services.deposit,
            None,
            user=user,
            amount=amount,
            reference="cash",
            operator=self.operator,
            cause=self._cause(),
        )
        self.wallets[user] += amount

    @rule(player=st.integers(0, PLAYERS - 1), amount=st.integers(1, 250))
    def withdraw(self, player: int, amount: int) -> None:
        user = self.players[player]
        short = self.wallets[user] < amount
        if self._post(
            services.withdraw,
            InsufficientFunds if short else None,
            user=user,
            amount=amount,
            reference="out",
            operator=self.operator,
            cause=self._cause(),
        ):
            self.wallets[user] -= amount

    # --- hands -------------------------------------------------------------------------------------------------

    @rule(banker=st.one_of(st.none(), st.integers(0, PLAYERS - 1)))
    def open_hand(self, banker: int | None) -> None:
        self.hands.append(Hand(hand_id=len(self.hands) + 1, banker=None if banker is None else self.players[banker]))

    @precondition(lambda self: self.hands)
    @rule(
        pick=st.integers(0, 1_000),
        punter=st.integers(0, PLAYERS - 1),
        punter_amount=st.integers(0, 150),
        banker_amount=st.integers(0, 150),
    )
    def reserve(self, pick: int, punter: int, punter_amount: int, banker_amount: int) -> None:
        open_hands = [h for h in self.hands if not h.settled]
        # Mostly a hand in play; now and then a settled one (refused).
        hand = open_hands[pick % len(open_hands)] if open_hands and pick < 900 else self.hands[pick % len(self.hands)]
        user = self.players[punter]
        error: type[LedgerError] | None = None
        if (punter_amount == 0 and banker_amount == 0) or user == hand.banker:
            error = InvalidEntry
        elif hand.settled:
            error = HandAlreadySettled
        elif self.wallets[user] < punter_amount:
            error = InsufficientFunds
        elif hand.banker is not None and self.wallets[hand.banker] < banker_amount:
            error = BankCannotCover
        if self._post(
            chip_events.reserve_stake,
            error,
            cause=self._cause(),
            table_id=self.table_id,
            hand_id=hand.hand_id,
            punter=user,
            punter_amount=punter_amount,
            banker=hand.banker,
            banker_amount=banker_amount,
        ):
            self.wallets[user] -= punter_amount
            hand.reserved[user] = hand.reserved.get(user, 0) + punter_amount
            hand.punters.add(user)
            if hand.banker is not None:
                self.wallets[hand.banker] -= banker_amount
            hand.reserved[hand.banker] = hand.reserved.get(hand.banker, 0) + banker_amount

    @precondition(lambda self: any(h.punters and not h.settled for h in self.hands))
    @rule(pick=st.integers(0, 1_000), amount=st.integers(1, 100), cover=st.integers(0, 100))
    def raise_stake(self, pick: int, amount: int, cover: int) -> None:
        """A punter already in a hand adds to his stake (a raise, a split): another reserve."""
        open_hands = [h for h in self.hands if h.punters and not h.settled]
        hand = open_hands[pick % len(open_hands)]
        punters = sorted(hand.punters)
        in_play = [h for h in self.hands if not h.settled]
        self.reserve(in_play.index(hand), self.players.index(punters[pick % len(punters)]), amount, cover)

    @precondition(lambda self: any(h.punters and not h.settled for h in self.hands))
    @rule(pick=st.integers(0, 1_000), seed=st.integers(0, 2**32), tamper=st.sampled_from([0, 0, 0, 0, 0, 1, -1]))
    def settle(self, pick: int, seed: int, tamper: int) -> None:
        open_hands = [h for h in self.hands if h.punters and not h.settled]
        hand = open_hands[pick % len(open_hands)]
        rng = random.Random(seed)
        # Each punter loses at most what he reserved; winners are paid from the banker's reserve.
        cover = hand.reserved.get(hand.banker, 0)
        results = []
        for seat, user in enumerate(sorted(hand.punters)):
            net = rng.randint(-hand.reserved[user], max(0, min(hand.reserved[user], cover)))
            cover -= max(net, 0)
            results.append({"seat": seat, "user_id": user, "net": net})
        nets = {row["user_id"]: row["net"] for row in results}
        payouts: dict[int | None, int] = {
            party: reserved + nets.get(party, 0) for party, reserved in hand.reserved.items() if party != hand.banker
        }
        payouts[hand.banker] = hand.reserved.get(hand.banker, 0) - sum(nets.values())
        assert min(payouts.values()) >= 0
        error: type[LedgerError] | None = None
        if tamper:  # a buggy caller: one chip too many or too few
            payouts[hand.banker] += tamper
            # one chip too few of a payout of 0 is a negative amount, refused before the sums are compared
            error = InvalidEntry if payouts[hand.banker] < 0 else SettlementMismatch
        if self._post(
            chip_events.post_settlement,
            error,
            cause=self._cause(),
            table_id=self.table_id,
            hand_id=hand.hand_id,
            payouts=payouts,
            results=results,
        ):
            hand.settled = True
            for party, amount in payouts.items():
                if party is not None:
                    self.wallets[party] += amount
            self.open_hand(rng.choice([None, *range(PLAYERS)]))  # the table deals the next hand

    # --- retries -----------------------------------------------------------------------------------------------

    @precondition(lambda self: self.last is not None)
    @rule()
    def repeat_last(self) -> None:
        assert self.last is not None
        service, kwargs, tx_id = self.last
        before = _ledger_trace()
        assert service(**kwargs).pk == tx_id
        assert _ledger_trace() == before, "a repeated cause posted again"

    @precondition(lambda self: self.last is not None)
    @rule()
    def reuse_cause_for_other_content(self) -> None:
        assert self.last is not None
        _, kwargs, _ = self.last
        self._post(
            services.deposit,
            IdempotencyConflict,
            user=self.players[0],
            amount=1,
            reference="other",
            operator=self.operator,
            cause=kwargs["cause"],
        )

    # --- invariants ---------------------------------------------------------------------------------------------

    @invariant()
    def ledger_is_consistent(self) -> None:
        """Trial balance zero, every balance equal to the sum of its postings, no wallet or escrow below zero
        (one query: the invariants run after every step)."""
        ((trial_balance, differing, negative),) = sql(
            """SELECT (SELECT coalesce(sum(balance), 0) FROM ledger_balance),
                      (SELECT count(*) FROM ledger_balance b
                         LEFT JOIN (SELECT account_id, sum(amount) AS total FROM ledger_posting GROUP BY account_id) s
                           ON s.account_id = b.account_id
                        WHERE b.balance <> coalesce(s.total, 0)),
                      (SELECT count(*) FROM ledger_balance WHERE kind IN ('wallet', 'escrow') AND balance < 0)"""
        )
        assert (trial_balance, differing, negative) == (0, 0, 0)

    @invariant()
    def wallets_and_escrow_are_what_the_model_says(self) -> None:
        assert services.wallet_balances(self.players) == self.wallets
        assert services.balance(f"escrow:table:{self.table_id}") == sum(h.held for h in self.hands)


@pytest.mark.django_db(transaction=True)
def test_random_operations_keep_the_ledger_invariants() -> None:
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=50,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
    # The run was not vacuous: hands were settled and operations were refused.
    assert OUTCOMES["post_settlement: posted"] and OUTCOMES["reserve_stake: posted"], OUTCOMES
    assert sum(n for outcome, n in OUTCOMES.items() if "refused" in outcome), OUTCOMES
    # And the whole history reconciles.
    report = reconcile()
    assert report.ok, report.render()
