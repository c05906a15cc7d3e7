"""Separation of duties (issue #43, DESIGN.md principle 17): what the application role may not do to accounts.

- ``auth_user``: a row inserted by anyone but the table's owner (or a superuser) is neither staff nor superuser
  (the trigger below). With the grants of backoffice/dbroles.py (UPDATE on ``last_login`` only), the application
  role cannot make an account staff or superuser, set a password or (de)activate an account: staff are made with
  ``manage.py staff_account`` as the owner.
- API tokens: the application role inserts none itself; ``accounts_issue_token`` (SECURITY DEFINER, owned by the
  owner, ``search_path`` pinned, tables schema-qualified) inserts one for an active account that is neither staff
  nor superuser. The database cannot tell a sign-in from a forgery, so an operator's credential is never something
  the application role can make: staff use their admin session (docs/security.md, "API tokens").
- A password changed (by the owner: the application role may not) revokes every API token of its account, in the
  database, whoever changes it.
"""

from django.db import migrations

PATH = "SET search_path = pg_catalog, pg_temp"

FORWARD = f"""
CREATE FUNCTION public.auth_user_refuse_privileged_insert() RETURNS trigger LANGUAGE plpgsql {PATH} AS $$
BEGIN
    IF (NEW.is_staff OR NEW.is_superuser) AND NOT pg_has_role(
        current_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = TG_RELID), 'USAGE'
    ) THEN
        RAISE EXCEPTION 'auth_user: a staff or superuser account made by % refused (only the owner makes staff)',
            current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER auth_user_privileged_insert_by_owner_only
    BEFORE INSERT ON public.auth_user
    FOR EACH ROW EXECUTE FUNCTION public.auth_user_refuse_privileged_insert();

CREATE FUNCTION public.auth_user_password_change_revokes_tokens() RETURNS trigger LANGUAGE plpgsql {PATH} AS $$
BEGIN
    DELETE FROM public.knox_authtoken WHERE user_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER auth_user_password_change_revokes_tokens
    AFTER UPDATE OF password ON public.auth_user
    FOR EACH ROW WHEN (OLD.password IS DISTINCT FROM NEW.password)
    EXECUTE FUNCTION public.auth_user_password_change_revokes_tokens();

CREATE FUNCTION public.accounts_issue_token(
    p_user integer, p_digest text, p_token_key text, p_expiry timestamptz
) RETURNS void LANGUAGE plpgsql SECURITY DEFINER {PATH} AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM public.auth_user u
        WHERE u.id = p_user AND u.is_active AND NOT u.is_staff AND NOT u.is_superuser
    ) THEN
        RAISE EXCEPTION 'accounts_issue_token: no token for account % refused (inactive, staff or unknown)', p_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO public.knox_authtoken (digest, token_key, user_id, created, expiry)
    VALUES (p_digest, p_token_key, p_user, pg_catalog.now(), p_expiry);
END
$$;
"""

REVERSE = """
DROP FUNCTION public.accounts_issue_token(integer, text, text, timestamptz);
DROP TRIGGER auth_user_password_change_revokes_tokens ON public.auth_user;
DROP FUNCTION public.auth_user_password_change_revokes_tokens();
DROP TRIGGER auth_user_privileged_insert_by_owner_only ON public.auth_user;
DROP FUNCTION public.auth_user_refuse_privileged_insert();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0005_operations_records"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("knox", "0009_extend_authtoken_field"),
    ]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
