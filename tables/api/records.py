"""A catalogue: every published record of the game endpoints (spec/API.md v1.2), what the presenters build and
the one description of each answer. It is kept whole on purpose: the records nest into one another across
endpoints (an action's answer holds the table view and the feed's events; an export holds the history, the
events and the checkpoints), the OpenAPI components are generated from this one list, and it reads beside
spec/API.md record by record.

Each answer is one of these frozen Structs, built by :mod:`tables.api.presenters` and
:mod:`tables.api.hand_presenters` from the core's view records (:mod:`rules.view_records`), which they embed
wherever the API shows a core record as it is (a card, a hand, its outcome, the pending card, a seat reference,
the last hand's rows). The OpenAPI components of these answers are generated from the same classes
(:mod:`tables.api.openapi`), field help texts included, so the schema cannot describe an answer the presenters
do not build. The shell's additions (ids, the table's name, times as ISO 8601, balances, limits, chain hashes,
ledger rows) are fields here, never in the core.

Optional fields that are absent rather than null (``hash`` before a checkpoint covers the event) are ``UNSET``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from gamemath.enums import DisputeStatus, Phase, WaitKind
from rules import view_records
from rules.view_records import HandView, PendingCard, ResultView, SeatRef


def _doc(text: str) -> Meta:
    return Meta(description=text)


#: A time in an answer: ISO 8601, UTC (DRF's renderer writes it).
Time = Annotated[datetime, Meta(extra_json_schema={"format": "date-time"})]

HAND_ID = _doc("The hand's id for /hands/{id}.")
CHAIN_HASH = _doc("The event's chain hash, once the hand has ended.")
PREV_HASH = _doc("The chain hash of the event before it.")


class Published(Struct, frozen=True, kw_only=True):
    """Base of every published record: frozen, keyword-only."""


# --- the table view ------------------------------------------------------------------------------------------------


class TableSeat(Published, frozen=True, kw_only=True):
    """A seat of the table."""

    seat: int
    username: str
    is_banker: bool
    sitting_out: bool
    leaving: Annotated[bool, _doc("Leaves after the current hand.")]


class Turn(Published, frozen=True, kw_only=True):
    """Whom the table waits on, for what and until when."""

    seat: Annotated[int | None, _doc("null: every punter who owes a bet.")]
    hand: int | None
    kind: Annotated[WaitKind, _doc("What the table waits for.")]
    deadline: Annotated[Time, _doc("When the wait times out.")]


class HandParticipant(Published, frozen=True, kw_only=True):
    """The banker (first) or a punter of the hand in play, with his hands."""

    seat: Annotated[int | None, _doc("null for the house banker.")]
    username: str | None
    role: Annotated[str, _doc("banker or punter.")]
    hands: tuple[HandView, ...]


class CurrentHand(Published, frozen=True, kw_only=True):
    """The hand in play (or just ended) as you may see it."""

    id: Annotated[int | None, HAND_ID]
    number: int
    nonce: int
    seed_commitment: Annotated[str, _doc("sha256 of the server seed, published before the hand opened.")]
    client_seed: Annotated[str | None, _doc("Fixed when the hand's first card is dealt.")]
    server_seed: Annotated[str | None, _doc("Revealed once the hand is settled.")]
    phase: Phase
    stake: Annotated[int | None, _doc("S under bank_fixed.")]
    turn: Turn | None
    betting_deadline: Annotated[Time | None, _doc("While a betting window is open: when it closes (ISO 8601, UTC).")]
    participants: tuple[HandParticipant, ...]
    pending_card: Annotated[PendingCard | None, _doc("Hungarian: a drawn card to assign.")]
    stock_left: int
    results: tuple[ResultView, ...] | None
    next_banker: SeatRef | None
    deck: Annotated[tuple[str, ...] | None, _doc("Staff only, once the hand is settled.")]


class LastHand(view_records.LastHand, frozen=True, kw_only=True):
    """How the previous hand ended, as everyone may now see it, until the next ends: the core's record with the
    hand's id."""

    id: Annotated[int | None, HAND_ID]


class SessionFigures(Published, frozen=True, kw_only=True):
    """A reality check that is due: the session so far."""

    elapsed_s: int
    wagered: int
    net: int


