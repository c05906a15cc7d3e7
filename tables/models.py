"""Tables: the event store (the truth), snapshots (a disposable cache) and read models (rebuildable).

The event table is append-only (database triggers refuse UPDATE, DELETE and TRUNCATE), numbered gaplessly per
stream (one stream per table) with ``UNIQUE (stream_id, version)`` as the optimistic-concurrency check, and
hash-chained per stream. ``tx_id`` (the inserting transaction's xid8) lets global readers follow the log
without skipping an event whose transaction committed late (see ``tables.store.read_all``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.fields.json import KT
from django.db.models.functions import Cast


class Table(models.Model):
    """A table: the identity of an event stream, plus its lobby read model (rebuildable from events)."""

    name = models.CharField(max_length=100)
    preset = models.CharField(max_length=20)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # --- lobby read model (projection of the stream; `manage.py rebuild_projections` recomputes it) -----------
    version = models.PositiveIntegerField(default=0)
    phase = models.CharField(max_length=20, default="waiting")
    bank = models.CharField(max_length=10, default="player")
    min_bet = models.PositiveIntegerField(default=0)
    max_bet = models.PositiveIntegerField(default=0)
    max_seats = models.PositiveSmallIntegerField(default=0)
    seats_taken = models.PositiveSmallIntegerField(default=0)
    banker_username = models.CharField(max_length=150, blank=True, default="")
    hands_played = models.PositiveIntegerField(default=0)
    # whom the table waits on, and until when (for the timeout sweeper)
    waiting_version = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    current_hand = models.ForeignKey(
        "Hand", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} ({self.preset})"


class Event(models.Model):
    """One immutable fact of a table. Never updated, never deleted (the database refuses).

    The database partitions this table by hash of ``stream_id`` and keys it by ``(stream_id, position)``
    (migration 0013, docs/scale-out.md); to Django ``position`` is the primary key, unique as one sequence
    hands it out."""

    position = models.BigAutoField(primary_key=True)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, db_column="stream_id", related_name="events")
    version = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    data = models.JSONField()
    metadata = models.JSONField(default=dict)
    recorded_at = models.DateTimeField()
    tx_id = models.BigIntegerField(editable=False, null=True)  # set by a column default: pg_current_xact_id()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["table_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="event_stream_version_unique"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="event_version_positive"),
        ]
        indexes = [
            models.Index(fields=["tx_id", "position"], name="event_global_order"),
            # timeouts per hour (dashboard): the first event of each timeout command only
            models.Index(
                fields=["recorded_at"],
                condition=models.Q(metadata__reason="timeout", metadata__has_key="command"),
                name="event_timeout_command_idx",
            ),
            # verify: where a hand's commitment was published (its SeedCommitted events, by hand number), an
            # index probe whatever the length of the table's history
            models.Index(
                models.F("table"),
                Cast(KT("data__number"), models.IntegerField()),
                condition=models.Q(type="SeedCommitted"),
                name="event_seed_committed_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} v{self.version} {self.type}"


class Snapshot(models.Model):
    """The folded state of a table at a hand boundary: a cache, rebuilt whenever missing or outdated."""

    table = models.OneToOneField(Table, on_delete=models.CASCADE, primary_key=True, related_name="snapshot")
    version = models.PositiveIntegerField()
    schema = models.CharField(max_length=64)
    state = models.JSONField()  # rules.state_to_json: plain data, decoded field by field (issue #12)
    last_hash = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"snapshot of table {self.table_id} at v{self.version}"


class Hand(models.Model):
    """Read model: one row per hand (lobby history, filters in the admin, `/me/hands`)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField()
    preset = models.CharField(max_length=20)
    status = models.CharField(max_length=20, default="in_play")  # in_play | settled | abandoned
    opened_version = models.PositiveIntegerField()
    closed_version = models.PositiveIntegerField(null=True, blank=True)
    opened_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    seed_commitment = models.CharField(max_length=64)
    banker_username = models.CharField(max_length=150, blank=True, default="")
    house_banked = models.BooleanField(default=False)
    banker_net = models.BigIntegerField(null=True, blank=True)
    disputed = models.BooleanField(default=False)
    # cache for verification: the table state before the command that opened the hand (rebuildable)
    start_version = models.PositiveIntegerField(null=True, blank=True)
    start_schema = models.CharField(max_length=64, blank=True, default="")
    start_state = models.JSONField(null=True, blank=True, editable=False)  # rules.state_to_json
    verified_at = models.DateTimeField(null=True, blank=True)
    verified_ok = models.BooleanField(null=True, blank=True)
    # the rules it was dealt under (gamemath.release), set when it opens, never changed (a trigger); empty: a
    # hand opened before hands recorded them (the API says null)
    rules_version = models.CharField(max_length=20, blank=True, db_default="", editable=False)
    rules_sha256 = models.CharField(max_length=64, blank=True, db_default="", editable=False)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="hand_table_number_unique")]
        indexes = [
            models.Index(fields=["rules_version", "rules_sha256"], name="hand_rules_release_idx"),
            # the dashboard's hands per hour (an index-only scan) and the admin's date filter
            models.Index(fields=["opened_at"], include=["preset", "house_banked"], name="hand_opened_at_idx"),
            # the dashboard's house net per day
            models.Index(
                fields=["settled_at"],
                include=["preset", "banker_net"],
                condition=models.Q(house_banked=True),
                name="hand_house_settled_idx",
            ),
            # the admin's rare filters: hands in play, disputed hands, failed verifications
            models.Index(fields=["-id"], condition=models.Q(status="in_play"), name="hand_in_play_idx"),
            models.Index(fields=["-id"], condition=models.Q(disputed=True), name="hand_disputed_idx"),
            models.Index(fields=["-id"], condition=models.Q(verified_ok=False), name="hand_verify_failed_idx"),
        ]

    def __str__(self) -> str:
        return f"hand {self.pk} (table {self.table_id} #{self.number})"


