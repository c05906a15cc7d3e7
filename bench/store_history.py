"""A long history for bench/store.py, written fast: thousands of settled hands of random play on one table's stream.

Each command is decided by the pure core with the context the pipeline would record (tables/pipeline.py) and its
events appended with the hash chain, 500 hands per statement, the snapshot saved with each batch; no ledger
postings and no per-hand read models (the load the bench measures reads only the snapshot and the stream). At the
end, the read model of the hand in play, so the service can go on from there.

Imports the game app late: bench/store.py sets Django up first.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from gamemath.chainhash import HASH_FORM
from rules import (
    Context,
    Event,
    HandOpened,
    HandSettled,
    Hit,
    PlaceBet,
    Stand,
    TableState,
    command_to_json,
    context_to_json,
    evaluate,
    handle,
)

Move = PlaceBet | Hit | Stand  # what random play sends
Opened = tuple[TableState, int, HandOpened]  # the state before the hand opened, its opening version, the event


def write_history(table_id: int, users: list[Any], hands: int) -> None:
    """Write ``hands`` settled hands of random play to the table's stream (see the module's text)."""
    from tables import loader

    loaded = loader.load_table(table_id)
    state = loaded.state
    writer = _StreamWriter(table_id, loaded.state, loaded.last_hash)
    rng = random.Random(7)
    wallets = {str(u.pk): 10**12 for u in users}
    settled = n = 0
    last_open: Opened | None = None
    while settled < hands:
        n += 1
        context = _context(table_id, state, wallets, n)
        command = _next_command(state, rng)
        before = state
        events, state = handle(command, state, context)
        writer.add(command, context, before, events)
        last_open = _opened(before, events) or last_open
        if any(isinstance(e, HandSettled) for e in events):
            settled += 1
            if settled % 500 == 0 or settled == hands:
                writer.flush(state)
                print(f"  ... {settled} hands written", end="\r", flush=True)
    print()
    assert last_open is not None
    _open_hand_read_model(table_id, state, last_open)


class _StreamWriter:
    """The table's stream as written so far (its last state and hash) and the encoded events waiting for the next
    batch."""

    def __init__(self, table_id: int, written: TableState, last_hash: str) -> None:
        self.table_id = table_id
        self.written = written
        self.last_hash = last_hash
        self.pending: list[Any] = []

    def add(self, command: Move, context: Context, before: TableState, events: list[Event]) -> None:
        """Encode a command's events as the pipeline stores them: the first carries the command and its context."""
        from tables import loader

        meta = {"actor": command.player_id, "command_version": before.version + 1, "hash_form": HASH_FORM}
        first = {**meta, "command": command_to_json(command), "context": context_to_json(context)}
        self.pending.extend(
            loader.encode(e, first if i == 0 else meta, table_id=self.table_id) for i, e in enumerate(events)
        )

    def flush(self, state: TableState) -> None:
        """Append the waiting events in one transaction and save ``state`` (the state after them) as the snapshot."""
        from django.db import transaction
        from django.utils import timezone

        from tables import snapshots
        from tables.store import append

        with transaction.atomic():
            stored = append(
                stream_id=self.table_id,
                expected_version=self.written.version,
                prev_hash=self.last_hash,
                events=self.pending,
                recorded_at=timezone.now(),
            )
            self.last_hash, self.written = stored[-1].hash, state
            snapshots.save_snapshot(self.table_id, state, self.last_hash)
        self.pending.clear()


def _context(table_id: int, state: TableState, wallets: dict[str, int], n: int) -> Context:
    """The context of the ``n``-th command: its clock, the wallets, entropy, and the seeds as the pipeline unseals
    and draws them (tables/pipeline.py)."""
    from tables import fairness

    return Context(
        now_ms=n,
        wallets=wallets,
        entropy=hashlib.sha256(str(n).encode()).hexdigest(),
        seeds=fairness.unseal_all(table_id, state.pledges),
        next_seeds=fairness.draw_next_seeds(table_id, state),
    )


def _next_command(state: TableState, rng: random.Random) -> Move:
    """The move of whoever the table waits on: a random bet, else hit below a random total, else stand."""
    awaiting, hand = state.awaiting, state.hand
    assert awaiting is not None and hand is not None and state.config is not None, (awaiting, hand)
    if awaiting.kind == "bets":
        punter = next(h for h in hand.punters if h.stake == 0)
        return PlaceBet(player_id=punter.player_id, amount=rng.randint(10, 100))
    pid = state.seat_at(awaiting.seat).player_id  # type: ignore[arg-type,union-attr]
    h = hand.find(awaiting.seat, awaiting.hand) if awaiting.kind != "banker" else None  # type: ignore[arg-type]
    cards = hand.banker.cards if h is None else h.cards
    total = evaluate(cards, state.config.rules).total_hp
    return Hit(player_id=pid) if total < rng.randint(7, 13) else Stand(player_id=pid)


def _opened(before: TableState, events: list[Event]) -> Opened | None:
    """The hand a command's events opened, if any: the state before it, its opening version, the event."""
    found = None
    for offset, event in enumerate(events, start=1):
        if isinstance(event, HandOpened):
            found = (before, before.version + offset, event)
    return found


def _open_hand_read_model(table_id: int, state: TableState, opened: Opened) -> None:
    """The read model of the hand now in play and the lobby's row, as the projections would have written them."""
    from django.db import transaction
    from django.utils import timezone

    from tables import projections

    opened_before, opened_version, event = opened
    sink = projections.DatabaseSink()
    with transaction.atomic():
        hand_id = sink.open_hand(
            table_id,
            event.number,
            {
                "preset": "classic",
                "opened_version": opened_version,
                "opened_at": timezone.now(),
                "seed_commitment": event.seed_commitment,
                "banker_username": "",
                "house_banked": False,
                "start_version": opened_before.version,
                "start_state": opened_before,
            },
        )
        sink.update_lobby(table_id, projections.lobby_row(state, hand_id))
