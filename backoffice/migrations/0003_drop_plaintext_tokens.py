"""API tokens are now django-rest-knox's, stored hashed (kit/authentication.py). The table of DRF's
plain-text tokens, left behind by an installation that had ``rest_framework.authtoken``, is dropped: its keys
would otherwise stay readable to anyone who reads the database. Clients sign in again (``POST /auth/token``)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0002_admin_roles"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [
        migrations.RunSQL(
            "DROP TABLE IF EXISTS authtoken_token CASCADE",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.RunSQL(
            "DELETE FROM django_migrations WHERE app = 'authtoken'",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
