"""The API's answers about a table (spec/API.md): the table view, an action's answer and the events feed, built
from the core's view records as the published records of :mod:`tables.api.records`. A hand's history and export
are :mod:`tables.api.hand_presenters`.

These functions rename and drop fields; they never decide what a viewer may see. Every card, seed and deck
they return comes out of ``view`` or ``view_event`` called with the read's viewer. Views and the feed render a
record with :func:`tables.api.openapi.published`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec import UNSET, structs

from gamemath.chainhash import SERVED_FORMS, hash_form, private_sha256
from gamemath.enums import WaitKind
from rules import API_ACTIONS, Event, HandFacts, TableState, Viewer, view, view_event
from rules.view_records import ResultRow, ResultView
from tables.api import records as api
from tables.models import Table
from tables.selectors import EventsRead, TableRead, last_hand_id, legal_for
from tables.store import StoredEvent
from tables.worth import TableWorth, worth_of, worths_of_tables

#: What ``POST /tables/{id}/actions`` accepts (sit_down and leave are the seat endpoints).


def _at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def present_results(rows: Sequence[ResultRow]) -> tuple[ResultView, ...]:
    """A hand's results as the API shows them: the player id stays inside, the seat says who."""
    return tuple(row.shown() for row in rows)


# --- what a table is worth -----------------------------------------------------------------------------------------


def present_rtp(worth: TableWorth) -> api.Rtp:
    """``rtp`` of the table view, the lobby and ``POST /tables/rtp``: the one record, published one way."""
    return msgspec.convert(worth.published(), api.Rtp)


# --- the table view -----------------------------------------------------------------------------------------------


def present_table(read: TableRead, limits: api.YourLimits) -> api.TableView:
    """``GET /tables/{id}`` (and ``table`` of an action's answer) for the read's viewer, with ``you.limits``."""
    return present_viewer_table(read).with_you(read.balance, limits)


@dataclass(frozen=True, slots=True)
class ViewerTable:
    """The table view as one viewer (:class:`~rules.Viewer`) sees it, all but the parts of ``you`` that belong to
    the user rather than to the viewer (his balance, his limits): what the live server computes once per version
    and viewer, and completes per user (:mod:`tables.live.table_views`)."""

    fields: dict[str, Any]  # every field of api.TableView but ``you``
    seat: int | None
    legal_actions: tuple[str, ...]
    legal_hands: dict[str, tuple[int, ...]]

    def with_you(self, balance: int, limits: api.YourLimits) -> api.TableView:
        you = api.You(
            seat=self.seat,
            balance=balance,
            legal_actions=self.legal_actions,
            legal_hands=self.legal_hands,
            limits=limits,
        )
        return api.TableView(**self.fields, you=you)


def present_viewer_table(read: TableRead) -> ViewerTable:
    """The table view for the read's viewer, without the user's balance and limits."""
    worked_out = legal_for(read)
    if worked_out is None:
        core = view(read.state, read.viewer, read.wallets)
    else:
        core = view(read.state, read.viewer, read.wallets, legal=worked_out[0], hands=worked_out[1])
    settings = core.settings
    if settings is None:
        raise ValueError(f"table {read.table_id} has no settings (no TableCreated)")
    config = read.state.config
    if config is None:
        raise ValueError(f"table {read.table_id} has no settings (no TableCreated)")
    you = core.you
    last = core.last_hand
    fields: dict[str, Any] = {
        "id": read.table_id,
        "name": read.name,
        "preset": settings.preset,
        "rules": settings.rules,
        "min_bet": settings.min_bet,
        "max_bet": settings.max_bet,
        "bank": settings.bank,
        "max_seats": settings.max_seats,
        "fixed_stake": settings.fixed_stake,
        "turn_timeout_s": settings.turn_timeout_s,
        "betting_timeout_s": settings.betting_timeout_s,
        "rtp": present_rtp(worth_of(config)),
        "version": core.version,
        "phase": core.phase,
        "next_seed_commitment": core.next_seed_commitment,
        "seats": tuple(
            api.TableSeat(
                seat=s.seat, username=s.username, is_banker=s.is_banker, sitting_out=s.sitting_out, leaving=s.leaving
            )
            for s in core.seats
        ),
        "hand": _hand(core.hand, read.hand_id) if core.hand is not None else None,
        "last_hand": None if last is None else api.LastHand(id=last_hand_id(read), **structs.asdict(last)),
    }
    return ViewerTable(
        fields=fields,
        seat=you.seat if you is not None else None,
        legal_actions=tuple(a for a in you.legal_actions if a in API_ACTIONS) if you is not None else (),
        legal_hands=you.legal_hands if you is not None else {},
    )