class HandParticipant(models.Model):
    """Read model: each player's index of the hands he took part in."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hand_entries")
    seat = models.PositiveSmallIntegerField(null=True)
    role = models.CharField(max_length=10)  # banker | punter
    net = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-hand_id"]
        constraints = [models.UniqueConstraint(fields=["hand", "user"], name="hand_participant_unique")]

    def __str__(self) -> str:
        return f"{self.role} in hand {self.hand_id}"


class TableSeat(models.Model):
    """Read model: who sits where (to find a player's tables)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seat_rows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_seats")
    seat = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "user"], name="table_seat_user_unique")]

    def __str__(self) -> str:
        return f"user {self.user_id} at table {self.table_id} seat {self.seat}"


class IdempotencyRecord(models.Model):
    """A POST with an Idempotency-Key: the first response, returned again for a repeat with the same body."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_user_key_unique")]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_idx")]  # the retention purge

    def __str__(self) -> str:
        return f"idempotency key {self.key!r} of user {self.user_id}"


class Dispute(models.Model):
    """A participant disputes a hand; an operator resolves it (with a compensating entry if chips are owed)."""

    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="disputes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="disputes")
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, default="open")  # gamemath.enums.DisputeStatus: open | resolved
    resolution = models.TextField(blank=True, default="")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    correction_transaction_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"dispute {self.pk} on hand {self.hand_id} ({self.status})"


class PlayerProfile(models.Model):
    """A player's settings for the game: the client seed mixed into the shuffle of hands he joins."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_profile")
    client_seed = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"profile of user {self.user_id}"


class Checkpoint(models.Model):
    """A signed checkpoint of a table's hash chain (API.md): ``f"{table}:{version}:{hash}"`` (since v1.3 with the
    events' hash forms and the digest of the table's facts) signed with the Ed25519 key ``key_id`` when a hand
    ended. The key lives outside the database, so a history rewritten later,
    even by someone who can write every row, no longer matches the checkpoints already published."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="checkpoints")
    version = models.PositiveIntegerField()
    hash = models.CharField(max_length=64)
    key_id = models.CharField(max_length=40)
    signature = models.CharField(max_length=100)  # base64 of the 64-byte Ed25519 signature
    at = models.DateTimeField()
    # v1.3, signed with the version and hash (gamemath.chainhash.checkpoint_message); null on older checkpoints:
    # every event's hash form up to the version ("1@1,2@120,3@480"), and the table's facts at it and their digest
    hash_forms = models.TextField(null=True, blank=True)  # noqa: DJ001 - null: signed before v1.3, not empty
    facts_sha256 = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001 - the same
    signed_facts = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["table", "version"]
        constraints = [models.UniqueConstraint(fields=["table", "version"], name="checkpoint_table_version_unique")]
        # a key's first use is its `valid_from` on GET /fairness/public-key (anyone may ask: an index, no scan)
        indexes = [models.Index(fields=["key_id", "at"], name="checkpoint_key_first_use")]

    def __str__(self) -> str:
        return f"checkpoint of table {self.table_id} at v{self.version}"


class KeyInService(models.Model):
    """When a checkpoint-signing key was put in service (its ``valid_from`` on ``GET /fairness/public-key``,
    API.md v1.3): the first moment the casino published it as its current key or signed with it, whichever came
    first. Append-only; written by a trigger on every checkpoint (the name the checkpoint gives its key) and by the
    first publication of a current key (``tables.key_service``)."""

    key_id = models.CharField(max_length=40, primary_key=True)
    valid_from = models.DateTimeField()

    def __str__(self) -> str:
        return f"key {self.key_id} in service from {self.valid_from:%Y-%m-%d %H:%M:%S}"
