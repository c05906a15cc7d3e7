"""Request bodies (strict) and the response shapes of the game endpoints (spec/API.md).

Responses are built as plain dicts by :mod:`tables.api.presenters` (cheap on the hot path of every action);
the output serializers below describe them for the OpenAPI schema, and the schemathesis run of the test suite
checks every response against that schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from casino.api.serializers import StrictCharField, StrictIntegerField, StrictSerializer
from tables.api.presenters import API_ACTIONS
from tables.rules import PRESETS, TOGGLES, DomainError
from tables.table_spec import TableSpec

# Read models keep chips per hand in 32-bit columns: a bet of at most this many chips keeps even the worst
# hand (8 hands x 7 punters x a 100x multiplier) inside them.
MAX_TABLE_BET = 100_000
MAX_TIMEOUT_S = 3600

# --- requests --------------------------------------------------------------------------------------------------


class TableCreateInput(StrictSerializer):
    name = StrictCharField(max_length=100, help_text="Shown in the lobby.")
    preset = serializers.ChoiceField(choices=list(PRESETS), help_text="classic, italian, spanish or hungarian.")
    rules = serializers.DictField(
        required=False,
        child=serializers.JSONField(),
        help_text="Overrides of single toggles of the preset, by name (RULES.md §4).",
    )
    min_bet = StrictIntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_bet = StrictIntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_seats = StrictIntegerField(
        min_value=2, max_value=8, help_text="Every seated player, a player banker included (house bank: 2-7)."
    )
    bank = serializers.ChoiceField(choices=["player", "house"])
    fixed_stake = StrictIntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_TABLE_BET, help_text="S under bank_fixed."
    )
    turn_timeout_s = StrictIntegerField(required=False, min_value=1, max_value=MAX_TIMEOUT_S, default=30)
    betting_timeout_s = StrictIntegerField(required=False, min_value=1, max_value=MAX_TIMEOUT_S, default=30)

    class Meta:
        ref_name = "TableCreateRequest"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The whole combination is the core's to judge (the same validation CreateTable runs), so a bad one is
        # a 400 naming the field; a toggle is named inside ``rules``.
        try:
            TableSpec.from_data(attrs).config()
        except DomainError as exc:
            field = str(exc.details.get("field") or api_settings.NON_FIELD_ERRORS_KEY)
            if field in TOGGLES or field not in self.fields:
                raise serializers.ValidationError({"rules": {field: [exc.message]}}) from exc
            raise serializers.ValidationError({field: [exc.message]}) from exc
        return attrs


class SeatInput(StrictSerializer):
    seat = StrictIntegerField(required=False, min_value=1, max_value=8, help_text="Default: the lowest free seat.")

    class Meta:
        ref_name = "SeatRequest"


class ActionInput(StrictSerializer):
    action = serializers.ChoiceField(choices=list(API_ACTIONS))
    amount = StrictIntegerField(required=False, min_value=1, max_value=10**12, help_text="Chips (bet, raise, ...).")
    hand = StrictIntegerField(
        required=False, min_value=0, max_value=15, help_text="Hand index (0 = first); default: the hand in turn."
    )
    target = StrictIntegerField(
        required=False, min_value=0, max_value=15, help_text="For assign: the hand to give the drawn card to."
    )
    expected_version = StrictIntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="409 stale_version if the table moved on."
    )

    class Meta:
        ref_name = "TableActionRequest"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "target" in attrs:
            if attrs["action"] != "assign":
                raise serializers.ValidationError({"target": ["Only assign takes a target."]})
            if "hand" in attrs and attrs["hand"] != attrs["target"]:
                raise serializers.ValidationError({"target": ["Give the hand to assign to once (hand or target)."]})
            attrs["hand"] = attrs.pop("target")
        return attrs

    def command_args(self) -> dict[str, Any]:
        """The action's arguments for ``tables.services.table_act``."""
        return {k: v for k, v in self.validated_data.items() if k in ("amount", "hand")}


