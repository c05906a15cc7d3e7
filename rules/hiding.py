"""What a viewer may see: the one place where cards are hidden (DESIGN.md principle 7).

A card is visible to a viewer if it lies face up, if its hand was shown (bust, 15 hp, pair of sevens, the
showdown), if its hand is settled (then everything dealt is public, and the server seed is revealed), or
if the viewer owns it (a player sees his own face-down cards; a player banker his own). Nobody else sees a
face-down card, the banker included, nor any undealt card. An auditor sees what a spectator sees until
the hand is settled, and the whole deck order after. The views (``rules.view``), the events feed
(:func:`view_event`) and the descriptions for people (``rules.describe``) all hide through this module.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from gamemath.enums import ViewerKind
from gamemath.shuffle import shuffle_deck
from rules.codec import event_to_json
from rules.events import CardDealt, Event, HandOpened, SeedCommitted
from rules.state import HandState, TableState


class Viewer(Struct, frozen=True):
    """Who is looking: a player (with ``player_id``), a spectator or an auditor (``ViewerKind``)."""

    kind: ViewerKind
    player_id: str | None = None

    @staticmethod
    def player(player_id: str) -> Viewer:
        """A player (seated or not) looking at the table."""
        return Viewer(ViewerKind.PLAYER, player_id)

    @staticmethod
    def spectator() -> Viewer:
        """Anyone signed in who is not playing."""
        return Viewer(ViewerKind.SPECTATOR)

    @staticmethod
    def auditor() -> Viewer:
        """An operator checking a settled hand: sees everything once the hand is settled."""
        return Viewer(ViewerKind.AUDITOR)


def card_visible(viewer: Viewer, owner_id: str | None, face_up: bool, shown: bool, public: bool) -> bool:
    """The single hiding rule: may ``viewer`` see a card held by ``owner_id``? (``public``: its hand is over.)"""
    if face_up or shown or public:
        return True
    return viewer.kind == ViewerKind.PLAYER and owner_id is not None and viewer.player_id == owner_id


def card_hidden(event: CardDealt, viewer: Viewer, state: TableState) -> bool:
    """``viewer`` may not see the card ``event`` dealt (``state``: any state at or after it): a face-down card
    of someone else stays hidden until the event's hand is settled (``state.settled_through >= number``)."""
    settled = state.settled_through >= event.number
    return not card_visible(viewer, event.player_id, event.face_up, False, settled)


def seed_hidden(event: HandOpened, state: TableState) -> bool:
    """The server seed on ``event`` stays hidden until its hand is settled."""
    return state.settled_through < event.number


def view_event(event: Event, viewer: Viewer, state: TableState) -> dict[str, Any]:
    """One event as ``viewer`` may see it in the events feed (the same hiding rule as :func:`view`).

    ``state`` is any state at or after the event: see :func:`card_hidden` and :func:`seed_hidden`.
    """
    data = event_to_json(event)
    if isinstance(event, CardDealt):
        if card_hidden(event, viewer, state):
            data["card"] = None
            data["deck_index"] = None
    elif isinstance(event, HandOpened) and seed_hidden(event, state):
        data["server_seed"] = None
    elif isinstance(event, SeedCommitted):
        data["sealed_seed"] = None  # nobody reads the sealed seed; the seed itself is revealed when its hand ends
    return data


def settled_deck(hand: HandState) -> list[str] | None:
    """The whole deck of an ended hand in dealing order (None if its seed was never revealed, or if no card was
    ever dealt: its client seed was never fixed, so no deck was ever shuffled; ``no_deck_reason`` says which)."""
    if hand.deck:
        return list(hand.deck)
    if no_deck_reason(hand) is not None:
        return None
    return shuffle_deck(bytes.fromhex(hand.server_seed), hand.client_seed, hand.number)


def no_deck_reason(hand: HandState) -> str | None:
    """Why an ended hand shows no deck (None: it shows one): its seed was never revealed, or no card was ever dealt
    (the client seed is fixed by the first card, so no deck was ever shuffled and none is published)."""
    if hand.deck:
        return None
    if not hand.server_seed:
        return "the hand's server seed was never revealed (it could not be opened), so its deck cannot be shown"
    if not hand.client_seed:
        return "no card was dealt: the hand's client seed was never fixed, so no deck was shuffled"
    return None
