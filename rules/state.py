"""The table state, folded from events by ``evolve``: immutable records (frozen, keyword-only ``msgspec.Struct``s,
compared by value like frozen dataclasses); an event makes a changed copy of the records it touches
(``replace``) and shares the rest. The forty-odd events of a hand copy its records about a hundred times, so
they are Structs, whose copy costs a fraction of a dataclass's or a named tuple's.

``TableState.version`` is the number of events folded so far. ``waiting_on`` and ``deadline_ms`` tell the
shell whom the table waits on and until when (schedule ``Timeout(expected_version=state.version)`` then).
"""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace as replace  # a copy of a record with some fields changed, the rest shared

from gamemath.enums import OVER, Category, HandStatus, Phase, SitOutReason, WaitKind
from rules.config import TableConfig
from rules.events import HandResult


class SeatState(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A seated player."""

    seat: int
    player_id: str
    username: str
    client_seed: str
    sitting_out: bool = False
    sit_out_reason: SitOutReason | None = None
    timeouts: int = 0
    leaving: bool = False
    #: the table version at which ``client_seed`` was set (by ``ClientSeedSet``, or by ``SeatTaken`` when he sat)
    client_seed_set_at: int = 0


class PunterHand(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One punter hand of the current hand (a punter who splits has several, by ``index``)."""

    seat: int
    hand_index: int
    player_id: str
    stake: int = 0
    cards: tuple[str, ...] = ()
    face_up: tuple[bool, ...] = ()
    status: HandStatus = HandStatus.WAITING
    shown: bool = False
    category: Category | None = None
    total_hp: int | None = None
    matta_hp: int | None = None
    punter_reserve: int = 0
    banker_reserve: int = 0
    result: HandResult | None = None


class BankerHand(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The banker's hand (``seat``/``player_id`` None for the house)."""

    seat: int | None
    player_id: str | None
    cards: tuple[str, ...] = ()
    face_up: tuple[bool, ...] = ()
    status: HandStatus = HandStatus.WAITING
    played: bool = False
    category: Category | None = None
    total_hp: int | None = None
    matta_hp: int | None = None


class Awaiting(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Whom the table waits on: ``seat`` (None: every punter owing a bet), ``hand``, ``kind``, deadline."""

    seat: int | None
    hand: int | None
    kind: WaitKind
    deadline_ms: int


class Pledge(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The server seed committed for hand ``number`` and not yet revealed (``sealed``: as ``SeedCommitted``)."""

    number: int
    commitment: str
    sealed: str


class HandState(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The current (or last) hand and its :class:`Phase`."""

    number: int
    phase: Phase
    banker: BankerHand
    seed_commitment: str
    server_seed: str
    client_seed: str
    stake: int | None
    entrants: tuple[int, ...]
    deck: tuple[str, ...]
    next_card: int = 0
    punters: tuple[PunterHand, ...] = ()
    split_seats: frozenset[int] = frozenset()
    pending: tuple[int, str] | None = None
    results: tuple[HandResult, ...] = ()
    payouts: tuple[tuple[str, int], ...] = ()
    next_banker_seat: int | None = None

    @property
    def in_play(self) -> bool:
        """True until the hand is settled or abandoned."""
        return self.phase not in OVER

    def hands_of(self, seat: int) -> tuple[PunterHand, ...]:
        """The hands of ``seat`` in index order."""
        return tuple(h for h in self.punters if h.seat == seat)

    def find(self, seat: int, index: int) -> PunterHand | None:
        """The hand (seat, index), if any."""
        for h in self.punters:
            if h.seat == seat and h.hand_index == index:
                return h
        return None


class EndedHand(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The last hand that ended, as it ended, with the names of its seats at that moment (a player may leave
    after it): what the table view's ``last_hand`` shows until the next hand ends."""

    hand: HandState
    usernames: tuple[tuple[int, str], ...] = ()


class TableState(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything the rules need about one table. ``initial_state()`` is the state before any event."""

    version: int = 0
    config: TableConfig | None = None
    seats: tuple[SeatState, ...] = ()
    banker_seat: int | None = None
    last_banker_seat: int | None = None
    banker_retiring: bool = False
    stake: int | None = None
    hands_opened: int = 0
    settled_through: int = 0
    idle: bool = False
    hand: HandState | None = None
    #: The last hand that ended (settled or abandoned), as it ended: kept when the next hand opens, so every
    #: viewer can still see how it ended (the table view's ``last_hand``).
    last_hand: EndedHand | None = None
    awaiting: Awaiting | None = None
    #: TEST-ONLY seam (see ``rules.testing``): no command or event can set it; a hand opened while it
    #: is set deals these cards first instead of the published shuffle, so it could never verify.
    rigged_stock: tuple[str, ...] | None = None
    #: The committed, unrevealed seeds by hand number: of the hand in play and of the hands to open after it.
    pledges: tuple[Pledge, ...] = ()

    @property
    def phase(self) -> Phase:
        """The API phase: waiting (no hand, or the last one abandoned) or the hand's phase."""
        hand = self.hand
        if hand is None or hand.phase == Phase.ABANDONED:
            return Phase.WAITING
        return hand.phase

    @property
    def waiting_on(self) -> Awaiting | None:
        """Whom the table waits on now (seat/hand/kind/deadline), or None."""
        return self.awaiting

    @property
    def deadline_ms(self) -> int | None:
        """When the current wait times out (epoch ms), or None."""
        return self.awaiting.deadline_ms if self.awaiting is not None else None

    @property
    def pledge(self) -> Pledge | None:
        """The earliest committed, unrevealed seed: of the hand in play, else of the next hand to open."""
        return self.pledges[0] if self.pledges else None

    def pledge_for(self, number: int) -> Pledge | None:
        """The committed, unrevealed seed of hand ``number``, if any."""
        for pledge in self.pledges:
            if pledge.number == number:
                return pledge
        return None

    @property
    def next_seed_commitment(self) -> str | None:
        """The commitment of the next hand to open, published ahead (v1.2: while the hand before it is played)."""
        pledge = self.pledge_for(self.hands_opened + 1)
        return pledge.commitment if pledge is not None else None

    @property
    def hand_in_play(self) -> bool:
        """True while a hand is between opening and settlement."""
        return self.hand is not None and self.hand.in_play

    def seat_of(self, player_id: str | None) -> SeatState | None:
        """The seat of ``player_id``, if seated."""
        for s in self.seats:
            if s.player_id == player_id:
                return s
        return None

    def seat_at(self, seat: int) -> SeatState | None:
        """The player at seat number ``seat``, if any."""
        for s in self.seats:
            if s.seat == seat:
                return s
        return None

    def play_order(self) -> tuple[int, ...]:
        """Occupied seats in play order: from the banker's right (next seat number, wrapping); house: ascending."""
        seats = [s.seat for s in self.seats]
        b = self.banker_seat
        if b is None:
            return tuple(seats)
        after = [n for n in seats if n > b]
        before = [n for n in seats if n < b]
        return tuple(after + before)


def initial_state() -> TableState:
    """The state of a table stream before its first event."""
    return TableState()
