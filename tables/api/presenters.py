"""The API's JSON shapes (spec/API.md) built from the core's viewer projections.

These functions rename and drop fields; they never decide what a viewer may see. Every card, seed and deck
they return comes out of ``view``, ``view_event`` or ``hand_history`` called with the read's viewer. The one
thing added from outside the projections is a hand's ``actions``, taken from the commands recorded in event
metadata without their ``ctx`` (its entropy is the server seed of any hand the command opens, its wallets are
other players' balances).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from msgspec import to_builtins

from tables.fairness import game_of
from tables.rules import (
    ACTION_COMMANDS,
    BankerTurnStarted,
    CardDealt,
    Event,
    HandFacts,
    HandHistory,
    HandOpened,
    HandSettled,
    HandStood,
    TableState,
    Viewer,
    evolve,
    hand_history,
    view,
    view_event,
)
from tables.rules.chainhash import HASH_FORM, hash_form, private_sha256
from tables.rules.view_records import ParticipantView, ResultRow, SeatRef, TableSettings
from tables.selectors import EventsRead, ExportRead, HandRead, TableRead, last_hand_id, legal_for
from tables.store import StoredEvent, public_command

#: What ``POST /tables/{id}/actions`` accepts (sit_down and leave are the seat endpoints).
API_ACTIONS: tuple[str, ...] = tuple(name for name in ACTION_COMMANDS if name not in ("sit_down", "leave"))
_ACTION_BY_COMMAND = {cls.__name__: name for name, cls in ACTION_COMMANDS.items()} | {
    "CreateTable": "create_table",
    "SetClientSeed": "set_client_seed",
    "Timeout": "timeout",
}
_COMMAND_SHOWN_ELSEWHERE = ("type", "player_id", "username")  # the row's seat and action say them
_SETTINGS = TableSettings.__struct_fields__


def _at(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def _results(rows: Sequence[ResultRow]) -> list[dict[str, Any]]:
    # the player id stays inside: the seat says who
    return [{k: v for k, v in to_builtins(row).items() if k != "player_id"} for row in rows]


def _seat_ref(ref: SeatRef | None) -> dict[str, Any] | None:
    return None if ref is None else {"seat": ref.seat, "username": ref.username}


# --- the table view -----------------------------------------------------------------------------------------------


def present_table(read: TableRead) -> dict[str, Any]:
    """``GET /tables/{id}`` (and ``table`` of an action's answer) for the read's viewer."""
    worked_out = legal_for(read)
    if worked_out is None:
        core = view(read.state, read.viewer, read.wallets)
    else:
        core = view(read.state, read.viewer, read.wallets, legal=worked_out[0], hands=worked_out[1])
    you = core.you
    last = core.last_hand
    settings = to_builtins(core.settings) if core.settings is not None else dict.fromkeys(_SETTINGS)
    return {
        "id": read.table_id,
        "name": read.name,
        **settings,
        "version": core.version,
        "phase": core.phase,
        "next_seed_commitment": core.next_seed_commitment,
        "seats": [
            {
                "seat": s.seat,
                "username": s.username,
                "is_banker": s.is_banker,
                "sitting_out": s.sitting_out,
                "leaving": s.leaving,
            }
            for s in core.seats
        ],
        "hand": _hand(core.hand, read.hand_id) if core.hand is not None else None,
        "last_hand": None if last is None else {"id": last_hand_id(read), **to_builtins(last)},
        "you": {
            "seat": you.seat if you is not None else None,
            "balance": read.balance,
            "legal_actions": [a for a in you.legal_actions if a in API_ACTIONS] if you is not None else [],
            "legal_hands": to_builtins(you.legal_hands) if you is not None else {},
        },
    }


def _hand(hand: HandFacts, hand_id: int | None) -> dict[str, Any]:
    turn = hand.turn
    return {
        "id": hand_id,
        "number": hand.number,
        "nonce": hand.nonce,
        "seed_commitment": hand.seed_commitment,
        "client_seed": hand.client_seed,
        "server_seed": hand.server_seed,
        "phase": hand.phase,
        "stake": hand.stake,
        "turn": None
        if turn is None
        else {"seat": turn.seat, "hand": turn.hand, "kind": turn.kind, "deadline": _at(turn.deadline)},
        "betting_deadline": _at(turn.deadline) if turn is not None and turn.kind == "bets" else None,
        "participants": [
            {"seat": p.seat, "username": p.username, "role": p.role, "hands": to_builtins(p.hands)}
            for p in hand.participants
        ],
        "pending_card": to_builtins(hand.pending_card),
        "stock_left": hand.stock_left,
        "results": _results(hand.results) if hand.results is not None else None,
        "next_banker": _seat_ref(hand.next_banker),
        "deck": list(hand.deck) if hand.deck is not None else None,
    }


# --- events --------------------------------------------------------------------------------------------------------


def present_event(
    stored: StoredEvent, event: Event, viewer: Viewer, state: TableState, chain_public_through: int = 0
) -> dict[str, Any]:
    """One event of the feed as ``viewer`` may see it (``state``: any state at or after the event).

    Events up to ``chain_public_through`` (the latest signed checkpoint: only ended hands) also carry their
    chain ``hash`` and ``prev_hash``, so anyone can check the links against the signed checkpoints, and, for
    events hashed in form 2 (``tables.rules.chainhash``), ``hash_form`` and ``private_sha256``: with them anyone
    recomputes the hash from the event as served."""
    data = view_event(event, viewer, state)
    data.pop("type", None)
    out = {"seq": stored.version, "type": stored.type, "at": stored.recorded_at, "data": data}
    if stored.version <= chain_public_through:
        out["prev_hash"] = stored.prev_hash
        out["hash"] = stored.hash
        if hash_form(stored.metadata) == HASH_FORM:
            out["hash_form"] = HASH_FORM
            out["private_sha256"] = private_sha256(stored.data, stored.metadata)
    return out


def present_outcome(read: TableRead) -> dict[str, Any]:
    """An action's answer: the table after it and the events it appended, as the caller may see them."""
    return {
        "table": present_table(read),
        "events": [present_event(s, e, read.viewer, read.state) for s, e in read.events],
    }


def present_events(read: EventsRead) -> dict[str, Any]:
    """``GET /tables/{id}/events``."""
    return {
        "events": [present_event(s, e, read.viewer, read.state, read.chain_public_through) for s, e in read.events],
        "last_seq": read.last_seq,
    }


# --- a hand's history ----------------------------------------------------------------------------------------------


def present_history(read: HandRead) -> dict[str, Any]:
    """``GET /hands/{id}`` for the read's viewer (a participant, or staff as auditor)."""
    hand = read.hand
    events = [event for _, event in read.events]
    history = hand_history(
        events, hand.number, start_version=read.events[0][0].version, state=read.start_state, viewer=read.viewer
    )
    facts = history.hand
    # the chain hash of every event the history shows, once the hand has ended (the export has the events whole)
    chained = {s.version: s for s, _ in read.events} if hand.status != "in_play" else {}
    return {
        "id": hand.pk,
        "table": hand.table_id,
        "number": facts.number,
        "game": game_of(hand.rules_version, hand.rules_sha256),
        "status": hand.status,
        "rules": history.rules,
        "seed_commitment": facts.seed_commitment,
        "seed_committed_at": read.seed_committed_at,
        "server_seed": facts.server_seed,
        "client_seed": facts.client_seed,
        "nonce": facts.nonce,
        "deck": list(facts.deck) if facts.deck is not None else None,
        "deck_reason": facts.deck_reason,
        "banker": {"seat": facts.banker.seat, "username": facts.banker.username},
        "participants": [_history_participant(history, p) for p in facts.participants],
        "deals": [
            _with_hash(
                {
                    "seq": d.seq,
                    "to_seat": d.to_seat,
                    "banker": d.banker,
                    "hand": d.hand,
                    "card": d.card,
                    "face_up": d.face_up,
                },
                chained,
            )
            for d in history.deals
        ],
        "actions": [_with_hash(row, chained) for row in hand_actions(read.start_state, read.events, hand.number)],
        "results": _results(facts.results or ()),
        "next_banker": _seat_ref(facts.next_banker),
        "ledger": read.ledger,
    }


def _history_participant(history: HandHistory, p: ParticipantView) -> dict[str, Any]:
    seed = history.client_seed_of(p.seat)
    return {
        "seat": p.seat,
        "username": p.username,
        "role": p.role,
        "client_seed": seed.client_seed if seed is not None else None,
        "client_seed_set_at": seed.client_seed_set_at if seed is not None else None,
        "hands": [
            {
                "index": h.index,
                "bet": h.bet,
                "cards": [c.code for c in h.cards],
                "total_half_points": h.total_half_points,
            }
            for h in p.hands
        ],
    }


def _with_hash(row: dict[str, Any], chained: Mapping[int, StoredEvent]) -> dict[str, Any]:
    """A history row (a deal, an action) with its event's chain ``hash`` and ``prev_hash``, when shown."""
    stored = chained.get(row["seq"])
    if stored is not None:
        row["hash"] = stored.hash
        row["prev_hash"] = stored.prev_hash
    return row


def hand_actions(start: TableState, events: Sequence[tuple[StoredEvent, Event]], number: int) -> list[dict[str, Any]]:
    """Every command recorded in ``events`` (grouped by ``metadata.command_version``) as ``{seq, at, seat,
    action, args}``, never with its ``ctx``; a system command has ``seat`` null and ``args.reason``. A house
    banker's draws and stand in hand ``number`` are rows of their own (``seat`` null, reason ``house_rule``)."""
    rows: list[dict[str, Any]] = []
    state = start
    house_turn = False
    for stored, event in events:
        before = state
        state = evolve(state, event)
        metadata = stored.metadata
        command = public_command(metadata)
        if command is not None and metadata.get("command_version", stored.version) == stored.version:
            rows.append(_action_row(stored, command, before, state))
        if isinstance(event, HandOpened):
            house_turn = False
        elif isinstance(event, BankerTurnStarted) and event.seat is None:
            house_turn = True
        elif house_turn and isinstance(event, CardDealt) and event.banker and event.number == number:
            rows.append(_house_row(stored, "hit"))
        elif house_turn and isinstance(event, HandStood) and event.banker and event.seat is None:
            rows.append(_house_row(stored, "stand", event.reason))
        elif isinstance(event, HandSettled):
            house_turn = False
    return rows


def _action_row(
    stored: StoredEvent, command: Mapping[str, Any], before: TableState, after: TableState
) -> dict[str, Any]:
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
    return {
        "seq": stored.version,
        "at": stored.recorded_at,
        "seat": seat,
        "action": _ACTION_BY_COMMAND.get(kind, kind),
        "args": args,
    }


def _house_row(stored: StoredEvent, action: str, reason: str = "house_rule") -> dict[str, Any]:
    return {"seq": stored.version, "at": stored.recorded_at, "seat": None, "action": action, "args": {"reason": reason}}


# --- a hand's export -----------------------------------------------------------------------------------------------

EXPORT_FORMAT = "sevenhalf-hand-export/1"


def present_export(read: ExportRead, public_keys: Sequence[tuple[str, bytes]]) -> dict[str, Any]:
    """``GET /hands/{id}/export``: the history, the events around the hand as the caller may see them (each
    with ``hash``, ``prev_hash`` and, in form 2, ``hash_form`` and ``private_sha256``), the checkpoints before
    and after it and the signing keys (which a verifier must not take on the export's word alone)."""
    history = present_history(read.history)
    history.setdefault("seed_committed_at", read.seed_committed_at)
    viewer = read.history.viewer
    return {
        "format": EXPORT_FORMAT,
        "hand": history,
        "events": [present_event(s, e, viewer, read.table_state, read.chain_public_through) for s, e in read.events],
        "checkpoints": [
            {"version": c.version, "hash": c.hash, "signature": c.signature, "at": c.at, "key_id": c.key_id}
            for c in read.checkpoints
        ],
        "public_keys": [
            {"key_id": key_id, "public_key": base64.b64encode(raw).decode()} for key_id, raw in public_keys
        ],
        "game": history["game"],
    }