class YourLimits(Published, frozen=True, kw_only=True):
    """Responsible gaming (API.md v1.2)."""

    remaining_loss: Annotated[
        int | None, _doc("Chips you may still put at risk under your loss limits (null: no loss limit).")
    ]
    remaining_session_s: Annotated[int | None, _doc("Null: no session limit.")]
    reality_check_due: Annotated[
        Literal[False] | SessionFigures,
        _doc("false, or the session's figures when one is due (POST /me/reality-check)."),
    ]


class You(Published, frozen=True, kw_only=True):
    """Your seat, balance and what you may send now."""

    seat: int | None
    balance: Annotated[int, _doc("Chips in your wallet.")]
    legal_actions: Annotated[tuple[str, ...], _doc("What you may send now.")]
    legal_hands: Annotated[
        dict[str, tuple[int, ...]], _doc("For each legal action that takes `hand`, the hand indexes it accepts now.")
    ]
    limits: YourLimits


class Rtp(Published, frozen=True, kw_only=True):
    """What the table returns to a punter per chip staked (API.md v1.3 "What a table is worth"), each figure a
    decimal string such as "0.9731" (``tables.worth.TableWorth``)."""

    best_play: Annotated[
        str | None,
        _doc(
            "The return per chip staked of the play that wins a punter the most chips within the table's limits "
            "(how much to stake after seeing his first card, raises, splits, hits and stands). Null at a player "
            "bank (the banker is a person)."
        ),
    ]
    flat: Annotated[
        str | None,
        _doc(
            "The return to a punter who stakes the minimum and plays the published default strategy. Null only "
            "at a player bank whose simulation has not finished yet (or failed): ask again later."
        ),
    ]
    method: Annotated[str, _doc('"exact" (a house bank) or "simulated" (a player bank).')]
    margin: Annotated[
        str | None, _doc('The 95% half-width of a simulated figure; "0" when exact; null while not computed.')
    ]
    assumptions: Annotated[tuple[str, ...], _doc("What the figures leave out, in words (English).")]


class TableRtp(Published, frozen=True, kw_only=True):
    """``POST /tables/rtp``: what a table card would return."""

    rtp: Rtp


class TableView(Published, frozen=True, kw_only=True):
    """The table as you may see it."""

    id: int
    name: str
    preset: str
    rules: Annotated[dict[str, Any], _doc("Every resolved toggle.")]
    min_bet: int
    max_bet: int
    bank: Annotated[str, _doc("player or house.")]
    max_seats: int
    fixed_stake: Annotated[int | None, _doc("S under bank_fixed.")]
    turn_timeout_s: int
    betting_timeout_s: int
    rtp: Annotated[Rtp, _doc("v1.3: what the table card returns to a punter.")]
    version: Annotated[int, _doc("The seq of the table's latest event.")]
    phase: Phase
    seats: tuple[TableSeat, ...]
    next_seed_commitment: Annotated[
        str | None, _doc("The commitment of the next hand to open (null while its hand is in play).")
    ]
    hand: CurrentHand | None
    last_hand: LastHand | None
    you: You


# --- events ----------------------------------------------------------------------------------------------------------


class TableEvent(Published, frozen=True, kw_only=True):
    """An event of the table as you may see it."""

    seq: int
    type: Annotated[str, _doc("CardDealt, BetPlaced, HandSettled, ...")]
    at: Time
    data: Annotated[dict[str, Any], _doc("The event's fields as you may see them (hidden cards null).")]
    prev_hash: Annotated[
        str | UnsetType, _doc("Chain hash of the event before (only events up to the latest checkpoint).")
    ] = UNSET
    hash: Annotated[str | UnsetType, _doc("This event's chain hash (docs/fairness.md).")] = UNSET
    hash_form: Annotated[
        int | UnsetType,
        _doc(
            "The form of its hash: 1 (before v1.2, not recomputable outside), 2 or 3 (v1.3: the form is hashed too), "
            "recomputable from the event as served; the checkpoints sign every event's form (docs/fairness.md)."
        ),
    ] = UNSET
    private_sha256: Annotated[
        str | UnsetType,
        _doc("Forms 2 and 3: sha256 of what the event never shows (its metadata, sealed fields), inside its hash."),
    ] = UNSET


class TableActionResponse(Published, frozen=True, kw_only=True):
    """The table after your request and the events it appended."""

    table: TableView
    events: Annotated[tuple[TableEvent, ...], _doc("What this request appended, as you may see it.")]


