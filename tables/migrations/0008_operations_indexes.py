# Indexes of the operations work (docs/operations.md): the dashboard's figures, the admin's rare filters and
# the idempotency retention purge. Built CONCURRENTLY: the event and hand tables may be large and live.

from django.conf import settings
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("tables", "0007_snapshots_as_json"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="event",
            index=models.Index(
                condition=models.Q(("metadata__has_key", "command"), ("metadata__reason", "timeout")),
                fields=["recorded_at"],
                name="event_timeout_command_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="hand",
            index=models.Index(fields=["opened_at"], include=("preset", "house_banked"), name="hand_opened_at_idx"),
        ),
        AddIndexConcurrently(
            model_name="hand",
            index=models.Index(
                condition=models.Q(("house_banked", True)),
                fields=["settled_at"],
                include=("preset", "banker_net"),
                name="hand_house_settled_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="hand",
            index=models.Index(condition=models.Q(("status", "in_play")), fields=["-id"], name="hand_in_play_idx"),
        ),
        AddIndexConcurrently(
            model_name="hand",
            index=models.Index(condition=models.Q(("disputed", True)), fields=["-id"], name="hand_disputed_idx"),
        ),
        AddIndexConcurrently(
            model_name="hand",
            index=models.Index(
                condition=models.Q(("verified_ok", False)), fields=["-id"], name="hand_verify_failed_idx"
            ),
        ),
        AddIndexConcurrently(
            model_name="idempotencyrecord",
            index=models.Index(fields=["created_at"], name="idempotency_created_idx"),
        ),
    ]
