"""The banker's turn, settlement of every punter hand (§5), bank passing (§6) and the next opening."""

from __future__ import annotations

from . import opening
from .banking import next_banker
from .events import (
    HOUSE,
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    CardDealt,
    CardTurnedUp,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandResult,
    HandSettled,
    HandStood,
    SeatLeft,
)
from .scoring import BUST, PAIR7, evaluate, house_banker_draws, settle_hand
from .state import UNSETTLED_STATUSES, VOID
from .tx import Tx


def banker_after_card(tx: Tx) -> bool:
    """Evaluate the banker's hand after a card; True if it ended by itself (bust, 15 hp, pair of sevens)."""
    b = tx.hand.banker
    score = evaluate(b.cards, tx.rules)
    if score.category == BUST:
        tx.emit(
            HandBusted(
                seat=b.seat,
                hand=0,
                banker=True,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                cards=b.cards,
            )
        )
        return True
    if score.category == PAIR7:
        tx.emit(HandMadePairOfSevens(seat=b.seat, hand=0, banker=True, cards=b.cards))
        return True
    if score.total_hp == 15:
        tx.emit(
            HandMadeSevenHalf(
                seat=b.seat,
                hand=0,
                banker=True,
                category=score.category,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                cards=b.cards,
            )
        )
        return True
    return False


def banker_turn(tx: Tx) -> None:
    """The banker's turn: skipped if no punter hand is unsettled; else his card is turned up and he plays
    (a house banker by the published ``banker_stands_at_hp`` rule, using only his own cards)."""
    hand = tx.hand
    b = hand.banker
    if not any(h.status in UNSETTLED_STATUSES for h in hand.punters):
        tx.emit(BankerTurnSkipped(seat=b.seat))
        settle(tx)
        return
    tx.emit(BankerTurnStarted(seat=b.seat))
    tx.emit(CardTurnedUp(seat=b.seat, hand=0, banker=True, card=b.cards[0]))
    if banker_after_card(tx):
        settle(tx)
        return
    if b.player_id is not None:
        tx.emit(ActionAwaited(seat=b.seat, hand=0, kind="banker", deadline_ms=tx.turn_deadline()))
        return
    while house_banker_draws(evaluate(tx.hand.banker.cards, tx.rules), tx.rules):
        drawn = opening.draw(tx)
        if drawn is None:
            tx.emit(HandStood(seat=None, hand=0, banker=True, reason="stock_exhausted"))
            settle(tx)
            return
        tx.emit(
            CardDealt(
                number=hand.number,
                seat=None,
                player_id=None,
                hand=0,
                banker=True,
                card=drawn[0],
                face_up=True,
                deck_index=drawn[1],
            )
        )
        if banker_after_card(tx):
            settle(tx)
            return
    tx.emit(HandStood(seat=None, hand=0, banker=True, reason="house_rule"))
    settle(tx)


def settle(tx: Tx) -> None:
    """Settle every staked punter hand (§5), pay the escrow back, pass the bank (§6), let leavers go and
    open the next hand when possible."""
    hand = tx.hand
    rules = tx.rules
    b = hand.banker
    banker_score = evaluate(b.cards, rules) if b.played else None
    results: list[HandResult] = []
    payouts: dict[str, int] = {}
    banker_key = b.player_id if b.player_id is not None else HOUSE
    banker_payout = 0
    reserved_by_banker = False
    split_seats = hand.split_seats
    for h in hand.punters:
        # PunterHand field by field (order checked in evolve_hand)
        number, index, pid, stake, cards, _, status, _, _, _, _, punter_reserve, banker_reserve, _ = h
        if stake == 0 or status == VOID:
            continue
        score = evaluate(cards, rules, split=number in split_seats)
        outcome, tie, multiplier, net = settle_hand(score, stake, banker_score, rules)
        category, total, matta = score
        results.append(
            HandResult(
                seat=number,
                player_id=pid,
                hand=index,
                bet=stake,
                category=category,
                total_half_points=total,
                matta_value=matta,
                outcome=outcome,
                tie=tie,
                multiplier=multiplier,
                net=net,
            )
        )
        payouts[pid] = payouts.get(pid, 0) + punter_reserve + net
        banker_payout += banker_reserve - net
        reserved_by_banker = True
    if reserved_by_banker:
        payouts[banker_key] = payouts.get(banker_key, 0) + banker_payout
    for party, amount in payouts.items():
        tx.move(None if party == HOUSE else party, amount)
    next_seat, next_id, reason = next_banker(tx, results)
    tx.emit(
        HandSettled(
            number=hand.number,
            results=tuple(results),
            payouts=payouts,
            banker_seat=b.seat,
            banker_id=b.player_id,
            banker_net=-sum(r.net for r in results),
            banker_category=banker_score.category if banker_score else None,
            banker_total_half_points=banker_score.total_hp if banker_score else None,
            banker_matta_value=banker_score.matta_hp if banker_score else None,
            next_banker_seat=next_seat,
            next_banker_id=next_id,
            bank_reason=reason,
            server_seed=tx.server_seed(hand),
        )
    )
    for seat in tx.state.seats:
        if seat.leaving:
            tx.emit(SeatLeft(seat=seat.seat, player_id=seat.player_id, reason="after_hand"))
    if tx.commits_ahead(hand):
        tx.commit_next_seed()
    opening.try_open_hand(tx, trigger=False)


def abandon_without_seed(tx: Tx) -> None:
    """The hand in play cannot be dealt on or revealed (its sealed seed cannot be opened): abandon it, return
    every reserve taken in it to whoever put it up, let leavers go and commit a fresh seed for the next hand."""
    hand = tx.hand
    payouts: dict[str, int] = {}
    for h in hand.punters:
        if h.punter_reserve:
            payouts[h.player_id] = payouts.get(h.player_id, 0) + h.punter_reserve
        if h.banker_reserve:
            banker_key = hand.banker.player_id if hand.banker.player_id is not None else HOUSE
            payouts[banker_key] = payouts.get(banker_key, 0) + h.banker_reserve
    for party, amount in payouts.items():
        tx.move(None if party == HOUSE else party, amount)
    tx.emit(HandAbandoned(number=hand.number, reason="seed_unavailable", server_seed="", payouts=payouts))
    for seat in tx.state.seats:
        if seat.leaving:
            tx.emit(SeatLeft(seat=seat.seat, player_id=seat.player_id, reason="after_hand"))
    tx.commit_next_seed()
