"""Which rules dealt each hand (API.md "Hand history": ``game``; docs/fairness.md, "Which rules dealt a hand").

A hand records the released version of the rules and the digest of the rules core (``gamemath.release``) of
the process that opened it, once: the database refuses any later change of either, so a later release can never
rewrite which rules an old hand was played under. Hands opened before this migration have neither (empty): their
history says null, the version is unknown, rather than guess it.
"""

from django.db import migrations, models

FORWARD = """
CREATE FUNCTION public.tables_hand_game_is_fixed() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'tables_hand: hand % was opened under rules % (%); that cannot change',
        OLD.id, OLD.rules_version, OLD.rules_sha256 USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER tables_hand_game_is_fixed
    BEFORE UPDATE OF rules_version, rules_sha256 ON public.tables_hand FOR EACH ROW
    WHEN (OLD.rules_version IS DISTINCT FROM NEW.rules_version OR OLD.rules_sha256 IS DISTINCT FROM NEW.rules_sha256)
    EXECUTE FUNCTION public.tables_hand_game_is_fixed();
"""

REVERSE = """
DROP TRIGGER tables_hand_game_is_fixed ON public.tables_hand;
DROP FUNCTION public.tables_hand_game_is_fixed();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0013_event_partitions")]
    operations = [
        migrations.AddField(
            model_name="hand",
            name="rules_version",
            field=models.CharField(max_length=20, blank=True, db_default="", editable=False),
        ),
        migrations.AddField(
            model_name="hand",
            name="rules_sha256",
            field=models.CharField(max_length=64, blank=True, db_default="", editable=False),
        ),
        migrations.RunSQL(FORWARD, REVERSE),
        # the operators' list of every version that ever dealt a hand (the admin's filter)
        migrations.AddIndex(
            model_name="hand",
            index=models.Index(fields=["rules_version", "rules_sha256"], name="hand_rules_release_idx"),
        ),
    ]