class DisputeInput(StrictSerializer):
    reason = StrictCharField(max_length=2000, help_text="What went wrong, in your words.")

    class Meta:
        ref_name = "DisputeRequest"


# --- responses (schema) -------------------------------------------------------------------------------------


class LobbyTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    preset = serializers.CharField()
    min_bet = serializers.IntegerField()
    max_bet = serializers.IntegerField()
    bank = serializers.CharField(help_text="player or house.")
    seats_taken = serializers.IntegerField()
    max_seats = serializers.IntegerField()
    phase = serializers.CharField(help_text="waiting, betting, dealing, punters, banker or settled.")

    class Meta:
        ref_name = "LobbyTable"


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField()
    is_banker = serializers.BooleanField()
    sitting_out = serializers.BooleanField()
    leaving = serializers.BooleanField(help_text="Leaves after the current hand.")

    class Meta:
        ref_name = "TableSeat"


class CardSerializer(serializers.Serializer):
    code = serializers.CharField(allow_null=True, help_text="Such as 12O; null when you may not see it.")
    face_up = serializers.BooleanField()

    class Meta:
        ref_name = "Card"


class HandResultOfHandSerializer(serializers.Serializer):
    outcome = serializers.CharField(help_text="win, lose or push.")
    tie = serializers.BooleanField()
    multiplier = serializers.IntegerField()
    net = serializers.IntegerField()

    class Meta:
        ref_name = "PunterHandResult"


class PlayerHandSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    bet = serializers.IntegerField(allow_null=True, help_text="null for the banker's hand.")
    cards = CardSerializer(many=True)
    total = serializers.CharField(allow_null=True, help_text='Such as "7.5"; only when you can see every card.')
    total_half_points = serializers.IntegerField(allow_null=True)
    category = serializers.CharField(allow_null=True, help_text="pair7, reale, seven_half, points or bust.")
    matta_value = serializers.IntegerField(allow_null=True, help_text="The wild card's value in half-points.")
    status = serializers.CharField(help_text="waiting, playing, stood, bust, closed or settled.")
    result = HandResultOfHandSerializer(allow_null=True, required=False)

    class Meta:
        ref_name = "TableHand"


class ParticipantSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="null for the house banker.")
    username = serializers.CharField(allow_null=True)
    role = serializers.CharField(help_text="banker or punter.")
    hands = PlayerHandSerializer(many=True)

    class Meta:
        ref_name = "HandParticipant"


class TurnSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="null: every punter who owes a bet.")
    hand = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField(help_text="What the table waits for (bets, bet, play, assign, banker, ...).")
    deadline = serializers.DateTimeField(help_text="When the wait times out.")

    class Meta:
        ref_name = "Turn"


class PendingCardSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    code = serializers.CharField()

    class Meta:
        ref_name = "PendingCard"


class ResultSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    hand = serializers.IntegerField()
    bet = serializers.IntegerField()
    category = serializers.CharField()
    total_half_points = serializers.IntegerField()
    matta_value = serializers.IntegerField(allow_null=True)
    outcome = serializers.CharField(help_text="win, lose or push.")
    tie = serializers.BooleanField()
    multiplier = serializers.IntegerField()
    net = serializers.IntegerField(help_text="The punter's net chips on this hand; the banker's is minus the sum.")

    class Meta:
        ref_name = "HandResult"


class SeatRefSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True)
    username = serializers.CharField(allow_null=True)

    class Meta:
        ref_name = "SeatRef"


class CurrentHandSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="The hand's id for /hands/{id}.")
    number = serializers.IntegerField()
    nonce = serializers.IntegerField()
    seed_commitment = serializers.CharField(help_text="sha256 of the server seed, published before the hand opened.")
    client_seed = serializers.CharField(allow_null=True, help_text="Fixed when the hand's first card is dealt.")
    server_seed = serializers.CharField(allow_null=True, help_text="Revealed once the hand is settled.")
    phase = serializers.CharField()
    stake = serializers.IntegerField(allow_null=True, help_text="S under bank_fixed.")
    turn = TurnSerializer(allow_null=True)
    betting_deadline = serializers.DateTimeField(
        allow_null=True, help_text="While a betting window is open: when it closes (ISO 8601, UTC)."
    )
    participants = ParticipantSerializer(many=True)
    pending_card = PendingCardSerializer(allow_null=True, help_text="Hungarian: a drawn card to assign.")
    stock_left = serializers.IntegerField()
    results = ResultSerializer(many=True, allow_null=True)
    next_banker = SeatRefSerializer(allow_null=True)
    deck = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="Staff only, once the hand is settled."
    )

    class Meta:
        ref_name = "CurrentHand"


