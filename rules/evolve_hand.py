"""``evolve`` for the events of a hand from its opening through the punters' play (the rest: ``evolve_end``):
each fact updates the hand it names.

No rules here: whatever ``decide`` computed is on the event. Every event makes a new state one version later
(``_next``); records (msgspec Structs) are copied with the fields that change (``replace``), unchanged parts
are shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamemath.cards import CANONICAL_DECK
from gamemath.enums import HandStatus, Phase, WaitKind
from gamemath.shuffle import shuffle_deck
from rules.events import (
    ActionAwaited,
    BetPlaced,
    BettingClosed,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    ClientSeedFixed,
    Event,
    HandOpened,
    HandSplit,
    HandStood,
    PunterSkipped,
    SeedCommitted,
    StakeRaised,
)
from rules.state import Awaiting, BankerHand, HandState, Pledge, PunterHand, TableState, replace


def next_state(state: TableState, **changes: Any) -> TableState:
    """``state`` one event later, with ``changes``."""
    return replace(state, version=state.version + 1, **changes)


def with_hand(state: TableState, hand: HandState) -> TableState:
    """``state`` one event later, with ``hand`` (what most events of a hand change, and only that)."""
    return replace(state, version=state.version + 1, hand=hand)


def hand_of(state: TableState) -> HandState:
    hand = state.hand
    if hand is None:  # pragma: no cover - decide never emits a hand event without a hand
        raise ValueError("no hand is open")
    return hand


def find_position(hand: HandState, seat: int | None, index: int) -> int | None:
    """Where punter hand (seat, index) is in ``hand.punters``, if there (a hand holds a few: a search is cheapest)."""
    for at, h in enumerate(hand.punters):
        if h.seat == seat and h.hand_index == index:
            return at
    return None


def position(hand: HandState, seat: int | None, index: int) -> int:
    """Where punter hand (seat, index) is in ``hand.punters`` (the events name only hands that exist)."""
    at = find_position(hand, seat, index)
    if at is None:  # pragma: no cover
        raise ValueError(f"no hand {index} at seat {seat}")
    return at


def punters_with(punters: tuple[PunterHand, ...], at: int, **changes: Any) -> tuple[PunterHand, ...]:
    """``punters`` with the punter hand at position ``at`` changed."""
    return (*punters[:at], replace(punters[at], **changes), *punters[at + 1 :])


def with_punter(hand: HandState, seat: int | None, index: int, **changes: Any) -> HandState:
    """``hand`` with punter hand (seat, index) changed."""
    return replace(hand, punters=punters_with(hand.punters, position(hand, seat, index), **changes))


def with_banker(hand: HandState, **changes: Any) -> HandState:
    return replace(hand, banker=replace(hand.banker, **changes))


def _deck_for(state: TableState, e: HandOpened) -> tuple[str, ...]:
    """The deck a hand keeps in its state: a rigged stock (tests), the deck of an old-form hand (its seed is on
    ``HandOpened``), else none: a hand committed ahead derives its deck inside each command that deals, from the
    seed the shell unseals for that command (``Draft.deck``), so no state ever holds its undealt cards."""
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
    return next_state(state, hands_opened=e.number, idle=False, hand=hand, awaiting=None, rigged_stock=None)


def _action_awaited(state: TableState, e: ActionAwaited) -> TableState:
    """A wait: a betting window, or a punter's decision (his hand now plays), or the banker's."""
    hand = hand_of(state)
    awaiting = Awaiting(seat=e.seat, hand=e.hand, kind=e.kind, deadline_ms=e.deadline_ms)
    if e.kind == WaitKind.BETTING_WINDOW:
        hand = replace(hand, phase=Phase.BETTING)
    elif e.kind != WaitKind.BANKER:
        punters = hand.punters
        if e.seat is not None and e.hand is not None:
            at = find_position(hand, e.seat, e.hand)
            if at is not None and punters[at].status == HandStatus.WAITING:
                punters = punters_with(punters, at, status=HandStatus.PLAYING)
        if punters is not hand.punters or hand.phase != Phase.PUNTERS:
            hand = replace(hand, phase=Phase.PUNTERS, punters=punters)
    return next_state(state, hand=hand, awaiting=awaiting)


def _staked(state: TableState, e: BetPlaced | StakeRaised) -> TableState:
    """A bet or a raise: the hand's stake is now ``e.stake``; both reserves grow."""
    hand = hand_of(state)
    at = position(hand, e.seat, e.hand)
    h = hand.punters[at]
    punters = punters_with(
        hand.punters,
        at,
        stake=e.stake,
        punter_reserve=h.punter_reserve + e.punter_reserve,
        banker_reserve=h.banker_reserve + e.banker_reserve,
    )
    return with_hand(state, replace(hand, punters=punters))


