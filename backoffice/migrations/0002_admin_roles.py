"""The "auditor" and "operator" groups with their permissions (see tables/admin/roles.py)."""

from django.db import migrations

from tables.admin.roles import remove_roles, sync_roles


def forwards(apps, schema_editor):
    sync_roles(apps)


def backwards(apps, schema_editor):
    remove_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0001_player"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("tables", "0005_hand_start_cache"),
        ("ledger", "0003_truncate_always_refused"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
