"""Events: the facts of a table (past-tense names, frozen keyword-only records, stable type names = class names).

Each event is a ``msgspec.Struct`` declared ``frozen=True, kw_only=True``: immutable, built only with named
fields, compared by type and value, like a frozen dataclass; a command emits several and a hand about forty,
and a Struct is built in a fraction of a frozen dataclass's time.

Whatever ``decide`` computed travels on the event, so ``evolve`` applies facts without rules. Events that
move chips (stakes, settlement) carry everything the ledger needs: player id, seat, hand, the amount, the
punter's and the banker's reserve, and the banker's id (None for the house).

Longer than the core's other modules on purpose: it is the catalogue of every fact a table's stream may hold
(the stored schema), one small class per fact, read as one list.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct, field

from gamemath.enums import (
    AbandonReason,
    BankReason,
    Category,
    LeaveReason,
    Outcome,
    Phase,
    SitInReason,
    SitOutReason,
    SkipReason,
    StandReason,
    WaitKind,
)
from rules.config import TableConfig

HOUSE = "house"


class Event(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag=True):
    """Base of every event: its JSON names its type (the class name) in ``type``."""


class TableCreated(Event, frozen=True, kw_only=True):
    """The table exists with this validated configuration (the first event of every stream)."""

    config: TableConfig


class SeatTaken(Event, frozen=True, kw_only=True):
    """A player sat down."""

    seat: int
    player_id: str
    username: str
    client_seed: str


class LeaveRequested(Event, frozen=True, kw_only=True):
    """A player in the current hand asked to leave: he leaves after it."""

    seat: int
    player_id: str


class SeatLeft(Event, frozen=True, kw_only=True):
    """A player left the table (``reason``: ``request`` or ``after_hand``)."""

    seat: int
    player_id: str
    reason: LeaveReason


class SatOut(Event, frozen=True, kw_only=True):
    """A player skips hands from the next one on (``reason``: ``request`` or ``timeout``)."""

    seat: int
    player_id: str
    reason: SitOutReason


class SatIn(Event, frozen=True, kw_only=True):
    """A player takes part again (``reason``: ``request``, ``ready`` or ``acted``); his timeout streak is reset."""

    seat: int
    player_id: str
    reason: SitInReason


class ClientSeedSet(Event, frozen=True, kw_only=True):
    """A player's client seed for hands opened from now on."""

    seat: int
    player_id: str
    client_seed: str


class PlayerTimedOut(Event, frozen=True, kw_only=True):
    """The table waited in vain on a player; ``streak`` counts his timeouts in a row."""

    seat: int
    player_id: str
    streak: int
    waiting_for: WaitKind


class TimeoutStreakReset(Event, frozen=True, kw_only=True):
    """A player acted again: his count of timeouts in a row is back to zero."""

    seat: int
    player_id: str


class FirstBankerDrawn(Event, frozen=True, kw_only=True):
    """The first banker was drawn among ``candidates`` (seats) by HMAC over the command's entropy."""

    candidates: tuple[int, ...]
    seat: int
    player_id: str


class BankPassed(Event, frozen=True, kw_only=True):
    """The bank changed hands between hands; ``to_seat`` None leaves the table without a banker."""

    from_seat: int | None
    to_seat: int | None
    player_id: str | None
    reason: BankReason


class BankRetirementRequested(Event, frozen=True, kw_only=True):
    """The banker retires after the current hand."""

    seat: int
    player_id: str


class StakeSet(Event, frozen=True, kw_only=True):
    """The player banker set the fixed stake S for hands opened from now on."""

    seat: int
    player_id: str
    amount: int


class SeedCommitted(Event, frozen=True, kw_only=True):
    """The server seed of hand ``number`` is drawn: ``seed_commitment`` = sha256 of it (published at once),
    ``sealed_seed`` its encrypted form (no viewer ever sees it; the seed is revealed when the hand ends).

    Emitted when the table is created (hand 1) and when hand N ends (hand N+1), so every hand's commitment
    is public before its client seed is fixed (at its first card)."""

    number: int
    seed_commitment: str
    sealed_seed: str


