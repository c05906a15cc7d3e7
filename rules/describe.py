"""An event described for people: who acted (the house shown as the house) and one line saying what it records.

Every surface that tells an operator what happened (the admin's timeline and events list, ``replay_hand``) says it
with these two functions. They match on the typed events, so a renamed field fails here instead of printing
``None``; what a viewer may not see (a face-down card, the seed of a hand in play) is withheld by the same rule as
the events feed (:func:`.view.card_hidden`, :func:`.view.seed_hidden`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from gamemath.cards import card_words, format_hp
from rules.events import (
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    BankPassed,
    BankRetirementRequested,
    BetPlaced,
    BettingClosed,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    ClientSeedFixed,
    ClientSeedSet,
    Event,
    FirstBankerDrawn,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandOpened,
    HandSettled,
    HandSplit,
    HandStood,
    LeaveRequested,
    PlayerTimedOut,
    PunterSkipped,
    SatIn,
    SatOut,
    SeatLeft,
    SeatTaken,
    SeedCommitted,
    StakeRaised,
    StakeSet,
    TableCreated,
    TimeoutStreakReset,
)
from rules.hiding import Viewer, card_hidden, seed_hidden
from rules.state import TableState
from rules.view_records import Record

HOUSE_LABEL = "the house"


class ActorKind(StrEnum):
    """Who took the step an event records."""

    HOUSE = "house"  # the house banker's own play
    PLAYER = "player"  # the player whose command it was
    SYSTEM = "system"  # a timeout or another rule of the server


class Actor(Record, frozen=True, kw_only=True):
    """Who acted: ``label`` is what every surface prints."""

    kind: ActorKind
    username: str | None = None
    reason: str | None = None

    @property
    def label(self) -> str:
        if self.kind == ActorKind.HOUSE:
            return HOUSE_LABEL
        if self.kind == ActorKind.SYSTEM:
            return f"system ({self.reason or 'rule'})"
        return self.username or "a player"


_HOUSE_PLAY = (CardDealt, CardTurnedUp, HandStood, HandBusted, HandMadeSevenHalf, HandMadePairOfSevens)


def house_played(event: Event) -> bool:
    """The event records the house banker's own cards or play (whoever's command set it off)."""
    if isinstance(event, (BankerTurnStarted, BankerTurnSkipped)):
        return event.seat is None
    return isinstance(event, _HOUSE_PLAY) and event.banker and event.seat is None


def acted_by(event: Event, metadata: Mapping[str, Any]) -> Actor:
    """Who took the step ``event`` records: the house for the house banker's play, else the sender of the
    command recorded in ``metadata`` (``actor``, ``actor_username``), else the system with its ``reason``."""
    if house_played(event):
        return Actor(kind=ActorKind.HOUSE)
    actor = metadata.get("actor")
    if actor is None:
        return Actor(kind=ActorKind.SYSTEM, reason=metadata.get("reason") or "rule")
    return Actor(kind=ActorKind.PLAYER, username=str(metadata.get("actor_username") or f"user {actor}"))


def card_label(code: str) -> str:
    """A card as operators' lines name it, the Spanish pack's own name: ``12E`` -> "king of swords"."""
    return card_words(code)


def _seat(seat: int | None, names: Mapping[int, str]) -> str:
    if seat is None:
        return HOUSE_LABEL
    name = names.get(seat)
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def _hand(index: int | None) -> str:
    return f" hand {index}" if index not in (None, 0) else ""


def _holder(banker: bool, seat: int | None, hand: int | None, names: Mapping[int, str]) -> str:
    return "the banker" if banker else _seat(seat, names) + _hand(hand)


def _cards(codes: Iterable[str]) -> str:
    return " ".join(card_label(c) for c in codes)


def _at(ms: int) -> str:
    """An epoch time in ms as the UTC time of day (the core reads no clock, nor the datetime module)."""
    seconds = ms // 1000 % 86400
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d} UTC"


def describe_event(event: Event, names: Mapping[int, str], viewer: Viewer, state: TableState) -> str:
    """One line saying what ``event`` records, as ``viewer`` may see it now (``state``: at or after it);
    ``names``: seat -> username. Each family of events is described by its own function below."""
    line = (
        _seats(event, names)
        or _opening(event, names, state)
        or _play(event, names, viewer, state)
        or _ends(event, names)
    )
    return line if line is not None else type(event).__name__


def _seats(event: Event, names: Mapping[int, str]) -> str | None:
    """The table, its seats and its bank: who sits, leaves, times out, sets the stake, holds the bank."""
    match event:
        case TableCreated(config=c):
            return f"table created: {c.preset}, {c.bank} bank, bets {c.min_bet}-{c.max_bet}"
        case SeatTaken(username=username, seat=seat):
            return f"{username} takes seat {seat}"
        case SatOut(seat=seat, reason=reason):
            return f"{_seat(seat, names)} sits out ({reason})"
        case SatIn(seat=seat, reason=reason):
            return f"{_seat(seat, names)} sits in ({reason})"
        case SeatLeft(seat=seat, reason=reason):
            return f"{_seat(seat, names)} leaves ({reason})"
        case LeaveRequested(seat=seat):
            return f"{_seat(seat, names)} will leave after the hand"
        case PlayerTimedOut(seat=seat, waiting_for=kind, streak=streak):
            return f"{_seat(seat, names)} timed out waiting for {kind} (streak {streak})"
        case TimeoutStreakReset(seat=seat):
            return f"{_seat(seat, names)} acted again: timeout streak reset"
        case StakeSet(seat=seat, amount=amount):
            return f"{_seat(seat, names)} sets the stake S to {amount}"
        case BankRetirementRequested(seat=seat):
            return f"{_seat(seat, names)} retires the bank after the hand"
        case ClientSeedSet(seat=seat, client_seed=client_seed):
            return f"{_seat(seat, names)} sets client seed {client_seed}"
        case FirstBankerDrawn(seat=seat, candidates=candidates):
            return f"first banker drawn: {_seat(seat, names)} among seats {list(candidates)}"
        case BankPassed(from_seat=from_seat, to_seat=to_seat, reason=reason):
            to = _seat(to_seat, names) if to_seat is not None else "nobody"
            return f"bank passes from {_seat(from_seat, names)} to {to} ({reason})"
    return None


def _opening(event: Event, names: Mapping[int, str], state: TableState) -> str | None:
    """A hand opening: its seeds, its opening, the waits and the bets."""
    match event:
        case SeedCommitted(number=number, seed_commitment=commitment):
            return f"seed of hand #{number} committed: {commitment}"
        case ClientSeedFixed(number=number, client_seed=client_seed):
            return f"client seed of hand #{number} fixed: {client_seed}"
        case HandOpened(number=number, banker_seat=banker, entrants=entrants, seed_commitment=commitment):
            seed = "hidden until settlement" if seed_hidden(event, state) else event.server_seed or "not revealed yet"
            return (
                f"hand #{number} opened, banker {_seat(banker, names)}, entrants {list(entrants)}; "
                f"commitment {commitment}; server seed {seed}"
            )
        case ActionAwaited(seat=seat, hand=hand, kind=kind, deadline_ms=deadline):
            who = "every punter owing a bet" if seat is None else _seat(seat, names) + _hand(hand)
            return f"waiting for {who}: {kind} until {_at(deadline)}"
        case BetPlaced(seat=seat, hand=hand, amount=amount, stake=stake):
            how = " by timeout" if event.by_timeout else ""
            return (
                f"{_seat(seat, names)}{_hand(hand)} bets {amount}{how} (stake {stake}; reserves: punter "
                f"{event.punter_reserve}, banker {event.banker_reserve})"
            )
        case StakeRaised(seat=seat, hand=hand, amount=amount, stake=stake):
            return f"{_seat(seat, names)}{_hand(hand)} raises {amount} to {stake}"
        case PunterSkipped(seat=seat, reason=reason):
            return f"{_seat(seat, names)} is out of this hand ({reason})"
        case BettingClosed():
            return "betting closed"
    return None


def _play(event: Event, names: Mapping[int, str], viewer: Viewer, state: TableState) -> str | None:
    """The cards and the play: deals, turned-up and assigned cards, splits, stands, busts and made hands."""
    match event:
        case CardDealt(banker=banker, seat=seat, hand=hand, face_up=face_up):
            face = "face up" if face_up else "face down"
            if card_hidden(event, viewer, state):
                return f"a hidden card dealt {face} to {_holder(banker, seat, hand, names)}"
            return (
                f"{card_label(event.card)} dealt {face} to {_holder(banker, seat, hand, names)} "
                f"(deck index {event.deck_index})"
            )
        case CardTurnedUp(banker=banker, seat=seat, hand=hand, card=card):
            return f"{_holder(banker, seat, hand, names)} turns up {card_label(card)}"
        case CardAssigned(seat=seat, hand=hand, card=card):
            return f"{_seat(seat, names)} assigns {card_label(card)} to hand {hand}"
        case HandSplit(seat=seat, card=card, new_hand=new_hand, amount=amount):
            return f"{_seat(seat, names)} splits: {card_label(card)} starts hand {new_hand} with stake {amount}"
        case HandStood(banker=banker, seat=seat, hand=hand, reason=reason):
            return f"{_holder(banker, seat, hand, names)} stands ({reason})"
        case HandBusted(banker=banker, seat=seat, hand=hand, total_half_points=total, cards=cards):
            return f"{_holder(banker, seat, hand, names)} busts with {format_hp(total)}: {_cards(cards)}"
        case HandMadeSevenHalf(banker=banker, seat=seat, hand=hand, total_half_points=total, cards=cards):
            made = f"makes seven and a half with {format_hp(total)}"
            return f"{_holder(banker, seat, hand, names)} {made}: {_cards(cards)}"
        case HandMadePairOfSevens(banker=banker, seat=seat, hand=hand, cards=cards):
            return f"{_holder(banker, seat, hand, names)} makes a pair of sevens: {_cards(cards)}"
        case BankerTurnStarted(seat=seat):
            return f"banker's turn ({_seat(seat, names)})"
        case BankerTurnSkipped():
            return "no punter hand left: the banker does not play"
    return None


def _ends(event: Event, names: Mapping[int, str]) -> str | None:
    """How a hand ends: settled or abandoned, with its server seed."""
    match event:
        case HandSettled(number=number, banker_net=net, next_banker_seat=next_seat, bank_reason=reason):
            return (
                f"hand #{number} settled: banker net {net}, next banker {_seat(next_seat, names)} ({reason}); "
                f"server seed {event.server_seed or 'revealed as the hand opened'}"
            )
        case HandAbandoned(number=number, reason=reason, server_seed=seed):
            return f"hand #{number} abandoned ({reason}); server seed {seed or 'never revealed'}"
    return None