def _punter_skipped(state: TableState, e: PunterSkipped) -> TableState:
    """A punter is out of the hand: a hand already dealt to him is void, one not yet dealt goes."""
    hand = hand_of(state)
    punters = tuple(
        replace(h, status=HandStatus.VOID) if h.seat == e.seat else h
        for h in hand.punters
        if h.seat != e.seat or h.cards
    )
    entrants = tuple(s for s in hand.entrants if s != e.seat)
    return with_hand(state, replace(hand, punters=punters, entrants=entrants))


def _betting_closed(state: TableState, e: BettingClosed) -> TableState:
    return next_state(state, hand=replace(hand_of(state), phase=Phase.DEALING), awaiting=None)


def _card_dealt(state: TableState, e: CardDealt) -> TableState:
    """A card leaves the stock: to the banker, to a punter hand, or (Hungarian) waiting to be assigned."""
    hand = hand_of(state)
    next_card = e.deck_index + 1
    if e.banker:
        b = hand.banker
        banker = replace(b, cards=(*b.cards, e.card), face_up=(*b.face_up, e.face_up))
        hand = replace(hand, next_card=next_card, banker=banker)
    elif e.hand is None:
        assert e.seat is not None
        hand = replace(hand, next_card=next_card, pending=(e.seat, e.card))
    else:
        at = position(hand, e.seat, e.hand)
        h = hand.punters[at]
        punters = punters_with(hand.punters, at, cards=(*h.cards, e.card), face_up=(*h.face_up, e.face_up))
        hand = replace(hand, next_card=next_card, punters=punters)
    return with_hand(state, hand)


def _turned_up(cards: tuple[str, ...], face_up: tuple[bool, ...], card: str) -> tuple[bool, ...]:
    i = cards.index(card)
    return (*face_up[:i], True, *face_up[i + 1 :])


def _card_turned_up(state: TableState, e: CardTurnedUp) -> TableState:
    hand = hand_of(state)
    if e.banker:
        b = hand.banker
        hand = with_banker(hand, face_up=_turned_up(b.cards, b.face_up, e.card))
    else:
        at = position(hand, e.seat, e.hand)
        h = hand.punters[at]
        hand = replace(hand, punters=punters_with(hand.punters, at, face_up=_turned_up(h.cards, h.face_up, e.card)))
    return with_hand(state, hand)


def _card_assigned(state: TableState, e: CardAssigned) -> TableState:
    hand = hand_of(state)
    at = position(hand, e.seat, e.hand)
    h = hand.punters[at]
    punters = punters_with(hand.punters, at, cards=(*h.cards, e.card), face_up=(*h.face_up, True))
    return with_hand(state, replace(hand, punters=punters, pending=None))


def _hand_split(state: TableState, e: HandSplit) -> TableState:
    """A new hand from a picture: taken out of hand ``from_hand`` (or the pending card), placed after the
    punter's other hands."""
    hand = hand_of(state)
    if e.from_hand is None:
        hand = replace(hand, pending=None)
    else:
        at = position(hand, e.seat, e.from_hand)
        h = hand.punters[at]
        i = h.cards.index(e.card)
        cards = h.cards[:i] + h.cards[i + 1 :]
        face_up = h.face_up[:i] + h.face_up[i + 1 :]
        hand = replace(hand, punters=punters_with(hand.punters, at, cards=cards, face_up=face_up))
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
    return with_hand(state, replace(hand, punters=punters, split_seats=hand.split_seats | {e.seat}))


def _hand_stood(state: TableState, e: HandStood) -> TableState:
    hand = hand_of(state)
    if e.banker:
        return with_hand(state, with_banker(hand, status=HandStatus.STOOD))
    return with_hand(state, with_punter(hand, e.seat, e.hand, status=HandStatus.STOOD))


def _seed_committed(state: TableState, e: SeedCommitted) -> TableState:
    """A seed committed for hand ``e.number`` (a v1.1 table's unusable commitment was replaced by a new one)."""
    pledge = Pledge(number=e.number, commitment=e.seed_commitment, sealed=e.sealed_seed)
    kept = [p for p in state.pledges if p.number != e.number]
    if kept and kept[-1].number > e.number:
        return next_state(state, pledges=tuple(sorted((*kept, pledge), key=lambda p: p.number)))
    return next_state(state, pledges=(*kept, pledge))


def without_pledge(state: TableState, number: int) -> tuple[Pledge, ...]:
    """The pledges once hand ``number``'s seed is revealed (or its hand abandoned)."""
    pledges = state.pledges
    if any(p.number == number for p in pledges):
        return tuple(p for p in pledges if p.number != number)
    return pledges


def _client_seed_fixed(state: TableState, e: ClientSeedFixed) -> TableState:
    return with_hand(state, replace(hand_of(state), client_seed=e.client_seed))


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
}
