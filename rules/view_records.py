"""The core's answers to "what does this viewer see": typed records, built once by :mod:`.view` and
:mod:`.history` and presented as they are by every surface (the API, the admin, the live stream, ``replay_hand``,
the verifier and the export). DESIGN.md principle 15: two surfaces that show the same fact read it from the same
record; a renamed field fails loudly instead of showing ``None``.

Field names are those of API.md where the API shows the fact; ``msgspec.to_builtins`` gives the JSON form.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from gamemath.enums import Outcome, Phase, WaitKind


class Record(Struct, frozen=True, kw_only=True):
    """Base of every view record: frozen, keyword-only."""


class CardView(Record, frozen=True, kw_only=True):
    """A card as the viewer sees it: ``code`` None when he may not see it; ``face_up`` as it lies now (every card
    of a shown or settled hand lies face up)."""

    code: Annotated[str | None, Meta(description="Such as 12O; null when you may not see it.")]
    face_up: bool


class HandOutcome(Record, frozen=True, kw_only=True):
    """How a settled punter hand ended."""

    outcome: Outcome
    tie: bool
    multiplier: int
    net: int


class HandView(Record, frozen=True, kw_only=True):
    """One hand of a participant (the banker's is index 0, ``bet`` None). Totals are given only where the
    viewer sees every card of the hand."""

    index: int
    bet: Annotated[int | None, Meta(description="null for the banker's hand.")]
    cards: tuple[CardView, ...]
    total: Annotated[str | None, Meta(description='Such as "7.5"; only when you can see every card.')]
    total_half_points: int | None
    category: Annotated[str | None, Meta(description="pair7, reale, seven_half, points or bust.")]
    matta_value: Annotated[int | None, Meta(description="The wild card's value in half-points.")]
    status: Annotated[str, Meta(description="waiting, playing, stood, bust, closed or settled.")]
    result: HandOutcome | None = None


class ParticipantView(Record, frozen=True, kw_only=True):
    """The banker (``seat``, ``player_id`` and ``username`` None for the house) or a punter, with his hands."""

    seat: int | None
    player_id: str | None
    username: str | None
    role: str
    hands: tuple[HandView, ...]


class TurnView(Record, frozen=True, kw_only=True):
    """Whom the table waits on (``seat`` None: every punter owing a bet) and until when (epoch ms)."""

    seat: int | None
    hand: int | None
    kind: WaitKind
    deadline: int


class PendingCard(Record, frozen=True, kw_only=True):
    """A Hungarian card drawn and waiting for ``seat`` to assign it (it lies face up)."""

    seat: int
    code: str


class SeatRef(Record, frozen=True, kw_only=True):
    """A seat and who sits (sat) in it (``seat`` None: the house, or nobody)."""

    seat: int | None
    username: str | None


class ResultView(Record, frozen=True, kw_only=True):
    """One settled punter hand as every viewer sees it (the seat says who): the API's result row."""

    seat: int
    hand: int
    bet: int
    category: Annotated[str, Meta(description="pair7, reale, seven_half, points or bust.")]
    total_half_points: int
    matta_value: Annotated[int | None, Meta(description="The wild card's value in half-points.")]
    outcome: Outcome
    tie: bool
    multiplier: int
    net: Annotated[int, Meta(description="The punter's net chips on this hand; the banker's is minus the sum.")]


class ResultRow(ResultView, frozen=True, kw_only=True):
    """One settled punter hand: the one shape of a result row, in the table view, a history and the admin, with
    the punter's player id (for the surfaces that name him by it; :meth:`shown` leaves it out)."""

    player_id: str

    def shown(self) -> ResultView:
        """The row without the player id, as the API shows it."""
        return ResultView(**{name: getattr(self, name) for name in ResultView.__struct_fields__})


class HandFacts(Record, frozen=True, kw_only=True):
    """A hand as a viewer sees it at one moment: its seeds, cards, stock, totals and results.

    ``deck`` is the whole deck in dealing order once the hand is over (for the auditor; None otherwise, and for
    an ended hand whose deck cannot be shown, with ``deck_reason`` saying why). ``cards_dealt`` and
    ``stock_left`` always add up to the 40 cards of the deck. ``results``, ``banker_net`` and ``next_banker``
    are set once the hand is settled.
    """

    number: int
    nonce: int
    seed_commitment: str
    client_seed: str | None
    server_seed: str | None
    stake: int | None
    phase: Phase
    turn: TurnView | None
    participants: tuple[ParticipantView, ...]
    pending_card: PendingCard | None
    cards_dealt: int
    stock_left: int
    deck: tuple[str, ...] | None
    deck_reason: str | None
    results: tuple[ResultRow, ...] | None
    payouts: dict[str, int] | None
    banker_net: int | None
    next_banker: SeatRef | None

    @property
    def banker(self) -> ParticipantView:
        """The banker's row (always the first participant)."""
        return self.participants[0]


class LastHandBanker(Record, frozen=True, kw_only=True):
    """The banker of the last hand that ended, with his cards and total."""

    seat: Annotated[int | None, Meta(description="null: the house.")]
    username: str | None
    cards: tuple[str, ...]
    total: str | None
    total_half_points: int | None
    category: str | None


class LastHandRow(Record, frozen=True, kw_only=True):
    """One punter hand of the last hand that ended."""

    seat: int
    username: str | None
    hand: int
    bet: int
    cards: tuple[str, ...]
    total: str
    total_half_points: int
    category: str
    outcome: Outcome
    net: int


class LastHand(Record, frozen=True, kw_only=True):
    """How the last hand that ended ended (API.md v1.2 ``last_hand``), the same for every viewer."""

    number: int
    status: Annotated[str, Meta(description="settled or abandoned.")]
    banker: LastHandBanker
    results: tuple[LastHandRow, ...]
    next_banker: SeatRef | None


class SeatView(Record, frozen=True, kw_only=True):
    """A seat of the table."""

    seat: int
    player_id: str
    username: str
    is_banker: bool
    sitting_out: bool
    leaving: bool
    timeouts: int


class You(Record, frozen=True, kw_only=True):
    """What a player viewer may do now."""

    player_id: str
    seat: int | None
    legal_actions: tuple[str, ...]
    legal_hands: dict[str, tuple[int, ...]]


class TableSettings(Record, frozen=True, kw_only=True):
    """The nine settings of a table as API.md names them (``fixed_stake``: the stake S in force)."""

    preset: str
    rules: dict[str, object]
    min_bet: int
    max_bet: int
    bank: str
    max_seats: int
    fixed_stake: int | None
    turn_timeout_s: int
    betting_timeout_s: int


class TableView(Record, frozen=True, kw_only=True):
    """The table as a viewer may see it (API.md table view; the shell adds id, name and balance).
    ``settings`` is the table's configuration (None before ``TableCreated``)."""

    settings: TableSettings | None
    version: int
    phase: Phase
    banker_seat: int | None
    seats: tuple[SeatView, ...]
    next_seed_commitment: str | None
    hand: HandFacts | None
    last_hand: LastHand | None
    you: You | None


class DealRow(Record, frozen=True, kw_only=True):
    """A card as it left the deck: the stream ``seq`` of its event, the hand it ended in (a Hungarian card: the
    hand it was assigned to); ``card`` None where the viewer may not see it."""

    seq: int
    to_seat: int | None
    banker: bool
    hand: int
    card: str | None
    face_up: bool


class ClientSeedRow(Record, frozen=True, kw_only=True):
    """A participant's client seed as it went into the hand's, and the table version at which he set it."""

    seat: int
    client_seed: str
    client_seed_set_at: int


class HouseAction(Record, frozen=True, kw_only=True):
    """A step the house banker took by its rule in its own turn (a draw is ``hit``, its stand ``stand``), at the
    stream ``seq`` of the event that records it: an action row of its own, credited to the house."""

    seq: int
    action: str
    reason: str


class HandHistory(Record, frozen=True, kw_only=True):
    """A hand's history (API.md ``GET /hands/{id}``) as a viewer may see it: the hand as it ended (or stands),
    the rules it was played under, each participant's client seed, every card in dealing order and the house
    banker's own steps (the shell adds the recorded commands beside them)."""

    hand: HandFacts
    rules: dict[str, object]
    client_seeds: tuple[ClientSeedRow, ...]
    deals: tuple[DealRow, ...]
    house_actions: tuple[HouseAction, ...]

    def client_seed_of(self, seat: int | None) -> ClientSeedRow | None:
        """The client seed row of ``seat`` (None for the house, or a hand whose client seed was never fixed)."""
        for row in self.client_seeds:
            if row.seat == seat:
                return row
        return None
