"""The roles as tables/admin/roles.py now says: auditors read the sign-in records of django-axes, operators may
also delete an access attempt (which unlocks a locked sign-in)."""

from django.db import migrations

from tables.admin.roles import sync_roles


def forwards(apps, schema_editor):
    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0003_drop_plaintext_tokens"),
        ("axes", "0010_accessattemptexpiration"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
