"""``evolve`` for the events of a hand (opening to settlement): each fact updates the hand it names.

No rules here: whatever ``decide`` computed is on the event. Every event makes a new state one version later
(``_next``); named tuples are copied with the fields that change (``replace``), unchanged parts are shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import CANONICAL_DECK
from .enums import HandStatus, Phase, WaitKind
from .events import (
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    BetPlaced,
    BettingClosed,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    ClientSeedFixed,
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
    SeedCommitted,
    StakeRaised,
)
from .scoring import PAIR7, PAIR7_HP
from .shuffle import shuffle_deck
from .state import Awaiting, BankerHand, HandState, Pledge, PunterHand, TableState, replace


def _next(state: TableState, **changes: Any) -> TableState:
    """``state`` one event later, with ``changes``."""
    return replace(state, version=state.version + 1, **changes)


def _hand(state: TableState) -> HandState:
    hand = state.hand
    if hand is None:  # pragma: no cover - decide never emits a hand event without a hand
        raise ValueError("no hand is open")
    return hand


def _position(hand: HandState, seat: int | None, index: int) -> int:
    """Where punter hand (seat, index) is in ``hand.punters``."""
    for position, h in enumerate(hand.punters):
        if h.seat == seat and h.hand_index == index:
            return position
    raise ValueError(f"no hand {index} at seat {seat}")  # pragma: no cover


def _with_punter(hand: HandState, seat: int | None, index: int, **changes: Any) -> HandState:
    """``hand`` with punter hand (seat, index) changed."""
    position = _position(hand, seat, index)
    punters = hand.punters
    changed = replace(punters[position], **changes)
    return replace(hand, punters=(*punters[:position], changed, *punters[position + 1 :]))


def _with_banker(hand: HandState, **changes: Any) -> HandState:
    return replace(hand, banker=replace(hand.banker, **changes))


def _deck_for(state: TableState, e: HandOpened) -> tuple[str, ...]:
    """The deck a hand keeps in its state: a rigged stock (tests), the deck of an old-form hand (its seed is on
    ``HandOpened``), else none: a hand committed ahead derives its deck inside each command that deals, from the
    seed the shell unseals for that command (``Tx.deck``), so no state ever holds its undealt cards."""
    rigged = state.rigged_stock
    if rigged is not None:
        chosen = set(rigged)
        return tuple(rigged) + tuple(c for c in CANONICAL_DECK if c not in chosen)
    if not e.server_seed:
        return ()
    return tuple(shuffle_deck(bytes.fromhex(e.server_seed), e.client_seed, e.number))


def _hand_opened(state: TableState, e: HandOpened) -> TableState:
    players = {s.seat: s.player_id for s in state.seats}
    hand = HandState(
        number=e.number,
        phase=e.phase,
        banker=BankerHand(seat=e.banker_seat, player_id=e.banker_id),
        seed_commitment=e.seed_commitment,
        server_seed=e.server_seed,
        client_seed=e.client_seed,
        stake=e.stake,
        entrants=e.entrants,
        deck=_deck_for(state, e),
        punters=tuple(PunterHand(seat=seat, hand_index=0, player_id=players[seat]) for seat in e.entrants),
    )
    # a rigged stock (tests) is used up by the hand it was rigged for
    return _next(state, hands_opened=e.number, idle=False, hand=hand, awaiting=None, rigged_stock=None)


def _action_awaited(state: TableState, e: ActionAwaited) -> TableState:
    """A wait: a betting window, or a punter's decision (his hand now plays), or the banker's."""
    hand = _hand(state)
    if e.kind == WaitKind.BETTING_WINDOW:
        hand = replace(hand, phase=Phase.BETTING)
    elif e.kind != WaitKind.BANKER:
        if e.seat is not None and e.hand is not None:
            h = hand.find(e.seat, e.hand)
            if h is not None and h.status == HandStatus.WAITING:
                hand = _with_punter(hand, e.seat, e.hand, status=HandStatus.PLAYING)
        if hand.phase != Phase.PUNTERS:
            hand = replace(hand, phase=Phase.PUNTERS)
    awaiting = Awaiting(seat=e.seat, hand=e.hand, kind=e.kind, deadline_ms=e.deadline_ms)
    return _next(state, hand=hand, awaiting=awaiting)


def _staked(state: TableState, e: BetPlaced | StakeRaised) -> TableState:
    """A bet or a raise: the hand's stake is now ``e.stake``; both reserves grow."""
    hand = _hand(state)
    h = hand.punters[_position(hand, e.seat, e.hand)]
    hand = _with_punter(
        hand,
        e.seat,
        e.hand,
        stake=e.stake,
        punter_reserve=h.punter_reserve + e.punter_reserve,
        banker_reserve=h.banker_reserve + e.banker_reserve,
    )
    return _next(state, hand=hand)


