"""A checkpoint signs the hash forms of the events it covers and the table's facts at its version (API.md v1.3,
issue #42): a verifier reads both from a signature, never from the file that brings them. Older checkpoints keep
their signatures over ``"{table}:{version}:{hash}"`` and have neither (null)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tables", "0014_hand_game_release")]
    operations = [
        migrations.AddField(model_name="checkpoint", name="hash_forms", field=models.TextField(blank=True, null=True)),
        migrations.AddField(
            model_name="checkpoint", name="facts_sha256", field=models.CharField(blank=True, max_length=64, null=True)
        ),
        migrations.AddField(
            model_name="checkpoint", name="signed_facts", field=models.JSONField(blank=True, null=True)
        ),
    ]
