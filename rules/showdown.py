"""The banker's turn, settlement of every punter hand (§5) with bank passing (§6), and the abandoned hands:
steps of the automatic course of a hand (``flow`` decides when they run)."""

from __future__ import annotations

from gamemath.enums import UNSETTLED, AbandonReason, BankReason, HandStatus, LeaveReason, Phase, StandReason
from gamemath.scoring import Score, evaluate, house_banker_draws, settle_hand
from rules.banking import can_hold_bank, next_banker, pass_bank_from
from rules.draft import Draft
from rules.events import (
    HOUSE,
    BankerTurnSkipped,
    BankerTurnStarted,
    CardTurnedUp,
    HandAbandoned,
    HandResult,
    HandSettled,
    HandStood,
    SeatLeft,
)
from rules.opening import deal, draw
from rules.turns import show_if_done


def start_banker_turn(draft: Draft) -> None:
    """The banker's turn: skipped if no punter hand is left unsettled; else his card is turned up (his hand may
    end at once: bust, 15 hp, a pair of sevens)."""
    hand = draft.hand
    b = hand.banker
    if not any(h.status in UNSETTLED for h in hand.punters):
        draft.emit(BankerTurnSkipped(seat=b.seat))
        return
    draft.emit(BankerTurnStarted(seat=b.seat))
    draft.emit(CardTurnedUp(seat=b.seat, hand=0, banker=True, card=b.cards[0]))
    show_if_done(draft, b.seat, 0, banker=True)


def house_banker_plays(draft: Draft) -> None:
    """One move of a house banker, by the published ``banker_stands_at_hp`` rule on his own cards only: draw a
    card (his hand may end by it) or stand."""
    hand = draft.hand
    if not house_banker_draws(evaluate(hand.banker.cards, draft.rules), draft.rules):
        draft.emit(HandStood(seat=None, hand=0, banker=True, reason=StandReason.HOUSE_RULE))
        return
    drawn = draw(draft)
    if drawn is None:
        draft.emit(HandStood(seat=None, hand=0, banker=True, reason=StandReason.STOCK_EXHAUSTED))
        return
    deal(draft, drawn, seat=None, player_id=None, hand=0, banker=True, face_up=True)
    show_if_done(draft, None, 0, banker=True)


def _results(draft: Draft, banker_score: Score | None) -> tuple[list[HandResult], dict[str, int]]:
    """One result per staked punter hand, in play order, and what the escrow pays back to each party."""
    hand = draft.hand
    rules = draft.rules
    results: list[HandResult] = []
    payouts: dict[str, int] = {}
    banker_payout = 0
    for h in hand.punters:
        if h.stake == 0 or h.status == HandStatus.VOID:
            continue
        score = evaluate(h.cards, rules, split=h.seat in hand.split_seats)
        settlement = settle_hand(score, h.stake, banker_score, rules)
        results.append(
            HandResult(
                seat=h.seat,
                player_id=h.player_id,
                hand=h.hand_index,
                bet=h.stake,
                category=score.category,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                outcome=settlement.outcome,
                tie=settlement.tie,
                multiplier=settlement.multiplier,
                net=settlement.net,
            )
        )
        payouts[h.player_id] = payouts.get(h.player_id, 0) + h.punter_reserve + settlement.net
        banker_payout += h.banker_reserve - settlement.net
    if results:
        banker_key = hand.banker.player_id if hand.banker.player_id is not None else HOUSE
        payouts[banker_key] = payouts.get(banker_key, 0) + banker_payout
    return results, payouts


def settle(draft: Draft) -> None:
    """Settle every staked punter hand (§5), pay the escrow back and pass the bank (§6); then the steps every
    ending shares (``end_hand``)."""
    hand = draft.hand
    b = hand.banker
    banker_score = evaluate(b.cards, draft.rules) if b.played else None
    results, payouts = _results(draft, banker_score)
    next_seat, next_id, reason = next_banker(draft, results, payouts)
    draft.emit(
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
            server_seed=draft.server_seed(hand),
        )
    )
    end_hand(draft)


def abandon_empty_hand(draft: Draft) -> None:
    """A betting window closed with no stake: the hand is abandoned (its seed revealed) and the table idles."""
    hand = draft.hand
    draft.emit(HandAbandoned(number=hand.number, reason=AbandonReason.NO_STAKES, server_seed=draft.server_seed(hand)))
    end_hand(draft)


def abandon_without_seed(draft: Draft) -> None:
    """The hand in play cannot be dealt on or revealed (its sealed seed cannot be opened): abandon it, return
    every reserve taken in it to whoever put it up; then the steps every ending shares (``end_hand``)."""
    hand = draft.hand
    banker_key = hand.banker.player_id if hand.banker.player_id is not None else HOUSE
    payouts: dict[str, int] = {}
    for h in hand.punters:
        if h.punter_reserve:
            payouts[h.player_id] = payouts.get(h.player_id, 0) + h.punter_reserve
        if h.banker_reserve:
            payouts[banker_key] = payouts.get(banker_key, 0) + h.banker_reserve
    draft.emit(
        HandAbandoned(number=hand.number, reason=AbandonReason.SEED_UNAVAILABLE, server_seed="", payouts=payouts)
    )
    end_hand(draft)


def end_hand(draft: Draft) -> None:
    """What follows the end of every hand, however it ended (settled; abandoned with no stakes, or because its
    seed could not be opened), in one place so that no way of ending a hand can forget a step:

    1. every seat that asked to leave during the hand leaves (a banker who leaves passes the bank on);
    2. after an abandoned hand the bank passes as it would after a settlement (``HandSettled`` names the next
       banker itself): from a banker who retires, sat out or cannot cover the bank;

    No seed is committed here (contract v1.2: a hand's opening commits the hand after next).
    """
    settled = draft.state.hand is not None and draft.state.hand.phase == Phase.SETTLED
    if draft.ctx.schedule_v11:  # a command recorded under contract v1.1 re-runs as it ran then
        _end_hand_v11(draft, settled)
        return
    for seat in draft.state.seats:
        if seat.leaving:
            was_banker = draft.state.banker_seat == seat.seat
            draft.emit(SeatLeft(seat=seat.seat, player_id=seat.player_id, reason=LeaveReason.AFTER_HAND))
            if was_banker:
                pass_bank_from(draft, seat.seat, BankReason.LEFT)
    if not settled:
        _pass_bank_after_abandonment(draft)


def _end_hand_v11(draft: Draft, settled: bool) -> None:
    """The end of a hand as contract v1.1 ran it (a recorded command re-run for verification): leavers left
    except after a hand abandoned with no stakes, and the next hand's seed was committed at the hand's end."""
    abandoned_empty = not settled and draft.state.hand is not None and draft.state.hand.server_seed != ""
    if not abandoned_empty:
        for seat in draft.state.seats:
            if seat.leaving:
                draft.emit(SeatLeft(seat=seat.seat, player_id=seat.player_id, reason=LeaveReason.AFTER_HAND))
    draft.commit_next_seed()


def _pass_bank_after_abandonment(draft: Draft) -> None:
    state = draft.state
    banker = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    if banker is None:
        return
    if state.banker_retiring:
        pass_bank_from(draft, banker.seat, BankReason.RETIRED)
    elif not can_hold_bank(draft, banker):
        pass_bank_from(draft, banker.seat, BankReason.SAT_OUT if banker.sitting_out else BankReason.CANNOT_COVER)
