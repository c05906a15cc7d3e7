"""Issue #43, "undoes controls": what whoever holds the application's database role (``DATABASE_URL``, what web,
live, workers and beat connect as) tried, each done as that role and each failing (DESIGN.md principle 17).

- make any account a superuser or staff, or set a password (UPDATE on ``auth_user``); insert a superuser of his
  own; put an account in the operators' group or give the auditors' group the cashier's permission;
- mint an API token for an operator;
- delete the audit log (57/57 lines) and the verification alerts (3/3);
- lift a self-exclusion by editing the cached responsible-gaming state: sign-in 403 -> 200 and a bet accepted.

And the pitfall of DESIGN.md: every PL/pgSQL function of the schema pins its ``search_path``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DatabaseError, connection, transaction
from knox.crypto import hash_token
from rest_framework.test import APIClient

from backoffice.models import VerificationFailure
from rules import DomainError
from tables import services as table_services
from tables.admin.roles import AUDITOR, OPERATOR
from tests.support.admin_fixtures import PASSWORD, signed_in
from tests.support.api_helpers import assert_error
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)

REFUSED = r"permission denied|refused"


def _refused(statement: str, params: list[Any] | None = None) -> None:
    with pytest.raises(DatabaseError, match=REFUSED), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def _one(statement: str, params: list[Any] | None = None) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    "change",
    [
        "is_superuser = true",
        "is_staff = true",
        "password = 'md5$x$0123456789abcdef0123456789abcdef'",
        "is_active = true",
    ],
)
def test_the_application_role_changes_no_privilege_and_no_password(player: Any, operator: Any, change: str) -> None:
    before = _one("SELECT row_to_json(u)::text FROM auth_user u WHERE id = %s", [player.pk])
    _refused(f"UPDATE auth_user SET {change} WHERE id = %s", [player.pk])
    _refused(f"UPDATE auth_user SET {change}")
    assert _one("SELECT row_to_json(u)::text FROM auth_user u WHERE id = %s", [player.pk]) == before


@pytest.mark.parametrize(("staff", "superuser"), [(True, True), (True, False), (False, True)])
def test_the_application_role_inserts_no_staff_or_superuser(staff: bool, superuser: bool) -> None:
    _refused(
        "INSERT INTO auth_user (username, password, is_staff, is_superuser, is_active, first_name, last_name, "
        "email, date_joined) VALUES ('mallory2', 'md5$x$0123456789abcdef0123456789abcdef', %s, %s, true, '', '', "
        "'', now())",
        [staff, superuser],
    )
    assert not get_user_model().objects.filter(username="mallory2").exists()


def test_the_application_role_grants_no_group_and_no_permission(player: Any, auditor: Any) -> None:
    operators, auditors = Group.objects.get(name=OPERATOR), Group.objects.get(name=AUDITOR)
    cashier = operators.permissions.get(codename="use_cashier")
    _refused("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)", [auditor.pk, operators.pk])
    _refused("UPDATE auth_user_groups SET group_id = %s WHERE user_id = %s", [operators.pk, auditor.pk])
    _refused(
        "INSERT INTO auth_user_user_permissions (user_id, permission_id) VALUES (%s, %s)", [auditor.pk, cashier.pk]
    )
    _refused("INSERT INTO auth_group_permissions (group_id, permission_id) VALUES (%s, %s)", [auditors.pk, cashier.pk])
    auditor.refresh_from_db()
    assert not get_user_model().objects.get(pk=auditor.pk).has_perm("casino.use_cashier")


def test_the_application_role_mints_no_token_for_an_operator(operator: Any, anon: APIClient) -> None:
    """The attack: a token row with a digest of the attacker's choosing, then the cashier's API with it."""
    key = "ab" * 32
    _refused(
        "INSERT INTO knox_authtoken (digest, token_key, user_id, created, expiry) VALUES (%s, %s, %s, now(), "
        "now() + interval '1 day')",
        [hash_token(key), key[:15], operator.pk],
    )
    anon.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert_error(anon.get("/api/v1/me"), 401, "not_authenticated")


def test_the_application_role_deletes_no_audit_line_and_no_alert(operator: Any) -> None:
    for n in range(57):
        LogEntry.objects.log_actions(
            user_id=operator.pk, queryset=[operator], action_flag=ADDITION, change_message=f"line {n}"
        )
    for n in range(3):
        VerificationFailure.objects.create(table_id=1, hand_id=None, hand_number=n, checks={"chain": "x"}, source="t")
    for statement in (
        "DELETE FROM django_admin_log",
        "UPDATE django_admin_log SET change_message = 'nothing happened'",
        "DELETE FROM casino_verificationfailure",
        "UPDATE casino_verificationfailure SET checks = '{}'",
    ):
        _refused(statement)
    assert LogEntry.objects.count() == 57 and VerificationFailure.objects.count() == 3
    assert set(LogEntry.objects.values_list("change_message", flat=True)) == {f"line {n}" for n in range(57)}


def test_editing_the_cached_state_lifts_no_self_exclusion(
    player: Any, house_table: tuple[APIClient, int], anon: APIClient
) -> None:
    """The attack of the issue: the exclusion is erased from the account row (its state, its copies); sign-in is
    still 403 and a seat still refused, because the gate reads the state the account stream itself carries."""
    client, table = house_table
    ok(client.post("/api/v1/me/exclusion", {"kind": "self_exclusion", "days": 180}, format="json"), 201)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE responsible_gamingaccount SET state = '{}'::jsonb, excluded_until = NULL, has_limits = false "
            "WHERE user_id = %s",
            [player.pk],
        )
    credentials = {"username": player.username, "password": "correct horse 42"}
    assert_error(anon.post("/api/v1/auth/token", credentials, format="json"), 403, "excluded")
    with pytest.raises(DomainError) as raised:
        table_services.table_sit(table_id=table, user=player)
    assert raised.value.code == "excluded"


@pytest.mark.parametrize("role", ["operator", "superuser"])
def test_the_admin_changes_no_staff_password_and_offers_no_page_that_would(role: str, make_staff: Any) -> None:
    """Django's "Change password" page would send the UPDATE the application role may not: it answers 403 with
    the reason, writes nothing, and the admin's pages no longer link to it."""
    user = make_staff(role)
    before = _one("SELECT password FROM auth_user WHERE id = %s", [user.pk])
    client = signed_in(user)
    assert b"password_change" not in client.get("/admin/").content
    assert client.get("/admin/password_change/").status_code == 403
    new = "another horse 43"
    answer = client.post(
        "/admin/password_change/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert answer.status_code == 403
    assert _one("SELECT password FROM auth_user WHERE id = %s", [user.pk]) == before


def test_every_plpgsql_function_pins_its_search_path() -> None:
    """A function that names its tables runs with the caller's ``search_path`` unless it pins its own: a
    temporary table of the same name would then be the one it reads (DESIGN.md, pitfalls)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
            "WHERE p.pronamespace = current_schema()::regnamespace AND l.lanname IN ('plpgsql', 'sql') "
            "AND NOT EXISTS (SELECT 1 FROM unnest(coalesce(p.proconfig, '{}')) c WHERE c LIKE 'search_path=%%') "
            "ORDER BY 1"
        )
        unpinned = [row[0] for row in cursor.fetchall()]
    assert unpinned == []


def test_a_database_reader_replays_no_admin_session(operator: Any) -> None:
    """The operator signs in to the admin; whoever reads ``django_session`` (the application's role, a backup)
    sends every stored key as the session cookie and gets the login page. The operator's own cookie still works,
    and his logout ends the session at once."""
    from django.test import Client

    from tests.support.admin_fixtures import PASSWORD

    browser = Client()
    signed_in = browser.post("/admin/login/", {"username": operator.username, "password": PASSWORD})
    assert signed_in.status_code == 302
    assert browser.get("/admin/").status_code == 200
    stored = [row[0] for row in _rows("SELECT session_key FROM django_session")]
    assert stored and browser.cookies["sessionid"].value not in stored
    for key in stored:
        thief = Client()
        thief.cookies["sessionid"] = key
        assert thief.get("/admin/").status_code == 302  # to the login page
    browser.post("/admin/logout/")
    assert _rows("SELECT session_key FROM django_session") == []


def _rows(statement: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(statement)
        return list(cursor.fetchall())


def test_the_owner_sets_a_staff_password_with_an_audit_line(operator: Any, monkeypatch: Any) -> None:
    """The permitted path (issue #43): ``manage.py staff_password`` as the owner role, audited; the application
    role still may not (``test_the_application_role_changes_no_privilege_and_no_password``)."""
    from io import StringIO

    from django.core.management import CommandError, call_command

    monkeypatch.setenv("STAFF_PASSWORD", "a new and long passphrase 7")
    out = StringIO()
    call_command("staff_password", operator.username, stdout=out)
    assert "set" in out.getvalue()
    stored = get_user_model().objects.get(pk=operator.pk)
    assert stored.check_password("a new and long passphrase 7") and not stored.check_password(PASSWORD)
    line = LogEntry.objects.get(user_id=operator.pk, object_id=str(operator.pk))
    assert line.change_message == "Password set by the owner role (manage.py staff_password)."
    with pytest.raises(CommandError, match="no staff account"):
        call_command("staff_password", "nobody-at-all")
    monkeypatch.setenv("STAFF_PASSWORD", "short")
    with pytest.raises(CommandError):
        call_command("staff_password", operator.username)
