"""The auditor and operator groups may read the stored audits (tables/admin/roles.py READABLE)."""

from django.db import migrations

from tables.admin.roles import sync_roles


def forwards(apps, schema_editor):
    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("certify", "0001_initial"),
        ("lab", "0002_admin_roles"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
