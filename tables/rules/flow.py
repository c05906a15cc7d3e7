"""The automatic course of a hand: opening, the deal, whose turn, the banker's turn, settlement.

These steps run inside ``decide`` after a command's own events, so one command may carry a hand from a
player's last decision through the house banker's play, settlement, bank passing and the next opening.
"""

from __future__ import annotations

from .banking import ensure_banker, next_banker
from .errors import BankCannotCover, InsufficientFunds
from .events import (
    HOUSE,
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    BetPlaced,
    BettingClosed,
    CardDealt,
    CardTurnedUp,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandOpened,
    HandResult,
    HandSettled,
    HandStood,
    PlayerTimedOut,
    PunterSkipped,
    SatOut,
    SeatLeft,
)
from .scoring import BUST, PAIR7, evaluate, house_banker_draws, settle_hand
from .shuffle import seed_commitment
from .state import PLAYING, UNSETTLED_STATUSES, VOID, WAITING, PunterHand, SeatState
from .tx import Tx

# -- chips ---------------------------------------------------------------------------------------------------


def banker_party(tx: Tx) -> str | None:
    """The banker's wallet key: his player id, or None for the house."""
    return tx.hand.banker.player_id


def owed_bank_reserve(tx: Tx, exclude: tuple[int, int] | None) -> int:
    """Bank chips kept back for dealt-in punters who still owe their minimum bet (so none is ever stuck)."""
    if tx.rules.bet_timing == "before_deal":
        return 0
    hand = tx.hand
    owing = sum(1 for h in hand.punters if h.stake == 0 and h.status != VOID and (h.seat, h.hand_index) != exclude)
    return owing * tx.min_stake(hand) * tx.win_mult


def check_reserves(tx: Tx, player_id: str, amount: int, hand_key: tuple[int, int] | None) -> tuple[int, int]:
    """The (punter, banker) reserves of a stake of ``amount``; refuse what either side cannot cover (§7)."""
    punter_reserve = amount * tx.loss_mult
    banker_reserve = amount * tx.win_mult
    if not tx.covers(player_id, punter_reserve):
        raise InsufficientFunds(
            f"a stake of {amount} needs {punter_reserve} chips available",
            {"needed": punter_reserve, "available": tx.available(player_id)},
        )
    bank = banker_party(tx)
    avail = tx.available(bank)
    if avail is not None and avail - owed_bank_reserve(tx, hand_key) < banker_reserve:
        raise BankCannotCover(
            f"the bank cannot cover a stake of {amount}", {"needed": banker_reserve, "amount": amount}
        )
    return punter_reserve, banker_reserve


def commit_reserves(tx: Tx, player_id: str, punter_reserve: int, banker_reserve: int) -> None:
    """Move the reserves out of both wallets (within this command's bookkeeping)."""
    tx.move(player_id, -punter_reserve)
    tx.move(banker_party(tx), -banker_reserve)


# -- opening -------------------------------------------------------------------------------------------------


def _entrants(tx: Tx) -> tuple[int, ...]:
    state = tx.state
    minimum = tx.min_stake()
    banker = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    bank_left = tx.available(banker.player_id if banker is not None else None)
    betting_first = tx.rules.bet_timing == "before_deal"
    chosen: list[int] = []
    for number in state.play_order():
        if number == state.banker_seat:
            continue
        seat = state.seat_at(number)
        if seat is None or seat.sitting_out or seat.leaving:
            continue
        if not tx.covers(seat.player_id, minimum * tx.loss_mult):
            continue
        if not betting_first and bank_left is not None:
            if bank_left < minimum * tx.win_mult:
                continue
            bank_left -= minimum * tx.win_mult
        chosen.append(number)
    return tuple(chosen)


def try_open_hand(tx: Tx, *, trigger: bool) -> None:
    """Open the next hand if the table has a covering banker and at least one punter who can enter.

    After a betting window closed with no stake the table is idle: only a player's trigger (sitting down,
    sitting in, betting) opens a hand again, so the table never spins through empty hands.
    """
    state = tx.state
    if state.config is None or state.hand_in_play:
        return
    if state.idle and not trigger:
        return
    if not ensure_banker(tx):
        return
    entrants = _entrants(tx)
    if not entrants:
        return
    state = tx.state
    banker = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    members = set(entrants)
    if banker is not None:
        members.add(banker.seat)
    client_seed = ":".join(s.client_seed for s in state.seats if s.seat in members)
    seed = bytes.fromhex(tx.ctx.entropy)
    betting_first = tx.rules.bet_timing == "before_deal"
    tx.emit(
        HandOpened(
            number=state.hands_opened + 1,
            banker_seat=banker.seat if banker else None,
            banker_id=banker.player_id if banker else None,
            seed_commitment=seed_commitment(seed),
            server_seed=tx.ctx.entropy,
            client_seed=client_seed,
            stake=state.stake if tx.rules.stake_mode == "bank_fixed" else None,
            entrants=entrants,
            phase="betting" if betting_first else "dealing",
        )
    )
    if betting_first:
        tx.emit(ActionAwaited(None, None, "bets", tx.betting_deadline()))
        return
    deal_round(tx)
    if tx.rules.bet_timing == "at_turn_after_peek":
        start_next_turn(tx)
    else:
        tx.emit(ActionAwaited(None, None, "bets", tx.betting_deadline()))