class ClientSeedFixed(Event, frozen=True, kw_only=True):
    """The hand's client seed, fixed as its first card is dealt: the client seeds of its participants at that
    moment, joined with ``:`` in seat order."""

    number: int
    client_seed: str


class HandOpened(Event, frozen=True, kw_only=True):
    """A hand opened: nonce ``number`` and the seed commitment published before (``SeedCommitted``).

    Two forms: hands opened before seeds were committed ahead carry the ``client_seed`` and (hidden until
    settlement) the ``server_seed`` themselves; hands committed ahead have both empty here: their client seed
    comes with ``ClientSeedFixed`` and their server seed is revealed by ``HandSettled``/``HandAbandoned``.

    ``entrants`` are the seats, in play order, that may bet (``before_deal``) or are dealt in.
    ``stake`` is S under ``bank_fixed``. ``phase`` is ``betting`` or ``dealing``.
    """

    number: int
    banker_seat: int | None
    banker_id: str | None
    seed_commitment: str
    server_seed: str
    client_seed: str
    stake: int | None
    entrants: tuple[int, ...]
    phase: Phase


class ActionAwaited(Event, frozen=True, kw_only=True):
    """The table now waits on ``seat`` (None: every punter who owes a bet) for ``kind`` until ``deadline_ms``.

    ``kind``: ``bets`` (a betting window), ``bet`` (a bet owed at the start of a turn), ``play`` (a punter's
    decision on ``hand``), ``assign`` (a Hungarian card to give to a hand) or ``banker`` (a player banker).
    """

    seat: int | None
    hand: int | None
    kind: WaitKind
    deadline_ms: int


class BetPlaced(Event, frozen=True, kw_only=True):
    """A stake was placed (``by_timeout``: the minimum bet for a player who did not act)."""

    seat: int
    player_id: str
    hand: int
    amount: int
    stake: int
    punter_reserve: int
    banker_reserve: int
    banker_id: str | None
    by_timeout: bool = False


class PunterSkipped(Event, frozen=True, kw_only=True):
    """A punter takes no part in this hand (``reason``: timeout, sat_out, left, insufficient_funds,
    bank_cannot_cover); a hand already dealt to him is void (no stake, no settlement)."""

    seat: int
    player_id: str
    reason: SkipReason


class BettingClosed(Event, frozen=True, kw_only=True):
    """Every stake of the betting window is in: the deal (or play) follows."""

    number: int


class CardDealt(Event, frozen=True, kw_only=True):
    """The card at ``deck_index`` left the stock to ``seat``'s hand ``hand`` (None: a Hungarian card to assign).

    ``banker`` marks the banker's hand (``seat`` None for the house).
    """

    number: int
    seat: int | None
    player_id: str | None
    hand: int | None
    banker: bool
    card: str
    face_up: bool
    deck_index: int


class CardTurnedUp(Event, frozen=True, kw_only=True):
    """A face-down card was turned face up for everybody."""

    seat: int | None
    hand: int
    banker: bool
    card: str


class CardAssigned(Event, frozen=True, kw_only=True):
    """Hungarian: the drawn card went to open hand ``hand``."""

    seat: int
    hand: int
    card: str


class StakeRaised(Event, frozen=True, kw_only=True):
    """A punter added ``amount`` to a live hand's stake, now ``stake``."""

    seat: int
    player_id: str
    hand: int
    amount: int
    stake: int
    punter_reserve: int
    banker_reserve: int
    banker_id: str | None


class HandSplit(Event, frozen=True, kw_only=True):
    """A picture started hand ``new_hand`` with stake ``amount`` (``from_hand`` None: the Hungarian drawn card).

    ``open_now``: the new hand is played at once (Hungarian) rather than after its elders (Spanish).
    """

    seat: int
    player_id: str
    from_hand: int | None
    new_hand: int
    card: str
    amount: int
    punter_reserve: int
    banker_reserve: int
    banker_id: str | None
    open_now: bool


