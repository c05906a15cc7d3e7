"""The account stream's guard pins its ``search_path`` like every other function of the schema (issue #43;
DESIGN.md, pitfalls): it names no table, but a function that runs with the caller's path is one edit away from
reading a temporary table of the caller's."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("responsible", "0004_admin_roles")]
    operations = [
        migrations.RunSQL(
            "ALTER FUNCTION public.responsible_event_refuse_change() SET search_path = pg_catalog, pg_temp",
            "ALTER FUNCTION public.responsible_event_refuse_change() RESET search_path",
        )
    ]
