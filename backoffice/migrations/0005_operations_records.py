# The records of operations: verification failures and reconciliation runs (backoffice/monitoring.py).

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0004_unlock_role"),
    ]

    operations = [
        migrations.CreateModel(
            name="ReconcileRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("ok", models.BooleanField()),
                ("differences", models.PositiveIntegerField(default=0)),
                ("seconds", models.FloatField(default=0)),
                ("source", models.CharField(max_length=20)),
                ("failed_checks", models.JSONField(default=list)),
            ],
            options={
                "ordering": ["-at", "-id"],
                "default_permissions": ("view",),
                "indexes": [models.Index(fields=["-at"], name="casino_reconcile_at_idx")],
            },
        ),
        migrations.CreateModel(
            name="VerificationFailure",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("table_id", models.BigIntegerField()),
                ("hand_id", models.BigIntegerField(blank=True, null=True)),
                ("hand_number", models.PositiveIntegerField(blank=True, null=True)),
                ("source", models.CharField(max_length=20)),
                ("checks", models.JSONField(default=dict)),
            ],
            options={
                "ordering": ["-at", "-id"],
                "default_permissions": ("view",),
                "indexes": [models.Index(fields=["-at"], name="casino_verifyfail_at_idx")],
            },
        ),
    ]