def draw(tx: Tx) -> tuple[str, int] | None:
    """The next card of the stock and its deck index, or None when the stock is exhausted."""
    hand = tx.hand
    i = hand.next_card
    if i >= len(hand.deck):
        return None
    return hand.deck[i], i


def _draw_for_deal(tx: Tx) -> tuple[str, int]:
    drawn = draw(tx)
    if drawn is None:  # pragma: no cover - 8 participants never exhaust 40 cards in the first round
        raise RuntimeError("the stock cannot run out during the first round")
    return drawn


def deal_round(tx: Tx) -> None:
    """One card face down to each punter hand in play order, then one to the banker."""
    hand = tx.hand
    for h in hand.punters:
        if h.status == VOID:
            continue
        card, i = _draw_for_deal(tx)
        tx.emit(CardDealt(hand.number, h.seat, h.player_id, 0, False, card, False, i))
    b = hand.banker
    card, i = _draw_for_deal(tx)
    tx.emit(CardDealt(hand.number, b.seat, b.player_id, 0, True, card, False, i))


# -- betting windows -----------------------------------------------------------------------------------------


def check_betting_complete(tx: Tx) -> None:
    """Close the betting window once every entrant has staked (or nobody is left)."""
    hand = tx.hand
    if hand.phase != "betting":
        return
    if any(h.stake == 0 and h.status != VOID for h in hand.punters):
        return
    close_betting(tx)


def close_betting(tx: Tx) -> None:
    """End a betting window: abandon a hand with no stake, else deal (``before_deal``) and start play."""
    hand = tx.hand
    if not any(h.stake > 0 for h in hand.punters):
        tx.emit(HandAbandoned(hand.number, "no_stakes", hand.server_seed))
        return
    tx.emit(BettingClosed(hand.number))
    if tx.rules.bet_timing == "before_deal":
        deal_round(tx)
    start_next_turn(tx)


def bet_for_timeout(tx: Tx, h: PunterHand) -> bool:
    """Bet the minimum (or S) for a punter who owes a bet and did not act; skip him if it cannot be covered."""
    amount = tx.min_stake(tx.hand)
    try:
        pr, br = check_reserves(tx, h.player_id, amount, (h.seat, h.hand_index))
    except (InsufficientFunds, BankCannotCover) as refused:
        tx.emit(PunterSkipped(h.seat, h.player_id, refused.code))
        return False
    tx.emit(BetPlaced(h.seat, h.player_id, h.hand_index, amount, amount, pr, br, banker_party(tx), True))
    commit_reserves(tx, h.player_id, pr, br)
    return True


def record_timeout(tx: Tx, seat: SeatState, waiting_for: str) -> None:
    """Count a timeout; the second in a row marks the player sitting out for later hands (§7)."""
    streak = seat.timeouts + 1
    tx.emit(PlayerTimedOut(seat.seat, seat.player_id, streak, waiting_for))
    if streak >= 2 and not seat.sitting_out:
        tx.emit(SatOut(seat.seat, seat.player_id, "timeout"))


# -- turns ---------------------------------------------------------------------------------------------------


def after_card(tx: Tx, seat: int, index: int) -> None:
    """Evaluate a punter hand after a card: bust, pair of sevens and 15 hp show it and end it at once."""
    hand = tx.hand
    h = hand.find(seat, index)
    assert h is not None
    score = evaluate(h.cards, tx.rules, split=seat in hand.split_seats)
    if score.category == BUST:
        tx.emit(HandBusted(seat, index, False, score.total_hp, score.matta_hp, h.cards))
    elif score.category == PAIR7:
        tx.emit(HandMadePairOfSevens(seat, index, False, h.cards))
    elif score.total_hp == 15:
        tx.emit(HandMadeSevenHalf(seat, index, False, score.category, score.total_hp, score.matta_hp, h.cards))


def hungarian_multi(tx: Tx, seat: int) -> bool:
    """True once a Hungarian punter has split: his draws are then assigned to hands."""
    return tx.rules.split_mode == "hungarian" and seat in tx.hand.split_seats