class YourLimitsSerializer(serializers.Serializer):
    remaining_loss = serializers.IntegerField(
        allow_null=True, help_text="Chips you may still put at risk under your loss limits (null: no loss limit)."
    )
    remaining_session_s = serializers.IntegerField(allow_null=True, help_text="Null: no session limit.")
    reality_check_due = serializers.JSONField(
        help_text="false, or {elapsed_s, wagered, net} when a reality check is due (POST /me/reality-check)."
    )

    class Meta:
        ref_name = "YourLimits"


class LastBankerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="null: the house.")
    username = serializers.CharField(allow_null=True)
    cards = serializers.ListField(child=serializers.CharField())
    total = serializers.CharField(allow_null=True)
    total_half_points = serializers.IntegerField(allow_null=True)
    category = serializers.CharField(allow_null=True)

    class Meta:
        ref_name = "LastHandBanker"


class LastResultSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    hand = serializers.IntegerField()
    bet = serializers.IntegerField()
    cards = serializers.ListField(child=serializers.CharField())
    total = serializers.CharField()
    total_half_points = serializers.IntegerField()
    category = serializers.CharField()
    outcome = serializers.CharField(help_text="win, lose or push.")
    net = serializers.IntegerField()

    class Meta:
        ref_name = "LastHandResult"


class LastHandSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="The hand's id for /hands/{id}.")
    number = serializers.IntegerField()
    status = serializers.CharField(help_text="settled or abandoned.")
    banker = LastBankerSerializer()
    results = LastResultSerializer(many=True)
    next_banker = SeatRefSerializer(allow_null=True)

    class Meta:
        ref_name = "LastHand"


class YouSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True)
    balance = serializers.IntegerField(help_text="Chips in your wallet.")
    legal_actions = serializers.ListField(child=serializers.CharField(), help_text="What you may send now.")
    legal_hands = serializers.DictField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="For each legal action that takes `hand`, the hand indexes it accepts now.",
    )
    limits = YourLimitsSerializer(help_text="Responsible gaming (API.md v1.2).")

    class Meta:
        ref_name = "You"


class TableViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    preset = serializers.CharField()
    rules = serializers.DictField(child=serializers.JSONField(), help_text="Every resolved toggle.")
    min_bet = serializers.IntegerField()
    max_bet = serializers.IntegerField()
    bank = serializers.CharField()
    max_seats = serializers.IntegerField()
    fixed_stake = serializers.IntegerField(allow_null=True)
    turn_timeout_s = serializers.IntegerField()
    betting_timeout_s = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The seq of the table's latest event.")
    phase = serializers.CharField()
    seats = SeatSerializer(many=True)
    next_seed_commitment = serializers.CharField(
        allow_null=True, help_text="The commitment of the next hand to open (null while its hand is in play)."
    )
    hand = CurrentHandSerializer(allow_null=True)
    last_hand = LastHandSerializer(
        allow_null=True, help_text="How the previous hand ended, as everyone may now see it, until the next ends."
    )
    you = YouSerializer()

    class Meta:
        ref_name = "TableView"