class TableEvents(Published, frozen=True, kw_only=True):
    """A page of the table's events feed."""

    events: tuple[TableEvent, ...]
    last_seq: Annotated[int, _doc("Ask again with after=last_seq.")]


# --- a hand's history and export ---------------------------------------------------------------------------------


class HistoryHand(Published, frozen=True, kw_only=True):
    """One hand of a participant in a history (cards null where you may not see them)."""

    index: int
    bet: int | None
    cards: tuple[str | None, ...]
    total_half_points: int | None


class HistoryParticipant(Published, frozen=True, kw_only=True):
    """The banker (first) or a punter of the hand, with his client seed."""

    seat: int | None
    username: str | None
    role: str
    client_seed: Annotated[
        str | None, _doc("v1.2: his client seed as it went into the hand's (null until the first card).")
    ]
    client_seed_set_at: Annotated[
        int | None, _doc("v1.2: the table version at which he set that seed, or at which he sat down with it.")
    ]
    hands: tuple[HistoryHand, ...]


class Deal(view_records.DealRow, frozen=True, kw_only=True):
    """A card as it left the deck, in dealing order (the core's record), with its chain hash once shown."""

    hash: Annotated[str | UnsetType, CHAIN_HASH] = UNSET
    prev_hash: Annotated[str | UnsetType, PREV_HASH] = UNSET


class ActionRecord(Published, frozen=True, kw_only=True):
    """A recorded command, or a step of the house banker (seat null, reason ``house_rule``)."""

    seq: int
    at: Time
    seat: Annotated[int | None, _doc("null: the system (timeouts, the house).")]
    action: str
    args: dict[str, Any]
    hash: Annotated[str | UnsetType, CHAIN_HASH] = UNSET
    prev_hash: Annotated[str | UnsetType, PREV_HASH] = UNSET


class HandPosting(Published, frozen=True, kw_only=True):
    """One leg of a ledger transaction."""

    account: str
    amount: int


class HandTransaction(Published, frozen=True, kw_only=True):
    """A ledger transaction of the hand."""

    transaction_id: int
    kind: str
    postings: tuple[HandPosting, ...]


class Game(Published, frozen=True, kw_only=True):
    """The game and the release of its rules a hand was played under (docs/fairness.md, "Which rules dealt a
    hand")."""

    id: Annotated[str, _doc('"seven-and-a-half".')]
    version: Annotated[
        str | None, _doc("The released version of the rules (null: a hand from before hands recorded it).")
    ]
    rules_sha256: Annotated[
        str | None,
        _doc("A digest of the code that decides hands, as the hand recorded it when it opened (null: unknown)."),
    ]


class HandHistory(Published, frozen=True, kw_only=True):
    """A hand's full history as you may see it."""

    id: int
    table: int
    number: int
    game: Game
    status: Annotated[str, _doc("in_play, settled or abandoned.")]
    rules: dict[str, Any]
    seed_commitment: str
    seed_committed_at: Annotated[
        int | None,
        _doc(
            "v1.2: the seq of the event that published the commitment (null: a hand of the old form, committed as "
            "it opened)."
        ),
    ]
    server_seed: str | None
    client_seed: Annotated[str | None, _doc("Null until the hand's first card is dealt.")]
    nonce: int
    deck: tuple[str, ...] | None
    deck_reason: Annotated[
        str | None,
        _doc(
            "Extension: why `deck` is null (the hand is in play, its seed was never revealed, or no card was dealt "
            "so its client seed was never fixed and no deck was shuffled); null when the deck is shown."
        ),
    ]
    banker: SeatRef
    participants: tuple[HistoryParticipant, ...]
    deals: tuple[Deal, ...]
    actions: tuple[ActionRecord, ...]
    results: tuple[ResultView, ...]
    next_banker: SeatRef | None
    ledger: tuple[HandTransaction, ...]