def _hand(hand: HandFacts, hand_id: int | None) -> api.CurrentHand:
    turn = hand.turn
    return api.CurrentHand(
        id=hand_id,
        number=hand.number,
        nonce=hand.nonce,
        seed_commitment=hand.seed_commitment,
        client_seed=hand.client_seed,
        server_seed=hand.server_seed,
        phase=hand.phase,
        stake=hand.stake,
        turn=None
        if turn is None
        else api.Turn(seat=turn.seat, hand=turn.hand, kind=turn.kind, deadline=_at(turn.deadline)),
        betting_deadline=_at(turn.deadline) if turn is not None and turn.kind == WaitKind.BETTING_WINDOW else None,
        participants=tuple(
            api.HandParticipant(seat=p.seat, username=p.username, role=p.role, hands=p.hands) for p in hand.participants
        ),
        pending_card=hand.pending_card,
        stock_left=hand.stock_left,
        results=present_results(hand.results) if hand.results is not None else None,
        next_banker=hand.next_banker,
        deck=hand.deck,
    )


# --- events --------------------------------------------------------------------------------------------------------


def present_event(
    stored: StoredEvent, event: Event, viewer: Viewer, state: TableState, chain_public_through: int = 0
) -> api.TableEvent:
    """One event of the feed as ``viewer`` may see it (``state``: any state at or after the event).

    Events up to ``chain_public_through`` (the latest signed checkpoint: only ended hands) also carry their
    chain ``hash``, ``prev_hash`` and ``hash_form`` (1, 2 or 3: ``gamemath.chainhash``), so anyone can check the
    links against the signed checkpoints (which sign every event's form since v1.3), and, for events hashed in
    form 2 or 3, ``private_sha256``: with it anyone recomputes the hash from the event as served."""
    data = view_event(event, viewer, state)
    data.pop("type", None)
    if stored.version > chain_public_through:
        return api.TableEvent(seq=stored.version, type=stored.type, at=stored.recorded_at, data=data)
    form = hash_form(stored.metadata)
    served = form in SERVED_FORMS
    return api.TableEvent(
        seq=stored.version,
        type=stored.type,
        at=stored.recorded_at,
        data=data,
        prev_hash=stored.prev_hash,
        hash=stored.hash,
        hash_form=form,
        private_sha256=private_sha256(stored.data, stored.metadata) if served else UNSET,
    )


def present_lobby(tables: Sequence[Table]) -> list[api.LobbyTable]:
    """A page of the lobby: each table's read-model columns and its ``rtp`` (the worths read together)."""
    worths = worths_of_tables(t.pk for t in tables)
    return [
        api.LobbyTable(
            id=t.pk,
            name=t.name,
            preset=t.preset,
            min_bet=t.min_bet,
            max_bet=t.max_bet,
            bank=t.bank,
            seats_taken=t.seats_taken,
            max_seats=t.max_seats,
            phase=t.phase,
            rtp=present_rtp(worths[t.pk]),
        )
        for t in tables
        if t.pk in worths  # a table is created with its first event, in one transaction: always there
    ]


def present_outcome(read: TableRead, limits: api.YourLimits) -> api.TableActionResponse:
    """An action's answer: the table after it and the events it appended, as the caller may see them."""
    return api.TableActionResponse(
        table=present_table(read, limits),
        events=tuple(present_event(s, e, read.viewer, read.state) for s, e in read.events),
    )


def present_events(read: EventsRead) -> api.TableEvents:
    """``GET /tables/{id}/events``."""
    return api.TableEvents(
        events=tuple(present_event(s, e, read.viewer, read.state, read.chain_public_through) for s, e in read.events),
        last_seq=read.last_seq,
    )
