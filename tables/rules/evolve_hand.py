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
    Pledge,
    PunterHand,
    TableState,
)

_new = tuple.__new__
# The positional rebuilds below unpack every field by name: they must follow the field order exactly.
assert " ".join(TableState._fields) == (
    "version config seats banker_seat last_banker_seat banker_retiring stake hands_opened settled_through idle hand"
    " awaiting rigged_stock pledge"
)
assert " ".join(HandState._fields) == (
    "number phase banker seed_commitment server_seed client_seed stake entrants deck next_card punters split_seats"
    " pending results payouts next_banker_seat"
)
assert " ".join(PunterHand._fields) == (
    "seat hand_index player_id stake cards face_up status shown category total_hp matta_hp punter_reserve"
    " banker_reserve result"
)
assert " ".join(BankerHand._fields) == "seat player_id cards face_up status played category total_hp matta_hp"
#: Field defaults after the fields that ``_hand_opened`` sets.
_PUNTER_DEFAULTS = tuple(PunterHand._field_defaults[f] for f in PunterHand._fields[3:])
_BANKER_DEFAULTS = tuple(BankerHand._field_defaults[f] for f in BankerHand._fields[2:])
_HAND_DEFAULTS = tuple(HandState._field_defaults[f] for f in HandState._fields[11:])
_H_PHASE = 1
_H_BANKER = 2
_H_PUNTERS = 10
_P_FACE = 5
_P_STATUS = 6
_P_SHOWN = 7


def _set(cls: Any, t: Any, i: int, value: Any) -> Any:
    """A copy of named tuple ``t`` with field number ``i`` set (cheaper than ``_replace``)."""
    return _new(cls, (*t[:i], value, *t[i + 1 :]))


def _with_hand(state: TableState, hand: HandState) -> TableState:
    """``state`` one version later with ``hand``."""
    v, cf, se, bs, lb, br, st, ho, sd, idle, _, aw, rs, pl = state
    return _new(TableState, (v + 1, cf, se, bs, lb, br, st, ho, sd, idle, hand, aw, rs, pl))


def _with_hand_awaiting(state: TableState, hand: HandState, awaiting: Awaiting | None) -> TableState:
    """``state`` one version later with ``hand`` and ``awaiting``."""
    v, cf, se, bs, lb, br, st, ho, sd, idle, _, _, rs, pl = state
    return _new(TableState, (v + 1, cf, se, bs, lb, br, st, ho, sd, idle, hand, awaiting, rs, pl))


def _find(punters: tuple[PunterHand, ...], seat: int | None, index: int) -> int:
    for i, h in enumerate(punters):
        if h[0] == seat and h[1] == index:
            return i
    raise ValueError(f"no hand {index} at seat {seat}")  # pragma: no cover


def _put(hand: HandState, i: int, punter: PunterHand) -> HandState:
    """``hand`` with punter hand number ``i`` (its position in ``punters``) replaced."""
    nb, ph, bk, sc, ss, cs, st, en, dk, nx, pu, sp, pe, rs, po, nbs = hand
    pu = (*pu[:i], punter, *pu[i + 1 :])
    return _new(HandState, (nb, ph, bk, sc, ss, cs, st, en, dk, nx, pu, sp, pe, rs, po, nbs))


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
    seat_ids = {s[0]: s[1] for s in state.seats}
    # PunterHand(seat, 0, player_id) and BankerHand(seat, player_id) with every other field at its default
    punters = tuple(_new(PunterHand, (seat, 0, seat_ids[seat], *_PUNTER_DEFAULTS)) for seat in e.entrants)
    banker = _new(BankerHand, (e.banker_seat, e.banker_id, *_BANKER_DEFAULTS))
    hand = _new(
        HandState,
        (
            e.number,
            e.phase,
            banker,
            e.seed_commitment,
            e.server_seed,
            e.client_seed,
            e.stake,
            e.entrants,
            _deck_for(state, e),
            0,
            punters,
            *_HAND_DEFAULTS,
        ),
    )
    v, cf, se, bs, lb, br, st, _, sd, _, _, _, _, pl = state
    return _new(TableState, (v + 1, cf, se, bs, lb, br, st, e.number, sd, False, hand, None, None, pl))


def _action_awaited(state: TableState, e: ActionAwaited) -> TableState:
    hand = _hand(state)
    kind = e.kind
    seat = e.seat
    index = e.hand
    if kind == "bets":
        hand = _set(HandState, hand, _H_PHASE, "betting")
    elif kind != "banker":
        if seat is not None and index is not None:
            i = _find(hand.punters, seat, index)
            current = hand.punters[i]
            if current[_P_STATUS] == WAITING:
                hand = _put(hand, i, _set(PunterHand, current, _P_STATUS, PLAYING))
        if hand[_H_PHASE] != "punters":
            hand = _set(HandState, hand, _H_PHASE, "punters")
    return _with_hand_awaiting(state, hand, _new(Awaiting, (seat, index, kind, e.deadline_ms)))


