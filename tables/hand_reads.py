"""Reads of one hand for the API: who may read it (its participants, and staff), its history, its verification
and its export.

As for the tables' reads (``tables.selectors``), nothing here decides what a viewer may see: the rules core's
``hand_history`` does, with the :class:`~rules.Viewer` chosen here: a participant is ``Viewer.player`` (his own
cards), staff ``Viewer.auditor``. The hand's events come from ``tables.hand_events``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

from ledger.selectors import hand_ledger
from rules import Event, HandOpened, NotFound, TableState, Viewer, WrongPhase, evolve
from tables import hand_events, loader, verify
from tables.errors import Forbidden
from tables.event_queries import seed_commitments
from tables.models import Checkpoint, Hand, HandParticipant
from tables.store import StoredEvent, load_stream


@dataclass(frozen=True, slots=True)
class HandRead:
    """A hand with its events (decoded), the state before them, the current state and the viewer."""

    hand: Hand
    viewer: Viewer
    start_state: TableState
    events: list[tuple[StoredEvent, Event]]
    state: TableState
    ledger: list[dict[str, Any]]
    #: the seq of the event that published the hand's commitment (None for a hand of the old form)
    seed_committed_at: int | None = None


def hand_access(*, hand_id: int, user: AbstractBaseUser, participants_only: bool = False) -> tuple[Hand, Viewer]:
    """The hand and the viewer ``user`` is for it: a participant (player) or, unless ``participants_only``,
    staff (auditor). Raises ``not_found`` and ``forbidden``."""
    hand = Hand.objects.filter(pk=hand_id).defer("start_state").first()
    if hand is None:
        raise NotFound(f"there is no hand {hand_id}", {"hand": hand_id})
    if HandParticipant.objects.filter(hand_id=hand.pk, user_id=user.pk).exists():
        return hand, Viewer.player(str(user.pk))
    if getattr(user, "is_staff", False) and not participants_only:
        return hand, Viewer.auditor()
    who = "its participants" if participants_only else "its participants and staff"
    raise Forbidden(f"hand {hand_id} is open to {who} only", {"hand": hand_id})


def hand_read(*, hand_id: int, user: AbstractBaseUser) -> HandRead:
    """A hand's events and ledger for its history. Raises ``not_found`` and ``forbidden``."""
    hand, viewer = hand_access(hand_id=hand_id, user=user)
    hand = Hand.objects.get(pk=hand.pk)  # with the cached starting state
    loaded = hand_events.load_hand(hand)
    decoded = [(stored, loader.decode(stored)) for stored in loaded.events]
    state = loaded.start_state
    for _, event in decoded:
        state = evolve(state, event)
    ledger = hand_ledger(table_id=hand.table_id, hand_id=hand.pk)
    published = [v for v, _ in seed_commitments(hand.table_id, number=hand.number) if v < hand.opened_version]
    committed_at = published[-1] if published else None
    return HandRead(hand, viewer, loaded.start_state, decoded, state, ledger, committed_at)


def hand_verification(*, hand_id: int, user: AbstractBaseUser) -> dict[str, str]:
    """Every check of :func:`tables.verify.verify_hand` (not recorded: a GET changes nothing).
    Raises ``not_found``, ``forbidden`` and, for a hand in play, ``wrong_phase``."""
    hand, _ = hand_access(hand_id=hand_id, user=user)
    return verify.verify_hand(Hand.objects.get(pk=hand.pk), record=False).as_body()


# --- a hand's export -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportRead:
    """What ``GET /hands/{id}/export`` shows: the hand's history read, the table's events around it (from the one
    before the hand's commitment was published, or the checkpoint before the hand if earlier, through the first
    checkpoint after its end), the table now (the events are seen against it), those checkpoints and the table's
    latest, and how far chain hashes are shown."""

    history: HandRead
    table_state: TableState
    events: list[tuple[StoredEvent, Event]]
    checkpoints: list[Checkpoint]
    chain_public_through: int
    seed_committed_at: int | None


def hand_export_read(*, hand_id: int, user: AbstractBaseUser) -> ExportRead:
    """A settled or abandoned hand with everything needed to check it offline (API.md "Hand export").
    Raises ``not_found``, ``forbidden`` and, for a hand in play, ``wrong_phase``."""
    read = hand_read(hand_id=hand_id, user=user)
    hand = read.hand
    if hand.status == "in_play" or hand.closed_version is None:
        raise WrongPhase(f"hand {hand_id} is in play: only an ended hand can be exported", {"hand": hand_id})
    commitment = next((e.seed_commitment for _, e in read.events if isinstance(e, HandOpened)), "")
    every = seed_commitments(hand.table_id, number=hand.number)
    published = [v for v, c in every if c == commitment]
    committed_at = published[0] if published else None
    # from the first commitment of the hand's number: a verifier sees it if there was ever more than one
    first = max(1, min([v for v, _ in every] + [committed_at or hand.opened_version]) - 1)
    checkpoints = Checkpoint.objects.filter(table_id=hand.table_id).order_by("version")
    covering = checkpoints.filter(version__gte=hand.closed_version).first()
    before = checkpoints.filter(version__lt=hand.opened_version).last()
    latest = checkpoints.last()
    last = covering.version if covering is not None else hand.closed_version
    if before is not None and before.signed_facts is not None:
        # v1.3: from the checkpoint before the hand, whose signed facts (the table card, the seats and their client
        # seeds) the verifier folds the events after it onto
        first = min(first, before.version)
    stored = load_stream(hand.table_id, after_version=first - 1, upto_version=last)
    table_state = loader.load_table(hand.table_id).state
    return ExportRead(
        history=read,
        table_state=table_state,
        events=[(s, loader.decode(s)) for s in stored],
        # the table's latest too: its signed hash forms pin the form of every event of the export (v1.3)
        checkpoints=list({c.version: c for c in (before, covering, latest) if c is not None}.values()),
        chain_public_through=last,
        seed_committed_at=committed_at,
    )
