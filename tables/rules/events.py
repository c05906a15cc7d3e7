"""Events: the facts of a table (past-tense names, frozen dataclasses, stable type names = class names).

Whatever ``decide`` computed travels on the event, so ``evolve`` applies facts without rules. Events that
move chips (stakes, settlement) carry everything the ledger needs: player id, seat, hand, the amount, the
punter's and the banker's reserve, and the banker's id (None for the house).

Longer than the core's other modules on purpose: it is the catalogue of every fact a table's stream may hold
(the stored schema), one small class per fact, read as one list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .config import TableConfig
from .enums import (
    AbandonReason,
    BankReason,
    LeaveReason,
    Outcome,
    Phase,
    SitInReason,
    SitOutReason,
    SkipReason,
    StandReason,
    WaitKind,
)

HOUSE = "house"


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCreated(Event):
    """The table exists with this validated configuration (the first event of every stream)."""

    config: TableConfig


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTaken(Event):
    """A player sat down."""

    seat: int
    player_id: str
    username: str
    client_seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveRequested(Event):
    """A player in the current hand asked to leave: he leaves after it."""

    seat: int
    player_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLeft(Event):
    """A player left the table (``reason``: ``request`` or ``after_hand``)."""

    seat: int
    player_id: str
    reason: LeaveReason


@dataclass(frozen=True, slots=True, kw_only=True)
class SatOut(Event):
    """A player skips hands from the next one on (``reason``: ``request`` or ``timeout``)."""

    seat: int
    player_id: str
    reason: SitOutReason


@dataclass(frozen=True, slots=True, kw_only=True)
class SatIn(Event):
    """A player takes part again (``reason``: ``request``, ``ready`` or ``acted``); his timeout streak is reset."""

    seat: int
    player_id: str
    reason: SitInReason


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSeedSet(Event):
    """A player's client seed for hands opened from now on."""

    seat: int
    player_id: str
    client_seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerTimedOut(Event):
    """The table waited in vain on a player; ``streak`` counts his timeouts in a row."""

    seat: int
    player_id: str
    streak: int
    waiting_for: WaitKind


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeoutStreakReset(Event):
    """A player acted again: his count of timeouts in a row is back to zero."""

    seat: int
    player_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstBankerDrawn(Event):
    """The first banker was drawn among ``candidates`` (seats) by HMAC over the command's entropy."""

    candidates: tuple[int, ...]
    seat: int
    player_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BankPassed(Event):
    """The bank changed hands between hands; ``to_seat`` None leaves the table without a banker."""

    from_seat: int | None
    to_seat: int | None
    player_id: str | None
    reason: BankReason


@dataclass(frozen=True, slots=True, kw_only=True)
class BankRetirementRequested(Event):
    """The banker retires after the current hand."""

    seat: int
    player_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StakeSet(Event):
    """The player banker set the fixed stake S for hands opened from now on."""

    seat: int
    player_id: str
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeedCommitted(Event):
    """The server seed of hand ``number`` is drawn: ``seed_commitment`` = sha256 of it (published at once),
    ``sealed_seed`` its encrypted form (no viewer ever sees it; the seed is revealed when the hand ends).

    Emitted when the table is created (hand 1) and when hand N ends (hand N+1), so every hand's commitment
    is public before its client seed is fixed (at its first card)."""

    number: int
    seed_commitment: str
    sealed_seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSeedFixed(Event):
    """The hand's client seed, fixed as its first card is dealt: the client seeds of its participants at that
    moment, joined with ``:`` in seat order."""

    number: int
    client_seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandOpened(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionAwaited(Event):
    """The table now waits on ``seat`` (None: every punter who owes a bet) for ``kind`` until ``deadline_ms``.

    ``kind``: ``bets`` (a betting window), ``bet`` (a bet owed at the start of a turn), ``play`` (a punter's
    decision on ``hand``), ``assign`` (a Hungarian card to give to a hand) or ``banker`` (a player banker).
    """

    seat: int | None
    hand: int | None
    kind: WaitKind
    deadline_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BetPlaced(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class PunterSkipped(Event):
    """A punter takes no part in this hand (``reason``: timeout, sat_out, left, insufficient_funds,
    bank_cannot_cover); a hand already dealt to him is void (no stake, no settlement)."""

    seat: int
    player_id: str
    reason: SkipReason


@dataclass(frozen=True, slots=True, kw_only=True)
class BettingClosed(Event):
    """Every stake of the betting window is in: the deal (or play) follows."""

    number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDealt(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class CardTurnedUp(Event):
    """A face-down card was turned face up for everybody."""

    seat: int | None
    hand: int
    banker: bool
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardAssigned(Event):
    """Hungarian: the drawn card went to open hand ``hand``."""

    seat: int
    hand: int
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StakeRaised(Event):
    """A punter added ``amount`` to a live hand's stake, now ``stake``."""

    seat: int
    player_id: str
    hand: int
    amount: int
    stake: int
    punter_reserve: int
    banker_reserve: int
    banker_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSplit(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStood(Event):
    """A hand stands (``reason``: action, timeout, stock_exhausted, house_rule)."""

    seat: int | None
    hand: int
    banker: bool
    reason: StandReason


@dataclass(frozen=True, slots=True, kw_only=True)
class HandBusted(Event):
    """A hand went over 7½: shown at once (``cards``); a punter's stake is lost whatever the banker does."""

    seat: int | None
    hand: int
    banker: bool
    total_half_points: int
    matta_value: int | None
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class HandMadeSevenHalf(Event):
    """A hand reached 15 hp (``category`` seven_half or reale): shown at once (``cards``), its turn ends."""

    seat: int | None
    hand: int
    banker: bool
    category: str
    total_half_points: int
    matta_value: int | None
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class HandMadePairOfSevens(Event):
    """Two natural sevens: shown at once; a punter's hand is settled at once, a banker's turn ends."""

    seat: int | None
    hand: int
    banker: bool
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class BankerTurnStarted(Event):
    """The banker's turn: his card is turned up next (``seat`` None for the house)."""

    seat: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class BankerTurnSkipped(Event):
    """No punter hand was left unsettled: the banker does not play and his card is not shown."""

    seat: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """The settlement of one punter hand (one row of the hand history's ``results``)."""

    seat: int
    player_id: str
    hand: int
    bet: int
    category: str
    total_half_points: int
    matta_value: int | None
    outcome: Outcome
    tie: bool
    multiplier: int
    net: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSettled(Event):
    """Showdown and settlement: one result per punter hand, escrow ``payouts`` per party (player ids and
    ``"house"``; they sum to what was reserved during the hand), the banker's net (= minus the punters'),
    the next banker and the revealed server seed."""

    number: int
    results: tuple[HandResult, ...]
    payouts: Mapping[str, int]
    banker_seat: int | None
    banker_id: str | None
    banker_net: int
    banker_category: str | None
    banker_total_half_points: int | None
    banker_matta_value: int | None
    next_banker_seat: int | None
    next_banker_id: str | None
    bank_reason: BankReason
    server_seed: str = field(default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandAbandoned(Event):
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
