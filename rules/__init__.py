"""The pure rules core of Seven and a Half (RULES.md), in the Decider shape of STYLE.md.

The standard library, the game's maths (``gamemath``: cards, shuffle, scoring, rule sets) and msgspec for its
records only: no Django, DRF, Celery, Redis, psycopg, ``random``, ``secrets`` nor clock reads.
Randomness and time enter as data in the :class:`Context` passed beside each command (``now_ms``, ``wallets``,
``entropy``, seeds); the same command, state and context always give the same events.

Decider::

    events = decide(command, state, context)            # list[Event]; DomainError (no events) when refused
    state = evolve(state, event)                        # pure fold of one fact
    state = fold(events)                                # reduce(evolve, events, initial_state())
    events, state = handle(command, state, context)     # decide + the state it leads to, in one pass

Queries::

    legal_actions(state, player_id, wallets=None) -> list[str]   # exactly what decide would accept
    legal_hands(state, player_id, wallets=None) -> dict[str, list[int]]   # the hand indexes each of them accepts
    view(state, Viewer.player(pid) | Viewer.spectator() | Viewer.auditor(), wallets=None) -> TableView
    view_event(event, viewer, state) -> dict                       # the events feed, same hiding rule
    replay(events) -> list[TableState]                             # the state after each event
    hand_history(events, number, ...) -> HandHistory

Provably fair shuffle: ``shuffle_deck(server_seed, client_seed, nonce)``, ``seed_commitment(server_seed)``.
JSON: ``event_to_json`` / ``event_from_json`` / ``command_to_json`` / ``command_from_json`` / ``context_to_json``
(the recorded form: no plain seed) / ``recorded_command``;
``state_to_json`` / ``state_from_json`` (snapshots: plain data, decoded field by field).
See docs/rules-engine.md for the flow of a command and the whole API, docs/rules-decisions.md for every decision taken
where RULES.md is silent.

Longer than a module should be, on purpose: it is the catalogue of the core's public names (the imports below
and ``__all__``), one list for the shell, the lab and the tests to import the core from.
"""

from gamemath.cards import CANONICAL_DECK, format_hp, is_picture, value_hp
from gamemath.enums import (
    AbandonReason,
    BankReason,
    HandStatus,
    LeaveReason,
    Outcome,
    Phase,
    SitInReason,
    SitOutReason,
    SkipReason,
    StandReason,
    WaitKind,
)
from gamemath.errors import (
    ERROR_CODES,
    AlreadySeated,
    BankCannotCover,
    BetOutOfLimits,
    DomainError,
    IllegalAction,
    InsufficientFunds,
    InvalidRequest,
    LimitReached,
    NotFound,
    NotSeated,
    NotYourTurn,
    SeatOccupied,
    TableFull,
    WrongPhase,
)
from gamemath.ruleset import PRESETS, TOGGLES, Rules, banker_loss_multiplier, punter_loss_multiplier, resolve_rules
from gamemath.scoring import Score, Settlement, evaluate, settle_hand
from gamemath.shuffle import seed_commitment, shuffle_deck, verify_deck
from rules.actions import API_ACTIONS, ActionBody, ActionRequest, action_body, command_for_action
from rules.chips import ESCROW, chip_moves, wallets_after
from rules.codec import (
    command_from_json,
    command_to_json,
    context_from_json,
    context_to_json,
    event_from_json,
    event_to_json,
    recorded_command,
    state_from_json,
    state_to_json,
)
from rules.commands import (
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
    ReleaseIdleSeat,
    RetireBank,
    SetClientSeed,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
    Split,
    Stand,
    Timeout,
)
from rules.config import TableConfig, make_table_config
from rules.decide import decide, handle
from rules.describe import Actor, acted_by, describe_event
from rules.draft import PLAIN_PREFIX
from rules.events import (
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
    SeatTaken,
    SeedCommitted,
    StakeRaised,
    StakeSet,
    TableCreated,
    TimeoutStreakReset,
)
from rules.evolve import evolve
from rules.hiding import Viewer, card_visible, no_deck_reason, settled_deck, view_event
from rules.history import hand_history
from rules.legal import HAND_ACTIONS, legal_actions, legal_hands
from rules.replay import fold, replay
from rules.state import (
    Awaiting,
    BankerHand,
    EndedHand,
    HandState,
    Pledge,
    PunterHand,
    SeatState,
    TableState,
    initial_state,
)
from rules.view import hand_facts, last_hand_view, result_row, table_settings, view
from rules.view_records import HandFacts, HandHistory, TableView

