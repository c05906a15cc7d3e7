"""The API's answers (spec/API.md) built from the core's view records as the published records of
:mod:`tables.api.records`.

These functions rename and drop fields; they never decide what a viewer may see. Every card, seed and deck
they return comes out of ``view``, ``view_event`` or ``hand_history`` called with the read's viewer. The one
thing added from outside the projections is a hand's ``actions``, taken from the commands recorded in event
metadata without their ``ctx`` (its entropy is the server seed of any hand the command opens, its wallets are
other players' balances), beside the house banker's own steps, which the core's history lists.
Views and the feed render a record with :func:`tables.api.openapi.published`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from msgspec import UNSET, structs

from gamemath.chainhash import HASH_FORM, hash_form, private_sha256
from gamemath.enums import WaitKind
from rules import (
    ACTION_COMMANDS,
    Event,
    HandFacts,
    HandHistory,
    TableState,
    Viewer,
    evolve,
    hand_history,
    view,
    view_event,
)
from rules.view_records import HouseAction, ParticipantView, ResultRow, ResultView, SeatRef
from tables.api import records as api
from tables.fairness import game_of
from tables.hand_reads import ExportRead, HandRead
from tables.public_metadata import public_command
from tables.selectors import EventsRead, TableRead, last_hand_id, legal_for
from tables.store import StoredEvent

#: What ``POST /tables/{id}/actions`` accepts (sit_down and leave are the seat endpoints).
API_ACTIONS: tuple[str, ...] = tuple(name for name in ACTION_COMMANDS if name not in ("sit_down", "leave"))
_ACTION_BY_COMMAND = {cls.__name__: name for name, cls in ACTION_COMMANDS.items()} | {
    "CreateTable": "create_table",
    "SetClientSeed": "set_client_seed",
    "Timeout": "timeout",
}
_COMMAND_SHOWN_ELSEWHERE = ("type", "player_id", "username")  # the row's seat and action say them


def _at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def _results(rows: Sequence[ResultRow]) -> tuple[ResultView, ...]:
    return tuple(row.shown() for row in rows)  # the player id stays inside: the seat says who


# --- the table view -----------------------------------------------------------------------------------------------


def present_table(read: TableRead, limits: api.YourLimits) -> api.TableView:
    """``GET /tables/{id}`` (and ``table`` of an action's answer) for the read's viewer, with ``you.limits``."""
    worked_out = legal_for(read)
    if worked_out is None:
        core = view(read.state, read.viewer, read.wallets)
    else:
        core = view(read.state, read.viewer, read.wallets, legal=worked_out[0], hands=worked_out[1])
    settings = core.settings
    if settings is None:
        raise ValueError(f"table {read.table_id} has no settings (no TableCreated)")
    you = core.you
    last = core.last_hand
    return api.TableView(
        id=read.table_id,
        name=read.name,
        preset=settings.preset,
        rules=settings.rules,
        min_bet=settings.min_bet,
        max_bet=settings.max_bet,
        bank=settings.bank,
        max_seats=settings.max_seats,
        fixed_stake=settings.fixed_stake,
        turn_timeout_s=settings.turn_timeout_s,
        betting_timeout_s=settings.betting_timeout_s,
        version=core.version,
        phase=core.phase,
        next_seed_commitment=core.next_seed_commitment,
        seats=tuple(
            api.TableSeat(
                seat=s.seat, username=s.username, is_banker=s.is_banker, sitting_out=s.sitting_out, leaving=s.leaving
            )
            for s in core.seats
        ),
        hand=_hand(core.hand, read.hand_id) if core.hand is not None else None,
        last_hand=None if last is None else api.LastHand(id=last_hand_id(read), **structs.asdict(last)),
        you=api.You(
            seat=you.seat if you is not None else None,
            balance=read.balance,
            legal_actions=tuple(a for a in you.legal_actions if a in API_ACTIONS) if you is not None else (),
            legal_hands=you.legal_hands if you is not None else {},
            limits=limits,
        ),
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
        results=_results(hand.results) if hand.results is not None else None,
        next_banker=hand.next_banker,
        deck=hand.deck,
    )


# --- events --------------------------------------------------------------------------------------------------------


def present_event(
    stored: StoredEvent, event: Event, viewer: Viewer, state: TableState, chain_public_through: int = 0
) -> api.TableEvent:
    """One event of the feed as ``viewer`` may see it (``state``: any state at or after the event).

    Events up to ``chain_public_through`` (the latest signed checkpoint: only ended hands) also carry their
    chain ``hash`` and ``prev_hash``, so anyone can check the links against the signed checkpoints, and, for
    events hashed in form 2 (``gamemath.chainhash``), ``hash_form`` and ``private_sha256``: with them anyone
    recomputes the hash from the event as served."""
    data = view_event(event, viewer, state)
    data.pop("type", None)
    if stored.version > chain_public_through:
        return api.TableEvent(seq=stored.version, type=stored.type, at=stored.recorded_at, data=data)
    form_2 = hash_form(stored.metadata) == HASH_FORM
    return api.TableEvent(
        seq=stored.version,
        type=stored.type,
        at=stored.recorded_at,
        data=data,
        prev_hash=stored.prev_hash,
        hash=stored.hash,
        hash_form=HASH_FORM if form_2 else UNSET,
        private_sha256=private_sha256(stored.data, stored.metadata) if form_2 else UNSET,
    )


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


# --- a hand's history ----------------------------------------------------------------------------------------------


def present_history(read: HandRead) -> api.HandHistory:
    """``GET /hands/{id}`` for the read's viewer (a participant, or staff as auditor)."""
    hand = read.hand
    events = [event for _, event in read.events]
    history = hand_history(
        events, hand.number, start_version=read.events[0][0].version, state=read.start_state, viewer=read.viewer
    )
    facts = history.hand
    # the chain hash of every event the history shows, once the hand has ended (the export has the events whole)
    chained = {s.version: s for s, _ in read.events} if hand.status != "in_play" else {}
    return api.HandHistory(
        id=hand.pk,
        table=hand.table_id,
        number=facts.number,
        game=api.Game(**game_of(hand.rules_version, hand.rules_sha256)),
        status=hand.status,
        rules=history.rules,
        seed_commitment=facts.seed_commitment,
        seed_committed_at=read.seed_committed_at,
        server_seed=facts.server_seed,
        client_seed=facts.client_seed,
        nonce=facts.nonce,
        deck=facts.deck,
        deck_reason=facts.deck_reason,
        banker=SeatRef(seat=facts.banker.seat, username=facts.banker.username),
        participants=tuple(_history_participant(history, p) for p in facts.participants),
        deals=tuple(api.Deal(**structs.asdict(d), **_chain(d.seq, chained)) for d in history.deals),
        actions=hand_actions(read.start_state, read.events, history, chained),
        results=_results(facts.results or ()),
        next_banker=facts.next_banker,
        ledger=tuple(
            api.HandTransaction(
                transaction_id=tx["transaction_id"],
                kind=tx["kind"],
                postings=tuple(api.HandPosting(account=p["account"], amount=p["amount"]) for p in tx["postings"]),
            )
            for tx in read.ledger
        ),
    )


def _history_participant(history: HandHistory, p: ParticipantView) -> api.HistoryParticipant:
    seed = history.client_seed_of(p.seat)
    return api.HistoryParticipant(
        seat=p.seat,
        username=p.username,
        role=p.role,
        client_seed=seed.client_seed if seed is not None else None,
        client_seed_set_at=seed.client_seed_set_at if seed is not None else None,
        hands=tuple(
            api.HistoryHand(
                index=h.index,
                bet=h.bet,
                cards=tuple(c.code for c in h.cards),
                total_half_points=h.total_half_points,
            )
            for h in p.hands
        ),
    )


def _chain(seq: int, chained: Mapping[int, StoredEvent]) -> dict[str, Any]:
    """A history row's (a deal's, an action's) ``hash`` and ``prev_hash``: its event's, when shown."""
    stored = chained.get(seq)
    return {} if stored is None else {"hash": stored.hash, "prev_hash": stored.prev_hash}


def hand_actions(
    start: TableState,
    events: Sequence[tuple[StoredEvent, Event]],
    history: HandHistory,
    chained: Mapping[int, StoredEvent],
) -> tuple[api.ActionRecord, ...]:
    """Every command recorded in ``events`` (grouped by ``metadata.command_version``), never with its ``ctx``,
    with the house banker's own steps of ``history`` (seat null, ``args.reason``), in stream order. A system
    command has ``seat`` null and ``args.reason``."""
    rows: list[api.ActionRecord] = []
    at = {stored.version: stored.recorded_at for stored, _ in events}
    state = start
    for stored, event in events:
        before = state
        state = evolve(state, event)
        metadata = stored.metadata
        command = public_command(metadata)
        if command is not None and metadata.get("command_version", stored.version) == stored.version:
            rows.append(_action_row(stored, command, before, state, chained))
    rows += (_house_row(step, at[step.seq], chained) for step in history.house_actions)
    return tuple(sorted(rows, key=lambda row: row.seq))  # stable: a command before the house's step it set off


def _action_row(
    stored: StoredEvent,
    command: Mapping[str, Any],
    before: TableState,
    after: TableState,
    chained: Mapping[int, StoredEvent],
) -> api.ActionRecord:
    actor = stored.metadata.get("actor")
    kind = str(command.get("type", ""))
    args = {k: v for k, v in command.items() if k not in _COMMAND_SHOWN_ELSEWHERE}
    seat: int | None = None
    player_id = command.get("player_id")
    if actor is None or player_id is None:
        args["reason"] = stored.metadata.get("reason") or "system"
    else:
        taken = before.seat_of(str(player_id)) or after.seat_of(str(player_id))
        seat = taken.seat if taken is not None else None
    return api.ActionRecord(
        seq=stored.version,
        at=stored.recorded_at,
        seat=seat,
        action=_ACTION_BY_COMMAND.get(kind, kind),
        args=args,
        **_chain(stored.version, chained),
    )


def _house_row(step: HouseAction, at: datetime, chained: Mapping[int, StoredEvent]) -> api.ActionRecord:
    return api.ActionRecord(
        seq=step.seq, at=at, seat=None, action=step.action, args={"reason": step.reason}, **_chain(step.seq, chained)
    )


# --- a hand's export -----------------------------------------------------------------------------------------------

EXPORT_FORMAT = "sevenhalf-hand-export/1"


def present_export(read: ExportRead, public_keys: Sequence[tuple[str, bytes]]) -> api.HandExport:
    """``GET /hands/{id}/export``: the history, the events around the hand as the caller may see them (each
    with ``hash``, ``prev_hash`` and, in form 2, ``hash_form`` and ``private_sha256``), the checkpoints before
    and after it and the signing keys (which a verifier must not take on the export's word alone)."""
    viewer = read.history.viewer
    history = present_history(read.history)
    return api.HandExport(
        format=EXPORT_FORMAT,
        hand=history,
        events=tuple(present_event(s, e, viewer, read.table_state, read.chain_public_through) for s, e in read.events),
        checkpoints=tuple(
            api.Checkpoint(version=c.version, hash=c.hash, signature=c.signature, at=c.at, key_id=c.key_id)
            for c in read.checkpoints
        ),
        public_keys=tuple(
            api.ExportedKey(key_id=key_id, public_key=base64.b64encode(raw).decode()) for key_id, raw in public_keys
        ),
        game=history.game,
    )