class HandStood(Event, frozen=True, kw_only=True):
    """A hand stands (``reason``: action, timeout, stock_exhausted, house_rule)."""

    seat: int | None
    hand: int
    banker: bool
    reason: StandReason


class HandBusted(Event, frozen=True, kw_only=True):
    """A hand went over 7½: shown at once (``cards``); a punter's stake is lost whatever the banker does."""

    seat: int | None
    hand: int
    banker: bool
    total_half_points: int
    matta_value: int | None
    cards: tuple[str, ...] = ()


class HandMadeSevenHalf(Event, frozen=True, kw_only=True):
    """A hand reached 15 hp (``category`` seven_half or reale): shown at once (``cards``), its turn ends."""

    seat: int | None
    hand: int
    banker: bool
    category: Category
    total_half_points: int
    matta_value: int | None
    cards: tuple[str, ...] = ()


class HandMadePairOfSevens(Event, frozen=True, kw_only=True):
    """Two natural sevens: shown at once; a punter's hand is settled at once, a banker's turn ends."""

    seat: int | None
    hand: int
    banker: bool
    cards: tuple[str, ...] = ()


class BankerTurnStarted(Event, frozen=True, kw_only=True):
    """The banker's turn: his card is turned up next (``seat`` None for the house)."""

    seat: int | None


class BankerTurnSkipped(Event, frozen=True, kw_only=True):
    """No punter hand was left unsettled: the banker does not play and his card is not shown."""

    seat: int | None


class HandResult(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The settlement of one punter hand (one row of the hand history's ``results``)."""

    seat: int
    player_id: str
    hand: int
    bet: int
    category: Category
    total_half_points: int
    matta_value: int | None
    outcome: Outcome
    tie: bool
    multiplier: int
    net: int


class HandSettled(Event, frozen=True, kw_only=True):
    """Showdown and settlement: one result per punter hand, escrow ``payouts`` per party (player ids and
    ``"house"``; they sum to what was reserved during the hand), the banker's net (= minus the punters'),
    the next banker and the revealed server seed."""

    number: int
    results: tuple[HandResult, ...]
    payouts: Mapping[str, int]
    banker_seat: int | None
    banker_id: str | None
    banker_net: int
    banker_category: Category | None
    banker_total_half_points: int | None
    banker_matta_value: int | None
    next_banker_seat: int | None
    next_banker_id: str | None
    bank_reason: BankReason
    server_seed: str = ""


class HandAbandoned(Event, frozen=True, kw_only=True):
    """A hand closed without a settlement, its seed revealed: ``no_stakes`` (nobody staked when the betting
    window closed) or ``seed_unavailable`` (its sealed seed could not be opened, e.g. a lost key: nothing is
    revealed and ``payouts`` returns every reserve taken in the hand, as ``HandSettled.payouts`` does)."""

    number: int
    reason: AbandonReason
    server_seed: str
    payouts: Mapping[str, int] = field(default_factory=dict)


EVENT_TYPES: tuple[type[Event], ...] = (
    TableCreated,
    SeatTaken,
    LeaveRequested,
    SeatLeft,
    SatOut,
    SatIn,
    ClientSeedSet,
    PlayerTimedOut,
    TimeoutStreakReset,
    FirstBankerDrawn,
    BankPassed,
    BankRetirementRequested,
    StakeSet,
    SeedCommitted,
    ClientSeedFixed,
    HandOpened,
    ActionAwaited,
    BetPlaced,
    PunterSkipped,
    BettingClosed,
    CardDealt,
    CardTurnedUp,
    CardAssigned,
    StakeRaised,
    HandSplit,
    HandStood,
    HandBusted,
    HandMadeSevenHalf,
    HandMadePairOfSevens,
    BankerTurnStarted,
    BankerTurnSkipped,
    HandSettled,
    HandAbandoned,
)