__all__ = [
    "ACTION_COMMANDS",
    "ACTION_NAMES",
    "API_ACTIONS",
    "CANONICAL_DECK",
    "ERROR_CODES",
    "ESCROW",
    "EVENT_TYPES",
    "HAND_ACTIONS",
    "HOUSE",
    "PLAIN_PREFIX",
    "PRESETS",
    "TOGGLES",
    "AbandonReason",
    "ActionAwaited",
    "ActionBody",
    "ActionRequest",
    "Actor",
    "AlreadySeated",
    "Assign",
    "Awaiting",
    "BankCannotCover",
    "BankPassed",
    "BankReason",
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
    "EndedHand",
    "Event",
    "FirstBankerDrawn",
    "HandAbandoned",
    "HandBusted",
    "HandFacts",
    "HandHistory",
    "HandMadePairOfSevens",
    "HandMadeSevenHalf",
    "HandOpened",
    "HandResult",
    "HandSettled",
    "HandSplit",
    "HandState",
    "HandStatus",
    "HandStood",
    "Hit",
    "HitFaceDown",
    "IllegalAction",
    "InsufficientFunds",
    "InvalidRequest",
    "LeaveReason",
    "LeaveRequested",
    "LeaveSeat",
    "LimitReached",
    "NextSeed",
    "NotFound",
    "NotSeated",
    "NotYourTurn",
    "Outcome",
    "Phase",
    "PlaceBet",
    "PlayerCommand",
    "PlayerTimedOut",
    "Pledge",
    "PunterHand",
    "PunterSkipped",
    "Raise",
    "ReleaseIdleSeat",
    "RetireBank",
    "Rules",
    "SatIn",
    "SatOut",
    "Score",
    "SeatLeft",
    "SeatOccupied",
    "SeatState",
    "SeatTaken",
    "SeedCommitted",
    "SetClientSeed",
    "SetStake",
    "Settlement",
    "SitDown",
    "SitIn",
    "SitInReason",
    "SitOut",
    "SitOutReason",
    "SkipReason",
    "Split",
    "StakeRaised",
    "StakeSet",
    "Stand",
    "StandReason",
    "TableConfig",
    "TableCreated",
    "TableFull",
    "TableState",
    "TableView",
    "Timeout",
    "TimeoutStreakReset",
    "Viewer",
    "WaitKind",
    "WrongPhase",
    "acted_by",
    "action_body",
    "banker_loss_multiplier",
    "card_visible",
    "chip_moves",
    "command_for_action",
    "command_from_json",
    "command_to_json",
    "context_from_json",
    "context_to_json",
    "decide",
    "describe_event",
    "evaluate",
    "event_from_json",
    "event_to_json",
    "evolve",
    "fold",
    "format_hp",
    "hand_facts",
    "hand_history",
    "handle",
    "initial_state",
    "is_picture",
    "last_hand_view",
    "legal_actions",
    "legal_hands",
    "make_table_config",
    "no_deck_reason",
    "punter_loss_multiplier",
    "recorded_command",
    "replay",
    "resolve_rules",
    "result_row",
    "seed_commitment",
    "settle_hand",
    "settled_deck",
    "shuffle_deck",
    "state_from_json",
    "state_to_json",
    "table_settings",
    "value_hp",
    "verify_deck",
    "view",
    "view_event",
    "wallets_after",
]
