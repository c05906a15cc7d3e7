"""The Player proxy model (admin section and the use_cashier permission); no table of its own."""

import django.contrib.auth.models
from django.db import migrations


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="Player",
            fields=[],
            options={
                "verbose_name": "player",
                "verbose_name_plural": "players",
                "permissions": [("use_cashier", "Can deposit and withdraw chips at the cage")],
                "proxy": True,
                "default_permissions": ("view",),
                "indexes": [],
                "constraints": [],
            },
            bases=("auth.user",),
            managers=[
                ("objects", django.contrib.auth.models.UserManager()),
            ],
        ),
    ]
