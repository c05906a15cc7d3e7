"""The operator and auditor groups learn the responsible-gaming page (tables/admin/roles.py)."""

from django.db import migrations

from tables.admin.roles import sync_roles


def forwards(apps, schema_editor):
    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [("responsible", "0003_permissions"), ("casino", "0002_admin_roles")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
