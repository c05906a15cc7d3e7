"""The pure rules core of Seven and a Half (RULES.md), in the Decider shape of STYLE.md.

Standard library only: no Django, DRF, Celery, Redis, psycopg, ``random``, ``secrets`` nor clock reads.
Randomness and time enter as data in each command's :class:`Context` (``now_ms``, ``wallets``,
``entropy``); the same commands and state always give the same events.

Decider::

    events = decide(command, state)            # list[Event]; DomainError (no events) when refused
    state = evolve(state, event)               # pure fold of one fact
    state = fold(events)                       # reduce(evolve, events, initial_state())
    events, state = handle(command, state)     # decide + the state it leads to, in one pass

Queries::

    legal_actions(state, player_id, wallets=None) -> list[str]   # exactly what decide would accept
    view(state, Viewer.player(pid) | Viewer.spectator() | Viewer.auditor(), wallets=None) -> dict
    view_event(event, viewer, state) -> dict                       # the events feed, same hiding rule
    replay(events) -> list[TableState]; state_after(events, n) -> TableState
    hand_history(events, number, ...) -> dict

Provably fair shuffle: ``shuffle_deck(server_seed, client_seed, nonce)``, ``seed_commitment(server_seed)``.
JSON: ``event_to_json`` / ``event_from_json`` / ``command_to_json`` / ``command_from_json``;
``state_to_json`` / ``state_from_json`` (snapshots: plain data, decoded field by field).
See docs/rules-engine.md for the whole API and every decision taken where RULES.md is silent.
"""

from .cards import CANONICAL_DECK, format_hp, is_picture, value_hp
from .codec import (
    command_from_json,
    command_to_json,
    event_from_json,
    event_to_json,
    state_from_json,
    state_to_json,
)
from .commands import (
    ACTION_COMMANDS,
    ACTION_NAMES,
    Assign,
    Command,
    Context,
    CreateTable,
    Hit,
    HitFaceDown,
    LeaveSeat,
    NextSeed,
    PlaceBet,
    PlayerCommand,
    Raise,
    RetireBank,
    SetClientSeed,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
    Split,
    Stand,
    Timeout,
    command_for_action,
    with_seeds,
    without_secrets,
)
from .config import TableConfig, make_table_config
from .decide import decide, handle
from .errors import (
    ERROR_CODES,
    AlreadySeated,
    BankCannotCover,
    BetOutOfLimits,
    DomainError,
    IllegalAction,
    InsufficientFunds,
    InvalidRequest,
    NotFound,
    NotSeated,
    NotYourTurn,
    SeatTaken,
    TableFull,
    WrongPhase,
)
from .events import (
    EVENT_TYPES,
    HOUSE,
    ActionAwaited,
    BankerTurnSkipped,
    BankerTurnStarted,
    BankPassed,
    BankRetirementRequested,
    BetPlaced,
    BettingClosed,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    ClientSeedFixed,
    ClientSeedSet,
    Event,
    FirstBankerDrawn,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandOpened,
    HandResult,
    HandSettled,
    HandSplit,
    HandStood,
    LeaveRequested,
    PlayerTimedOut,
    PunterSkipped,
    SatIn,
    SatOut,
    SeatLeft,
    SeedCommitted,
    StakeRaised,
    StakeSet,
    TableCreated,
    TimeoutStreakReset,
)
from .events import (
    SeatTaken as SeatTakenEvent,
)
from .evolve import evolve
from .history import hand_history
from .legal import legal_actions
from .replay import fold, replay, state_after
from .ruleset import PRESETS, TOGGLES, Rules, banker_loss_multiplier, punter_loss_multiplier, resolve_rules
from .scoring import Score, Settlement, evaluate, settle_hand
from .shuffle import seed_commitment, shuffle_deck, verify_deck
from .state import Awaiting, BankerHand, HandState, Pledge, PunterHand, SeatState, TableState, initial_state
from .tx import PLAIN_PREFIX
from .view import Viewer, card_visible, settled_deck, view, view_event

__all__ = [
    "ACTION_COMMANDS",
    "ACTION_NAMES",
    "CANONICAL_DECK",
    "ERROR_CODES",
    "EVENT_TYPES",
    "HOUSE",
    "PLAIN_PREFIX",
    "PRESETS",
    "TOGGLES",
    "ActionAwaited",
    "AlreadySeated",
    "Assign",
    "Awaiting",
    "BankCannotCover",
    "BankPassed",
    "BankRetirementRequested",
    "BankerHand",
    "BankerTurnSkipped",
    "BankerTurnStarted",
    "BetOutOfLimits",
    "BetPlaced",
    "BettingClosed",
    "CardAssigned",
    "CardDealt",
    "CardTurnedUp",
    "ClientSeedFixed",
    "ClientSeedSet",
    "Command",
    "Context",
    "CreateTable",
    "DomainError",
    "Event",
    "FirstBankerDrawn",
    "HandAbandoned",
    "HandBusted",
    "HandMadePairOfSevens",
    "HandMadeSevenHalf",
    "HandOpened",
    "HandResult",
    "HandSettled",
    "HandSplit",
    "HandState",
    "HandStood",
    "Hit",
    "HitFaceDown",
    "IllegalAction",
    "InsufficientFunds",
    "InvalidRequest",
    "LeaveRequested",
    "LeaveSeat",
    "NextSeed",
    "NotFound",
    "NotSeated",
    "NotYourTurn",
    "PlaceBet",
    "PlayerCommand",
    "PlayerTimedOut",
    "Pledge",
    "PunterHand",
    "PunterSkipped",
    "Raise",
    "RetireBank",
    "Rules",
    "SatIn",
    "SatOut",
    "Score",
    "SeatLeft",
    "SeatState",
    "SeatTaken",
    "SeatTakenEvent",
    "SeedCommitted",
    "SetClientSeed",
    "SetStake",
    "Settlement",
    "SitDown",
    "SitIn",
    "SitOut",
    "Split",
    "StakeRaised",
    "StakeSet",
    "Stand",
    "TableConfig",
    "TableCreated",
    "TableFull",
    "TableState",
    "Timeout",
    "TimeoutStreakReset",
    "Viewer",
    "WrongPhase",
    "banker_loss_multiplier",
    "card_visible",
    "command_for_action",
    "command_from_json",
    "command_to_json",
    "decide",
    "evaluate",
    "event_from_json",
    "event_to_json",
    "evolve",
    "fold",
    "format_hp",
    "hand_history",
    "handle",
    "initial_state",
    "is_picture",
    "legal_actions",
    "make_table_config",
    "punter_loss_multiplier",
    "replay",
    "resolve_rules",
    "seed_commitment",
    "settle_hand",
    "settled_deck",
    "shuffle_deck",
    "state_after",
    "state_from_json",
    "state_to_json",
    "value_hp",
    "verify_deck",
    "view",
    "view_event",
    "with_seeds",
    "without_secrets",
]