def _punter_skipped(state: TableState, e: PunterSkipped) -> TableState:
    """A punter is out of the hand: a hand already dealt to him is void, one not yet dealt goes."""
    hand = _hand(state)
    punters = tuple(
        replace(h, status=HandStatus.VOID) if h.seat == e.seat else h
        for h in hand.punters
        if h.seat != e.seat or h.cards
    )
    entrants = tuple(s for s in hand.entrants if s != e.seat)
    return _next(state, hand=replace(hand, punters=punters, entrants=entrants))


def _betting_closed(state: TableState, e: BettingClosed) -> TableState:
    return _next(state, hand=replace(_hand(state), phase=Phase.DEALING), awaiting=None)


def _card_dealt(state: TableState, e: CardDealt) -> TableState:
    """A card leaves the stock: to the banker, to a punter hand, or (Hungarian) waiting to be assigned."""
    hand = replace(_hand(state), next_card=e.deck_index + 1)
    if e.banker:
        b = hand.banker
        hand = _with_banker(hand, cards=(*b.cards, e.card), face_up=(*b.face_up, e.face_up))
    elif e.hand is None:
        assert e.seat is not None
        hand = replace(hand, pending=(e.seat, e.card))
    else:
        h = hand.punters[_position(hand, e.seat, e.hand)]
        hand = _with_punter(hand, e.seat, e.hand, cards=(*h.cards, e.card), face_up=(*h.face_up, e.face_up))
    return _next(state, hand=hand)


def _turned_up(cards: tuple[str, ...], face_up: tuple[bool, ...], card: str) -> tuple[bool, ...]:
    i = cards.index(card)
    return (*face_up[:i], True, *face_up[i + 1 :])


def _card_turned_up(state: TableState, e: CardTurnedUp) -> TableState:
    hand = _hand(state)
    if e.banker:
        b = hand.banker
        hand = _with_banker(hand, face_up=_turned_up(b.cards, b.face_up, e.card))
    else:
        h = hand.punters[_position(hand, e.seat, e.hand)]
        hand = _with_punter(hand, e.seat, e.hand, face_up=_turned_up(h.cards, h.face_up, e.card))
    return _next(state, hand=hand)


def _card_assigned(state: TableState, e: CardAssigned) -> TableState:
    hand = _hand(state)
    h = hand.punters[_position(hand, e.seat, e.hand)]
    hand = _with_punter(hand, e.seat, e.hand, cards=(*h.cards, e.card), face_up=(*h.face_up, True))
    return _next(state, hand=replace(hand, pending=None))


def _hand_split(state: TableState, e: HandSplit) -> TableState:
    """A new hand from a picture: taken out of hand ``from_hand`` (or the pending card), placed after the
    punter's other hands."""
    hand = _hand(state)
    if e.from_hand is None:
        hand = replace(hand, pending=None)
    else:
        h = hand.punters[_position(hand, e.seat, e.from_hand)]
        i = h.cards.index(e.card)
        cards = h.cards[:i] + h.cards[i + 1 :]
        face_up = h.face_up[:i] + h.face_up[i + 1 :]
        hand = _with_punter(hand, e.seat, e.from_hand, cards=cards, face_up=face_up)
    new = PunterHand(
        seat=e.seat,
        hand_index=e.new_hand,
        player_id=e.player_id,
        stake=e.amount,
        cards=(e.card,),
        face_up=(True,),
        status=HandStatus.PLAYING if e.open_now else HandStatus.WAITING,
        punter_reserve=e.punter_reserve,
        banker_reserve=e.banker_reserve,
    )
    punters = hand.punters
    last = max(i for i, h in enumerate(punters) if h.seat == e.seat)
    punters = (*punters[: last + 1], new, *punters[last + 1 :])
    return _next(state, hand=replace(hand, punters=punters, split_seats=hand.split_seats | {e.seat}))


def _hand_stood(state: TableState, e: HandStood) -> TableState:
    hand = _hand(state)
    if e.banker:
        return _next(state, hand=_with_banker(hand, status=HandStatus.STOOD))
    return _next(state, hand=_with_punter(hand, e.seat, e.hand, status=HandStatus.STOOD))


def _shown(state: TableState, seat: int | None, index: int, banker: bool, **changes: Any) -> TableState:
    """A hand that ended by itself is shown with its score (``changes``)."""
    hand = _hand(state)
    if banker:
        return _next(state, hand=_with_banker(hand, **changes))
    return _next(state, hand=_with_punter(hand, seat, index, shown=True, **changes))