class Checkpoint(Published, frozen=True, kw_only=True):
    """A signed checkpoint of the table's hash chain."""

    version: Annotated[int, _doc("The seq of the table's last event when a hand ended.")]
    hash: Annotated[str, _doc("The chain hash of that event (docs/fairness.md).")]
    signature: Annotated[
        str,
        _doc(
            'Base64 Ed25519 signature of f"{table_id}:{version}:{hash}", since v1.3 followed by '
            'f":{hash_forms}:{facts_sha256}".'
        ),
    ]
    key_id: Annotated[
        str,
        _doc(
            "The signing key: the first 16 hex of sha256 of its raw public key (see /fairness/public-key); a "
            "checkpoint signed before key ids were derived names the key as the casino had configured it."
        ),
    ]
    at: Time
    hash_forms: Annotated[
        str | None,
        _doc(
            'v1.3: the hash form of every event up to this version, signed: "1@1,2@120,3@480" (each form from the '
            "version named); null for a checkpoint signed before."
        ),
    ] = None
    facts_sha256: Annotated[
        str | None,
        _doc("v1.3: sha256 of the table's facts at this version (`facts`), signed; null for a checkpoint before."),
    ] = None
    facts: Annotated[
        dict[str, Any] | UnsetType,
        _doc(
            "In an export, v1.3: the table's facts at this version whose digest is signed: its table card "
            "(`rules`, `bank`, `min_bet`, `max_bet`, `fixed_stake`) and `seats` "
            "[{seat, player, client_seed, client_seed_set_at}] (docs/fairness.md)."
        ),
    ] = UNSET


class ExportedKey(Published, frozen=True, kw_only=True):
    """A signing key the casino names (compare it with a key you hold)."""

    key_id: str
    public_key: Annotated[str, _doc("Base64 of the 32 raw bytes.")]


class HandExport(Published, frozen=True, kw_only=True):
    """Everything needed to check an ended hand offline."""

    format: Annotated[str, _doc('"sevenhalf-hand-export/1".')]
    hand: HandHistory
    events: Annotated[
        tuple[TableEvent, ...],
        _doc(
            "The table's events from the one before the hand's commitment was published through the first "
            "checkpoint after the hand, as you may see them, each with its chain hash."
        ),
    ]
    checkpoints: Annotated[tuple[Checkpoint, ...], _doc("The checkpoint before the hand and the one covering it.")]
    public_keys: Annotated[
        tuple[ExportedKey, ...], _doc("The signing keys the casino names: compare them with a key you hold.")
    ]
    game: Game


# --- the lobby, verification, disputes, the signing keys -----------------------------------------------------------


class LobbyTable(Published, frozen=True, kw_only=True):
    """A table of the lobby (its read model's columns)."""

    id: int
    name: str
    preset: str
    min_bet: int
    max_bet: int
    bank: Annotated[str, _doc("player or house.")]
    seats_taken: int
    max_seats: int
    phase: Annotated[str, _doc("waiting, betting, dealing, punters, banker or settled.")]
    rtp: Annotated[Rtp, _doc("v1.3: what the table card returns to a punter (the table view's own figure).")]


class HandVerification(Published, frozen=True, kw_only=True):
    """Each check of a settled hand: "ok" or what differs."""

    commitment: Annotated[str, _doc('"ok" or what differs.')]
    shuffle: str
    replay: str
    ledger: str
    chain: Annotated[str, _doc("Extension: the hash chain of the table's events up to the hand.")]
    checkpoint: Annotated[str, _doc("The table's signed checkpoints still match its hash chain.")]
    deck: Annotated[
        str | UnsetType,
        _doc(
            "Extension, not a check, present only when the hand's history shows no deck: why (the same text as the "
            "history's `deck_reason`)."
        ),
    ] = UNSET


class Dispute(Published, frozen=True, kw_only=True):
    """A dispute of a hand."""

    id: int
    hand: int
    reason: str
    status: DisputeStatus
    created_at: Time


class FairnessPublicKeyEntry(Published, frozen=True, kw_only=True):
    """A key that checkpoints may name."""

    key_id: str
    public_key: Annotated[str, _doc("Base64 of the 32 raw bytes.")]
    valid_from: Annotated[
        Time, _doc("When the key was put in service: first published as the current key, or first used to sign.")
    ]


class FairnessPublicKey(Published, frozen=True, kw_only=True):
    """The keys that sign checkpoints."""

    algorithm: Annotated[str, _doc('"ed25519".')]
    public_key: Annotated[str, _doc("Base64 of the 32 raw bytes of the current signing key.")]
    key_id: Annotated[
        str, _doc("The current key's id, as checkpoints name it: the first 16 hex of sha256 of its 32 raw bytes.")
    ]
    keys: Annotated[tuple[FairnessPublicKeyEntry, ...], _doc("Every key checkpoints may name, the current one first.")]