def continue_turn(tx: Tx, seat: int, index: int) -> None:
    """After a punter's action: wait on his next decision (fresh deadline) or pass the turn on."""
    hand = tx.hand
    if hungarian_multi(tx, seat):
        if hand.pending is not None and hand.pending[0] == seat:
            tx.emit(ActionAwaited(seat, None, "assign", tx.turn_deadline()))
            return
        open_hands = [h for h in hand.punters if h.seat == seat and h.status == PLAYING]
        if open_hands:
            tx.emit(ActionAwaited(seat, open_hands[0].hand_index, "play", tx.turn_deadline()))
            return
    else:
        h = hand.find(seat, index)
        if h is not None and h.status == PLAYING:
            tx.emit(ActionAwaited(seat, index, "play", tx.turn_deadline()))
            return
    start_next_turn(tx)


def start_next_turn(tx: Tx) -> None:
    """Give the turn to the next punter hand that has not played (a bet owed first), else to the banker."""
    for h in tx.hand.punters:
        if h.status == WAITING:
            kind = "bet" if h.stake == 0 else "play"
            tx.emit(ActionAwaited(h.seat, h.hand_index, kind, tx.turn_deadline()))
            return
    banker_turn(tx)


def stand_all(tx: Tx, seat: int, reason: str) -> None:
    """Stand every hand of ``seat`` that is still live."""
    for h in tx.hand.punters:
        if h.seat == seat and h.status in (WAITING, PLAYING) and h.stake > 0:
            tx.emit(HandStood(seat, h.hand_index, False, reason))


# -- the banker ----------------------------------------------------------------------------------------------


def banker_after_card(tx: Tx) -> bool:
    """Evaluate the banker's hand after a card; True if it ended by itself (bust, 15 hp, pair of sevens)."""
    b = tx.hand.banker
    score = evaluate(b.cards, tx.rules)
    if score.category == BUST:
        tx.emit(HandBusted(b.seat, 0, True, score.total_hp, score.matta_hp, b.cards))
        return True
    if score.category == PAIR7:
        tx.emit(HandMadePairOfSevens(b.seat, 0, True, b.cards))
        return True
    if score.total_hp == 15:
        tx.emit(HandMadeSevenHalf(b.seat, 0, True, score.category, score.total_hp, score.matta_hp, b.cards))
        return True
    return False


def banker_turn(tx: Tx) -> None:
    """The banker's turn: skipped if no punter hand is unsettled; else his card is turned up and he plays
    (a house banker by the published ``banker_stands_at_hp`` rule, using only his own cards)."""
    hand = tx.hand
    b = hand.banker
    if not any(h.status in UNSETTLED_STATUSES for h in hand.punters):
        tx.emit(BankerTurnSkipped(b.seat))
        settle(tx)
        return
    tx.emit(BankerTurnStarted(b.seat))
    tx.emit(CardTurnedUp(b.seat, 0, True, b.cards[0]))
    if banker_after_card(tx):
        settle(tx)
        return
    if b.player_id is not None:
        tx.emit(ActionAwaited(b.seat, 0, "banker", tx.turn_deadline()))
        return
    while house_banker_draws(evaluate(tx.hand.banker.cards, tx.rules), tx.rules):
        drawn = draw(tx)
        if drawn is None:
            tx.emit(HandStood(None, 0, True, "stock_exhausted"))
            settle(tx)
            return
        tx.emit(CardDealt(hand.number, None, None, 0, True, drawn[0], True, drawn[1]))
        if banker_after_card(tx):
            settle(tx)
            return
    tx.emit(HandStood(None, 0, True, "house_rule"))
    settle(tx)


# -- settlement ----------------------------------------------------------------------------------------------


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
    for h in hand.punters:
        if h.stake == 0 or h.status == VOID:
            continue
        score = evaluate(h.cards, rules, split=h.seat in hand.split_seats)
        outcome = settle_hand(score, h.stake, banker_score, rules)
        results.append(
            HandResult(
                seat=h.seat,
                player_id=h.player_id,
                hand=h.hand_index,
                bet=h.stake,
                category=score.category,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                outcome=outcome.outcome,
                tie=outcome.tie,
                multiplier=outcome.multiplier,
                net=outcome.net,
            )
        )
        payouts[h.player_id] = payouts.get(h.player_id, 0) + h.punter_reserve + outcome.net
        banker_payout += h.banker_reserve - outcome.net
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
            server_seed=hand.server_seed,
        )
    )
    for seat in tx.state.seats:
        if seat.leaving:
            tx.emit(SeatLeft(seat.seat, seat.player_id, "after_hand"))
    try_open_hand(tx, trigger=False)