def _hand_busted(state: TableState, e: HandBusted) -> TableState:
    return _shown(
        state,
        e.seat,
        e.hand,
        e.banker,
        status=HandStatus.BUST,
        category="bust",
        total_hp=e.total_half_points,
        matta_hp=e.matta_value,
    )


def _hand_made_75(state: TableState, e: HandMadeSevenHalf) -> TableState:
    return _shown(
        state,
        e.seat,
        e.hand,
        e.banker,
        status=HandStatus.CLOSED,
        category=e.category,
        total_hp=e.total_half_points,
        matta_hp=e.matta_value,
    )


def _hand_made_pair7(state: TableState, e: HandMadePairOfSevens) -> TableState:
    """A punter's pair of sevens is settled at once; the banker's ends his turn."""
    status = HandStatus.CLOSED if e.banker else HandStatus.SETTLED
    return _shown(state, e.seat, e.hand, e.banker, status=status, category=PAIR7, total_hp=PAIR7_HP, matta_hp=None)


def _banker_turn_started(state: TableState, e: BankerTurnStarted) -> TableState:
    hand = _with_banker(_hand(state), status=HandStatus.PLAYING, played=True)
    return _next(state, hand=replace(hand, phase=Phase.BANKER), awaiting=None)


def _banker_turn_skipped(state: TableState, e: BankerTurnSkipped) -> TableState:
    """No punter hand is left for the banker to play against: his turn is over before it began."""
    return _next(state, hand=replace(_hand(state), phase=Phase.BANKER), awaiting=None)


def _hand_settled(state: TableState, e: HandSettled) -> TableState:
    """Every hand is shown; staked hands carry their result; the bank goes to the next banker; the seed is
    revealed (a hand committed ahead)."""
    hand = _hand(state)
    results = {(r.seat, r.hand): r for r in e.results}
    punters = []
    for h in hand.punters:
        r = results.get((h.seat, h.hand_index))
        if r is None:
            punters.append(replace(h, shown=True))
        else:
            punters.append(
                replace(
                    h,
                    shown=True,
                    category=r.category,
                    total_hp=r.total_half_points,
                    matta_hp=r.matta_value,
                    result=r,
                )
            )
    banker = hand.banker
    if banker.played:
        banker = replace(
            banker, category=e.banker_category, total_hp=e.banker_total_half_points, matta_hp=e.banker_matta_value
        )
    hand = replace(
        hand,
        phase=Phase.SETTLED,
        banker=banker,
        server_seed=hand.server_seed or e.server_seed,
        punters=tuple(punters),
        results=e.results,
        payouts=tuple(e.payouts.items()),
        next_banker_seat=e.next_banker_seat,
    )
    pledge = state.pledge
    if pledge is not None and pledge.number == e.number:
        pledge = None  # revealed
    return _next(
        state,
        banker_seat=e.next_banker_seat,
        last_banker_seat=e.next_banker_seat if e.next_banker_seat is not None else state.last_banker_seat,
        banker_retiring=False,
        settled_through=e.number,
        hand=hand,
        awaiting=None,
        pledge=pledge,
    )


def _hand_abandoned(state: TableState, e: HandAbandoned) -> TableState:
    hand = _hand(state)
    hand = replace(hand, phase=Phase.ABANDONED, server_seed=hand.server_seed or e.server_seed)
    pledge = state.pledge
    if pledge is not None and pledge.number == e.number:
        pledge = None
    return _next(state, hand=hand, idle=True, settled_through=e.number, awaiting=None, pledge=pledge)


def _seed_committed(state: TableState, e: SeedCommitted) -> TableState:
    pledge = Pledge(number=e.number, commitment=e.seed_commitment, sealed=e.sealed_seed)
    return _next(state, pledge=pledge)


def _client_seed_fixed(state: TableState, e: ClientSeedFixed) -> TableState:
    return _next(state, hand=replace(_hand(state), client_seed=e.client_seed))


HAND_HANDLERS: dict[type[Event], Callable[[TableState, Any], TableState]] = {
    SeedCommitted: _seed_committed,
    ClientSeedFixed: _client_seed_fixed,
    HandOpened: _hand_opened,
    ActionAwaited: _action_awaited,
    BetPlaced: _staked,
    PunterSkipped: _punter_skipped,
    BettingClosed: _betting_closed,
    CardDealt: _card_dealt,
    CardTurnedUp: _card_turned_up,
    CardAssigned: _card_assigned,
    StakeRaised: _staked,
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