@extend_schema_field(OpenApiTypes.OBJECT)
class EventDataField(serializers.DictField):
    pass


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField(help_text="CardDealt, BetPlaced, HandSettled, ...")
    at = serializers.DateTimeField()
    data = EventDataField(help_text="The event's fields as you may see them (hidden cards null).")
    prev_hash = serializers.CharField(
        required=False, help_text="Chain hash of the event before (only events up to the latest checkpoint)."
    )
    hash = serializers.CharField(required=False, help_text="This event's chain hash (docs/fairness.md).")
    hash_form = serializers.IntegerField(
        required=False, help_text="2 when the hash can be recomputed from the event as served (docs/fairness.md)."
    )
    private_sha256 = serializers.CharField(
        required=False,
        help_text="Form 2: sha256 of what the event never shows (its metadata, sealed fields), inside its hash.",
    )

    class Meta:
        ref_name = "TableEvent"


class ActionResultSerializer(serializers.Serializer):
    table = TableViewSerializer()
    events = EventSerializer(many=True, help_text="What this request appended, as you may see it.")

    class Meta:
        ref_name = "TableActionResponse"


class EventsFeedSerializer(serializers.Serializer):
    events = EventSerializer(many=True)
    last_seq = serializers.IntegerField(help_text="Ask again with after=last_seq.")

    class Meta:
        ref_name = "TableEvents"


class HistoryHandSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    bet = serializers.IntegerField(allow_null=True)
    cards = serializers.ListField(child=serializers.CharField(allow_null=True), allow_null=True)
    total_half_points = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "HistoryHand"


class HistoryParticipantSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True)
    username = serializers.CharField(allow_null=True)
    role = serializers.CharField()
    client_seed = serializers.CharField(
        allow_null=True, help_text="v1.2: his client seed as it went into the hand's (null until the first card)."
    )
    client_seed_set_at = serializers.IntegerField(
        allow_null=True,
        help_text="v1.2: the table version at which he set that seed, or at which he sat down with it.",
    )
    hands = HistoryHandSerializer(many=True)

    class Meta:
        ref_name = "HistoryParticipant"


class DealSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    to_seat = serializers.IntegerField(allow_null=True)
    banker = serializers.BooleanField()
    hand = serializers.IntegerField()
    card = serializers.CharField(allow_null=True)
    face_up = serializers.BooleanField()
    hash = serializers.CharField(required=False, help_text="The event's chain hash, once the hand has ended.")
    prev_hash = serializers.CharField(required=False, help_text="The chain hash of the event before it.")

    class Meta:
        ref_name = "Deal"


class ActionRecordSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    at = serializers.DateTimeField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: the system (timeouts, the house).")
    action = serializers.CharField()
    args = serializers.DictField(child=serializers.JSONField())
    hash = serializers.CharField(required=False, help_text="The event's chain hash, once the hand has ended.")
    prev_hash = serializers.CharField(required=False, help_text="The chain hash of the event before it.")

    class Meta:
        ref_name = "ActionRecord"


class PostingSerializer(serializers.Serializer):
    account = serializers.CharField()
    amount = serializers.IntegerField()

    class Meta:
        ref_name = "HandPosting"


class LedgerTransactionSerializer(serializers.Serializer):
    transaction_id = serializers.IntegerField()
    kind = serializers.CharField()
    postings = PostingSerializer(many=True)

    class Meta:
        ref_name = "HandTransaction"


class HandGameSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='"seven-and-a-half".')
    version = serializers.CharField(
        allow_null=True,
        help_text="The released version of the rules the hand was played under (recorded when it opened); null for "
        "a hand opened before hands recorded it.",
    )
    rules_sha256 = serializers.CharField(
        allow_null=True,
        help_text="sha256 of the code that decides hands, the rules core (docs/fairness.md: "
        "`LC_ALL=C sha256sum tables/rules/*.py | sha256sum`), recorded when the hand opened; null like `version`.",
    )

    class Meta:
        ref_name = "HandGame"


class HandHistorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    game = HandGameSerializer(help_text="The game and the rules the hand was played under.")
    status = serializers.CharField(help_text="in_play, settled or abandoned.")
    rules = serializers.DictField(child=serializers.JSONField())
    seed_commitment = serializers.CharField()
    seed_committed_at = serializers.IntegerField(
        allow_null=True,
        help_text="v1.2: the seq of the event that published the commitment (null: a hand of the old form, "
        "committed as it opened).",
    )
    server_seed = serializers.CharField(allow_null=True)
    client_seed = serializers.CharField(allow_null=True, help_text="Null until the hand's first card is dealt.")
    nonce = serializers.IntegerField()
    deck = serializers.ListField(child=serializers.CharField(), allow_null=True)
    deck_reason = serializers.CharField(
        allow_null=True,
        help_text="Extension: why `deck` is null (the hand is in play, its seed was never revealed, or no card was "
        "dealt so its client seed was never fixed and no deck was shuffled); null when the deck is shown.",
    )
    banker = SeatRefSerializer()
    participants = HistoryParticipantSerializer(many=True)
    deals = DealSerializer(many=True)
    actions = ActionRecordSerializer(many=True)
    results = ResultSerializer(many=True)
    next_banker = SeatRefSerializer(allow_null=True)
    ledger = LedgerTransactionSerializer(many=True)

    class Meta:
        ref_name = "HandHistory"


class VerificationSerializer(serializers.Serializer):
    commitment = serializers.CharField(help_text='"ok" or what differs.')
    shuffle = serializers.CharField()
    replay = serializers.CharField()
    ledger = serializers.CharField()
    chain = serializers.CharField(help_text="Extension: the hash chain of the table's events up to the hand.")
    checkpoint = serializers.CharField(help_text="The table's signed checkpoints still match its hash chain.")
    deck = serializers.CharField(
        required=False,
        help_text="Extension, not a check, present only when the hand's history shows no deck: why (the same text "
        "as the history's `deck_reason`).",
    )

    class Meta:
        ref_name = "HandVerification"


class CheckpointSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The seq of the table's last event when a hand ended.")
    hash = serializers.CharField(help_text="The chain hash of that event (docs/fairness.md).")
    signature = serializers.CharField(help_text='Base64 Ed25519 signature of f"{table_id}:{version}:{hash}".')
    key_id = serializers.CharField(
        help_text="The signing key: the first 16 hex of sha256 of its raw public key (see /fairness/public-key); a "
        "checkpoint signed before key ids were derived names the key as the casino had configured it."
    )
    at = serializers.DateTimeField()

    class Meta:
        ref_name = "Checkpoint"


class CheckpointsQuery(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=2**31 - 1, help_text="Only checkpoints with version > after."
    )


class PublicKeyEntrySerializer(serializers.Serializer):
    key_id = serializers.CharField()
    public_key = serializers.CharField(help_text="Base64 of the 32 raw bytes.")
    valid_from = serializers.DateTimeField(
        allow_null=True, help_text="When the key signed its first checkpoint; null while it has signed none."
    )

    class Meta:
        ref_name = "FairnessPublicKeyEntry"


class PublicKeySerializer(serializers.Serializer):
    algorithm = serializers.CharField(help_text='"ed25519".')
    public_key = serializers.CharField(help_text="Base64 of the 32 raw bytes of the current signing key.")
    key_id = serializers.CharField(
        help_text="The current key's id, as checkpoints name it: the first 16 hex of sha256 of its 32 raw bytes."
    )
    keys = PublicKeyEntrySerializer(many=True, help_text="Every key checkpoints may name, the current one first.")

    class Meta:
        ref_name = "FairnessPublicKey"


class DisputeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    hand = serializers.IntegerField()
    reason = serializers.CharField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Dispute"




class HandExportSerializer(serializers.Serializer):
    format = serializers.CharField(help_text='"sevenhalf-hand-export/1".')
    hand = HandHistorySerializer()
    events = EventSerializer(
        many=True,
        help_text="The table's events from the one before the hand's commitment was published through the first "
        "checkpoint after the hand, as you may see them, each with its chain hash.",
    )
    checkpoints = CheckpointSerializer(many=True, help_text="The checkpoint before the hand and the one covering it.")
    public_keys = PublicKeyEntrySerializer(
        many=True, help_text="The signing keys the casino names: compare them with a key you hold."
    )
    game = HandGameSerializer(help_text="The hand's `game`, as its history shows it.")

    class Meta:
        ref_name = "HandExport"