def _add_stake(state: TableState, seat: int, index: int, stake: int, punter: int, banker: int) -> TableState:
    hand = _hand(state)
    i = _find(hand.punters, seat, index)
    se, ix, pl, _, cards, up, status, shown, cat, tot, matta, pr, br, res = hand.punters[i]
    h = (se, ix, pl, stake, cards, up, status, shown, cat, tot, matta, pr + punter, br + banker, res)
    return _with_hand(state, _put(hand, i, _new(PunterHand, h)))


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
    hand = _hand(state)
    nb, ph, bk, sc, ss, cs, st, en, dk, _, pu, sp, pe, rs, po, nbs = hand
    card = e.card
    if e.banker:
        seat, pl, cards, up, status, played, cat, tot, matta = bk
        bk = _new(BankerHand, (seat, pl, (*cards, card), (*up, e.face_up), status, played, cat, tot, matta))
    elif e.hand is None:
        assert e.seat is not None
        pe = (e.seat, card)
    else:
        i = _find(pu, e.seat, e.hand)
        seat, ix, pl, stake, cards, up, status, shown, cat, tot, matta, pr, br, res = pu[i]
        h = (seat, ix, pl, stake, (*cards, card), (*up, e.face_up), status, shown, cat, tot, matta, pr, br, res)
        pu = (*pu[:i], _new(PunterHand, h), *pu[i + 1 :])
    # next_card, the banker, the punters and the pending card in one rebuild of the hand
    return _with_hand(
        state, _new(HandState, (nb, ph, bk, sc, ss, cs, st, en, dk, e.deck_index + 1, pu, sp, pe, rs, po, nbs))
    )


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
        punters = hand.punters
        i = _find(punters, e.seat, e.hand)
        hand = _put(hand, i, _set(PunterHand, punters[i], _P_STATUS, STOOD))
    return _with_hand(state, hand)


def _show(state: TableState, e: HandBusted | HandMadeSevenHalf, status: str, category: str) -> TableState:
    hand = _hand(state)
    if e.banker:
        banker = hand.banker._replace(
            status=status, category=category, total_hp=e.total_half_points, matta_hp=e.matta_value
        )
        return _with_hand(state, _set(HandState, hand, _H_BANKER, banker))
    i = _find(hand.punters, e.seat, e.hand)
    seat, ix, pl, stake, cards, up, _, _, _, _, _, pr, br, res = hand.punters[i]
    h = (seat, ix, pl, stake, cards, up, status, True, category, e.total_half_points, e.matta_value, pr, br, res)
    return _with_hand(state, _put(hand, i, _new(PunterHand, h)))


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
    seat, pl, cards, up, _, _, cat, tot, matta = hand.banker
    banker = _new(BankerHand, (seat, pl, cards, up, PLAYING, True, cat, tot, matta))
    nb, _, _, sc, ss, cs, st, en, dk, nx, pu, sp, pe, rs, po, nbs = hand
    hand = _new(HandState, (nb, "banker", banker, sc, ss, cs, st, en, dk, nx, pu, sp, pe, rs, po, nbs))
    return _with_hand_awaiting(state, hand, None)


def _banker_turn_skipped(state: TableState, e: BankerTurnSkipped) -> TableState:
    return _with_hand_awaiting(state, _hand(state), None)


def _hand_settled(state: TableState, e: HandSettled) -> TableState:
    hand = _hand(state)
    by_hand = {(r.seat, r.hand): r for r in e.results}
    punters = []
    for h in hand.punters:
        r = by_hand.get((h[0], h[1]))
        seat, ix, pl, stake, cards, up, status, _, cat, tot, matta, pr, br, res = h
        if r is None:
            punters.append(
                _new(PunterHand, (seat, ix, pl, stake, cards, up, status, True, cat, tot, matta, pr, br, res))
            )
        else:
            shown = (True, r.category, r.total_half_points, r.matta_value, pr, br, r)
            punters.append(_new(PunterHand, (seat, ix, pl, stake, cards, up, status, *shown)))
    banker = hand.banker
    if banker.played:
        seat_, pl_, cards_, up_, status_, played, _, _, _ = banker
        banker_score = (e.banker_category, e.banker_total_half_points, e.banker_matta_value)
        banker = _new(BankerHand, (seat_, pl_, cards_, up_, status_, played, *banker_score))
    nb, _, _, sc, ss, cs, st, en, dk, nx, _, sp, pe, _, _, _ = hand
    ss = ss or e.server_seed  # revealed now (a hand committed ahead)
    payouts = tuple(e.payouts.items())
    after = (nb, "settled", banker, sc, ss, cs, st, en, dk, nx, tuple(punters), sp, pe, e.results, payouts)
    hand = _new(HandState, (*after, e.next_banker_seat))
    nbs = e.next_banker_seat
    v, cf, se, _, lb, _, s_stake, ho, _, idle, _, _, rigged, pledge = state
    last = nbs if nbs is not None else lb
    kept = None if pledge is not None and pledge.number == e.number else pledge  # revealed
    return _new(TableState, (v + 1, cf, se, nbs, last, False, s_stake, ho, e.number, idle, hand, None, rigged, kept))


def _hand_abandoned(state: TableState, e: HandAbandoned) -> TableState:
    hand = _hand(state)
    hand = hand._replace(phase="abandoned", server_seed=hand.server_seed or e.server_seed)
    pledge = state.pledge
    if pledge is not None and pledge.number == e.number:
        pledge = None
    return state._replace(
        version=state.version + 1, hand=hand, idle=True, settled_through=e.number, awaiting=None, pledge=pledge
    )


def _seed_committed(state: TableState, e: SeedCommitted) -> TableState:
    return state._replace(version=state.version + 1, pledge=Pledge(e.number, e.seed_commitment, e.sealed_seed))


def _client_seed_fixed(state: TableState, e: ClientSeedFixed) -> TableState:
    return _with_hand(state, _hand(state)._replace(client_seed=e.client_seed))


HAND_HANDLERS: dict[type[Event], Callable[[TableState, Any], TableState]] = {
    SeedCommitted: _seed_committed,
    ClientSeedFixed: _client_seed_fixed,
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
