"""The API's answers about one hand (spec/API.md): its history (``GET /hands/{id}``) and its export
(``GET /hands/{id}/export``), built from the core's ``hand_history`` as the published records of
:mod:`tables.api.records`.

Like :mod:`tables.api.presenters`, these functions rename and drop fields; they never decide what a viewer may
see: every card, seed and deck comes out of ``hand_history`` or ``view_event`` called with the read's viewer. The
one thing added from outside the projections is a hand's ``actions``, taken from the commands recorded in event
metadata without their ``ctx`` (its entropy is the server seed of any hand the command opens, its wallets are
other players' balances), beside the house banker's own steps, which the core's history lists.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from msgspec import UNSET, structs

from rules import ACTION_COMMANDS, Event, HandHistory, TableState, evolve, hand_history
from rules.view_records import HouseAction, ParticipantView, SeatRef
from tables.api import records as api
from tables.api.presenters import present_event, present_results
from tables.fairness import game_of
from tables.hand_reads import ExportRead, HandRead
from tables.public_metadata import public_command
from tables.store import StoredEvent

_ACTION_BY_COMMAND = {cls.__name__: name for name, cls in ACTION_COMMANDS.items()} | {
    "CreateTable": "create_table",
    "SetClientSeed": "set_client_seed",
    "Timeout": "timeout",
}
_COMMAND_SHOWN_ELSEWHERE = ("type", "player_id", "username")  # the row's seat and action say them


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
        results=present_results(facts.results or ()),
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
            api.Checkpoint(
                version=c.version,
                hash=c.hash,
                signature=c.signature,
                at=c.at,
                key_id=c.key_id,
                hash_forms=c.hash_forms,
                facts_sha256=c.facts_sha256,
                facts=c.signed_facts if c.signed_facts is not None else UNSET,
            )
            for c in read.checkpoints
        ),
        public_keys=tuple(
            api.ExportedKey(key_id=key_id, public_key=base64.b64encode(raw).decode()) for key_id, raw in public_keys
        ),
        game=history.game,
    )
