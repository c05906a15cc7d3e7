"""``evolve`` for the events of a hand (opening to settlement): positional updates of immutable tuples.

No rules here: whatever ``decide`` computed is on the event. Named tuples are rebuilt positionally
(``tuple.__new__``), which is several times cheaper than ``_replace`` on the hot paths (a dealt card, a wait).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import CANONICAL_DECK
from .events import (
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    BetPlaced,
    BettingClosed,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    Event,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandOpened,
    HandSettled,
    HandSplit,
    HandStood,
    PunterSkipped,
    StakeRaised,
)
from .scoring import PAIR7, PAIR7_HP
from .shuffle import shuffle_deck
from .state import (
    BUSTED,
    CLOSED,
    PLAYING,
    SETTLED,
    STOOD,
    VOID,
    WAITING,
    Awaiting,
    BankerHand,
    HandState,
    PunterHand,
    TableState,
)

_new = tuple.__new__
_T_HAND = TableState._fields.index("hand")
_T_AWAITING = TableState._fields.index("awaiting")
_H_PHASE = HandState._fields.index("phase")
_H_BANKER = HandState._fields.index("banker")
_H_NEXT = HandState._fields.index("next_card")
_H_PUNTERS = HandState._fields.index("punters")
assert _H_PUNTERS == _H_NEXT + 1
_P_CARDS = PunterHand._fields.index("cards")
_P_FACE = PunterHand._fields.index("face_up")
_P_STATUS = PunterHand._fields.index("status")
_P_MATTA = PunterHand._fields.index("matta_hp")
_P_STAKE = PunterHand._fields.index("stake")
_P_SHOWN = PunterHand._fields.index("shown")
assert PunterHand._fields[_P_SHOWN:] == (
    "shown",
    "category",
    "total_hp",
    "matta_hp",
    "punter_reserve",
    "banker_reserve",
    "result",
)
_P_PRES = PunterHand._fields.index("punter_reserve")
assert PunterHand._fields[_P_PRES + 1] == "banker_reserve"
assert PunterHand._fields[_P_STATUS : _P_MATTA + 1] == ("status", "shown", "category", "total_hp", "matta_hp")


def _set(cls: Any, t: Any, i: int, value: Any) -> Any:
    """A copy of named tuple ``t`` with field number ``i`` set (cheaper than ``_replace``)."""
    return _new(cls, (*t[:i], value, *t[i + 1 :]))


def _with_hand(state: TableState, hand: HandState) -> TableState:
    """``state`` one version later with ``hand``."""
    return _new(TableState, (state[0] + 1, *state[1:_T_HAND], hand, *state[_T_HAND + 1 :]))


def _with_hand_awaiting(state: TableState, hand: HandState, awaiting: Awaiting | None) -> TableState:
    """``state`` one version later with ``hand`` and ``awaiting``."""
    return _new(TableState, (state[0] + 1, *state[1:_T_HAND], hand, awaiting, *state[_T_AWAITING + 1 :]))


def _find(punters: tuple[PunterHand, ...], seat: int | None, index: int) -> int:
    for i, h in enumerate(punters):
        if h[0] == seat and h[1] == index:
            return i
    raise ValueError(f"no hand {index} at seat {seat}")  # pragma: no cover


def _put(hand: HandState, i: int, punter: PunterHand) -> HandState:
    punters = hand.punters
    new: HandState = _set(HandState, hand, _H_PUNTERS, (*punters[:i], punter, *punters[i + 1 :]))
    return new


def _hand(state: TableState) -> HandState:
    hand = state.hand
    if hand is None:  # pragma: no cover - decide never emits a hand event without a hand
        raise ValueError("no hand is open")
    return hand


def _replace_punter(hand: HandState, seat: int | None, index: int, **changes: Any) -> tuple[PunterHand, ...]:
    punters = hand.punters
    for i, h in enumerate(punters):
        if h.seat == seat and h.hand_index == index:
            return (*punters[:i], h._replace(**changes), *punters[i + 1 :])
    raise ValueError(f"no hand {index} at seat {seat}")  # pragma: no cover


def _get_punter(hand: HandState, seat: int | None, index: int) -> PunterHand:
    for h in hand.punters:
        if h.seat == seat and h.hand_index == index:
            return h
    raise ValueError(f"no hand {index} at seat {seat}")  # pragma: no cover


def _deck_for(state: TableState, e: HandOpened) -> tuple[str, ...]:
    rigged = state.rigged_stock
    if rigged is not None:
        chosen = set(rigged)
        return tuple(rigged) + tuple(c for c in CANONICAL_DECK if c not in chosen)
    return tuple(shuffle_deck(bytes.fromhex(e.server_seed), e.client_seed, e.number))


def _hand_opened(state: TableState, e: HandOpened) -> TableState:
    seat_ids = {s.seat: s.player_id for s in state.seats}
    punters = tuple(PunterHand(seat, 0, seat_ids[seat]) for seat in e.entrants)
    hand = HandState(
        number=e.number,
        phase=e.phase,
        banker=BankerHand(e.banker_seat, e.banker_id),
        seed_commitment=e.seed_commitment,
        server_seed=e.server_seed,
        client_seed=e.client_seed,
        stake=e.stake,
        entrants=e.entrants,
        deck=_deck_for(state, e),
        punters=punters,
    )
    return state._replace(
        version=state.version + 1, hand=hand, hands_opened=e.number, idle=False, awaiting=None, rigged_stock=None
    )


def _action_awaited(state: TableState, e: ActionAwaited) -> TableState:
    hand = _hand(state)
    kind = e.kind
    if kind == "bets":
        hand = _set(HandState, hand, _H_PHASE, "betting")
    elif kind != "banker":
        if e.seat is not None and e.hand is not None:
            i = _find(hand.punters, e.seat, e.hand)
            current = hand.punters[i]
            if current[_P_STATUS] == WAITING:
                hand = _put(hand, i, _set(PunterHand, current, _P_STATUS, PLAYING))
        if hand[_H_PHASE] != "punters":
            hand = _set(HandState, hand, _H_PHASE, "punters")
    return _with_hand_awaiting(state, hand, Awaiting(e.seat, e.hand, kind, e.deadline_ms))


def _add_stake(state: TableState, seat: int, index: int, stake: int, punter: int, banker: int) -> TableState:
    hand = _hand(state)
    i = _find(hand.punters, seat, index)
    h = hand.punters[i]
    h = _new(
        PunterHand,
        (
            *h[:_P_STAKE],
            stake,
            *h[_P_STAKE + 1 : _P_PRES],
            h.punter_reserve + punter,
            h.banker_reserve + banker,
            *h[_P_PRES + 2 :],
        ),
    )
    return _with_hand(state, _put(hand, i, h))


def _bet_placed(state: TableState, e: BetPlaced) -> TableState:
    return _add_stake(state, e.seat, e.hand, e.stake, e.punter_reserve, e.banker_reserve)


def _punter_skipped(state: TableState, e: PunterSkipped) -> TableState:
    hand = _hand(state)
    punters = tuple((h._replace(status=VOID) if h.cards else None) if h.seat == e.seat else h for h in hand.punters)
    kept = tuple(h for h in punters if h is not None)
    entrants = tuple(s for s in hand.entrants if s != e.seat)
    return state._replace(version=state.version + 1, hand=hand._replace(punters=kept, entrants=entrants))


def _betting_closed(state: TableState, e: BettingClosed) -> TableState:
    return _with_hand_awaiting(state, _set(HandState, _hand(state), _H_PHASE, "dealing"), None)


def _card_dealt(state: TableState, e: CardDealt) -> TableState:
    hand = state.hand
    assert hand is not None
    if e.banker:
        b = hand.banker
        banker = b._replace(cards=(*b.cards, e.card), face_up=(*b.face_up, e.face_up))
        hand = _set(HandState, _set(HandState, hand, _H_BANKER, banker), _H_NEXT, e.deck_index + 1)
    elif e.hand is None:
        assert e.seat is not None
        hand = hand._replace(next_card=e.deck_index + 1, pending=(e.seat, e.card))
    else:
        punters = hand.punters
        i = _find(punters, e.seat, e.hand)
        h = punters[i]
        h = _new(PunterHand, (*h[:_P_CARDS], (*h.cards, e.card), (*h.face_up, e.face_up), *h[_P_FACE + 1 :]))
        # next_card and punters are neighbours: one rebuild of the hand sets both
        hand = _new(
            HandState,
            (*hand[:_H_NEXT], e.deck_index + 1, (*punters[:i], h, *punters[i + 1 :]), *hand[_H_PUNTERS + 1 :]),
        )
    return _with_hand(state, hand)


def _turn_up(cards: tuple[str, ...], face_up: tuple[bool, ...], card: str) -> tuple[bool, ...]:
    i = cards.index(card)
    return (*face_up[:i], True, *face_up[i + 1 :])


def _card_turned_up(state: TableState, e: CardTurnedUp) -> TableState:
    hand = _hand(state)
    if e.banker:
        b = hand.banker
        hand = _set(HandState, hand, _H_BANKER, b._replace(face_up=_turn_up(b.cards, b.face_up, e.card)))
    else:
        i = _find(hand.punters, e.seat, e.hand)
        h = hand.punters[i]
        hand = _put(hand, i, _set(PunterHand, h, _P_FACE, _turn_up(h.cards, h.face_up, e.card)))
    return _with_hand(state, hand)


def _card_assigned(state: TableState, e: CardAssigned) -> TableState:
    hand = _hand(state)
    h = _get_punter(hand, e.seat, e.hand)
    punters = _replace_punter(hand, e.seat, e.hand, cards=(*h.cards, e.card), face_up=(*h.face_up, True))
    return state._replace(version=state.version + 1, hand=hand._replace(punters=punters, pending=None))


def _stake_raised(state: TableState, e: StakeRaised) -> TableState:
    return _add_stake(state, e.seat, e.hand, e.stake, e.punter_reserve, e.banker_reserve)


def _hand_split(state: TableState, e: HandSplit) -> TableState:
    hand = _hand(state)
    punters = hand.punters
    pending = hand.pending
    if e.from_hand is not None:
        h = _get_punter(hand, e.seat, e.from_hand)
        i = h.cards.index(e.card)
        punters = _replace_punter(
            hand, e.seat, e.from_hand, cards=h.cards[:i] + h.cards[i + 1 :], face_up=h.face_up[:i] + h.face_up[i + 1 :]
        )
    else:
        pending = None
    new = PunterHand(
        e.seat,
        e.new_hand,
        e.player_id,
        stake=e.amount,
        cards=(e.card,),
        face_up=(True,),
        status=PLAYING if e.open_now else WAITING,
        punter_reserve=e.punter_reserve,
        banker_reserve=e.banker_reserve,
    )
    last = max(i for i, h in enumerate(punters) if h.seat == e.seat)
    punters = (*punters[: last + 1], new, *punters[last + 1 :])
    hand = hand._replace(punters=punters, pending=pending, split_seats=hand.split_seats | {e.seat})
    return state._replace(version=state.version + 1, hand=hand)


def _finish(state: TableState, seat: int | None, index: int, banker: bool, **changes: Any) -> TableState:
    hand = _hand(state)
    if banker:
        hand = _set(HandState, hand, _H_BANKER, hand.banker._replace(**changes))
    else:
        i = _find(hand.punters, seat, index)
        hand = _put(hand, i, hand.punters[i]._replace(**changes))
    return _with_hand(state, hand)


def _hand_stood(state: TableState, e: HandStood) -> TableState:
    hand = _hand(state)
    if e.banker:
        hand = _set(HandState, hand, _H_BANKER, hand.banker._replace(status=STOOD))
    else:
        i = _find(hand.punters, e.seat, e.hand)
        hand = _put(hand, i, _set(PunterHand, hand.punters[i], _P_STATUS, STOOD))
    return _with_hand(state, hand)


def _show(state: TableState, e: HandBusted | HandMadeSevenHalf, status: str, category: str) -> TableState:
    hand = _hand(state)
    if e.banker:
        banker = hand.banker._replace(
            status=status, category=category, total_hp=e.total_half_points, matta_hp=e.matta_value
        )
        return _with_hand(state, _set(HandState, hand, _H_BANKER, banker))
    i = _find(hand.punters, e.seat, e.hand)
    h = hand.punters[i]
    h = _new(
        PunterHand, (*h[:_P_STATUS], status, True, category, e.total_half_points, e.matta_value, *h[_P_MATTA + 1 :])
    )
    return _with_hand(state, _put(hand, i, h))


def _hand_busted(state: TableState, e: HandBusted) -> TableState:
    return _show(state, e, BUSTED, "bust")


def _hand_made_75(state: TableState, e: HandMadeSevenHalf) -> TableState:
    return _show(state, e, CLOSED, e.category)


def _hand_made_pair7(state: TableState, e: HandMadePairOfSevens) -> TableState:
    if e.banker:
        return _finish(state, e.seat, e.hand, True, status=CLOSED, category=PAIR7, total_hp=PAIR7_HP, matta_hp=None)
    return _finish(
        state, e.seat, e.hand, False, status=SETTLED, shown=True, category=PAIR7, total_hp=PAIR7_HP, matta_hp=None
    )


def _banker_turn_started(state: TableState, e: BankerTurnStarted) -> TableState:
    hand = _hand(state)
    hand = hand._replace(phase="banker", banker=hand.banker._replace(played=True, status=PLAYING))
    return state._replace(version=state.version + 1, hand=hand, awaiting=None)


def _banker_turn_skipped(state: TableState, e: BankerTurnSkipped) -> TableState:
    return state._replace(version=state.version + 1, awaiting=None)


def _hand_settled(state: TableState, e: HandSettled) -> TableState:
    hand = _hand(state)
    by_hand = {(r.seat, r.hand): r for r in e.results}
    punters = []
    for h in hand.punters:
        r = by_hand.get((h[0], h[1]))
        if r is None:
            punters.append(_set(PunterHand, h, _P_SHOWN, True))
        else:
            shown = (True, r.category, r.total_half_points, r.matta_value, h.punter_reserve, h.banker_reserve, r)
            punters.append(_new(PunterHand, (*h[:_P_SHOWN], *shown)))
    banker = hand.banker
    if banker.played:
        banker = banker._replace(
            category=e.banker_category, total_hp=e.banker_total_half_points, matta_hp=e.banker_matta_value
        )
    hand = hand._replace(
        phase="settled",
        punters=tuple(punters),
        banker=banker,
        results=e.results,
        payouts=tuple(e.payouts.items()),
        next_banker_seat=e.next_banker_seat,
    )
    last = e.next_banker_seat if e.next_banker_seat is not None else state.last_banker_seat
    return state._replace(
        version=state.version + 1,
        hand=hand,
        banker_seat=e.next_banker_seat,
        last_banker_seat=last,
        banker_retiring=False,
        settled_through=e.number,
        awaiting=None,
    )


def _hand_abandoned(state: TableState, e: HandAbandoned) -> TableState:
    hand = _hand(state)._replace(phase="abandoned")
    return state._replace(version=state.version + 1, hand=hand, idle=True, settled_through=e.number, awaiting=None)


HAND_HANDLERS: dict[type[Event], Callable[[TableState, Any], TableState]] = {
    HandOpened: _hand_opened,
    ActionAwaited: _action_awaited,
    BetPlaced: _bet_placed,
    PunterSkipped: _punter_skipped,
    BettingClosed: _betting_closed,
    CardDealt: _card_dealt,
    CardTurnedUp: _card_turned_up,
    CardAssigned: _card_assigned,
    StakeRaised: _stake_raised,
    HandSplit: _hand_split,
    HandStood: _hand_stood,
    HandBusted: _hand_busted,
    HandMadeSevenHalf: _hand_made_75,
    HandMadePairOfSevens: _hand_made_pair7,
    BankerTurnStarted: _banker_turn_started,
    BankerTurnSkipped: _banker_turn_skipped,
    HandSettled: _hand_settled,
    HandAbandoned: _hand_abandoned,
}
