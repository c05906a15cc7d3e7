"""Nobody reads a secret through the admin's URLs (issue 11).

Django's changelists filter on any field named in the query string unless ``lookup_allowed`` says otherwise, so
``?data__server_seed__startswith=<prefix>`` answers "is the seed of this hand in play ...?" one character at a
time. These tests are the attacks, run as the auditor and as the operator: the seed oracle on the event store,
the same on command contexts and face-down cards, the password-hash oracle on the players list, and a walk over
every registered admin trying every path to a secret it can reach. Every one must be refused (400) and leak
nothing; ordering and search must not reach a secret either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Field, ForeignObjectRel, Model
from django.test import Client
from django.urls import reverse

from kit.admin_lookups import SECRET_FIELDS, DeclaredLookupsOnly, sortable_targets
from tables import loader
from tables.models import Event, Hand
from tables.store import load_stream
from tests.support.admin_fixtures import play_table, play_until_face_down_in_play, secret_seed_and_deck

pytestmark = pytest.mark.django_db

HEX = "0123456789abcdef"


@dataclass
class HandInPlay:
    hand: Hand
    seed: str  # the server seed of the hand in play
    face_down: str  # a face-down card of the hand in play
    opened_event: Event  # its HandOpened event
    command_event: Event  # the first event of the command that opened it (its metadata holds the entropy)
    card_event: Event  # the CardDealt event of the face-down card


@pytest.fixture
def in_play(db) -> HandInPlay:
    played = play_table("classic", hands=1, seed=11, prefix="lk")
    state = play_until_face_down_in_play(played)
    hand = Hand.objects.get(table=played.table, number=state.hand.number)
    stream = {e.version: e for e in load_stream(played.table.pk)}
    opened = next(e for e in stream.values() if e.type == "HandOpened" and e.data["number"] == hand.number)
    dealt = next(
        e
        for e in stream.values()
        if e.type == "CardDealt" and e.version > opened.version and e.data.get("face_up") is False
    )
    return HandInPlay(
        hand=hand,
        seed=secret_seed_and_deck(played.table.pk, state)[0],  # sealed at rest: in no event at all
        face_down=loader.decode(dealt).card,  # sealed at rest (stored card null): opened with the key
        opened_event=Event.objects.get(table=played.table, version=opened.version),
        command_event=Event.objects.get(table=played.table, version=opened.metadata["command_version"]),
        card_event=Event.objects.get(table=played.table, version=dealt.version),
    )


@pytest.fixture(params=["auditor", "operator"])
def staff(request, make_staff) -> tuple[Client, object]:
    user = make_staff(request.param)
    client = Client()
    client.force_login(user)
    return client, user


def _listed(html: str, event: Event) -> bool:
    return f"/admin/tables/event/{event.pk}/change/" in html


def _extract_hex(client: Client, url_for, event: Event, length: int) -> tuple[str, list[int]]:
    """The attack: grow a prefix one hex digit at a time, keeping the digit for which ``event`` is listed."""
    found, statuses = "", []
    for _ in range(length):
        for digit in HEX:
            response = client.get(url_for(found + digit))
            statuses.append(response.status_code)
            if response.status_code == 200 and _listed(response.content.decode(), event):
                found += digit
                break
        else:
            break
    return found, statuses


# --- the attacks of the issue, as they were done -----------------------------------------------------------------


def test_the_auditor_cannot_read_the_seed_of_a_hand_in_play_one_digit_at_a_time(staff, in_play):
    client, _ = staff
    table = in_play.hand.table_id

    def url(prefix: str) -> str:
        return f"/admin/tables/event/?type=HandOpened&table={table}&data__server_seed__startswith={prefix}"

    found, statuses = _extract_hex(client, url, in_play.opened_event, 4)
    assert found == ""
    assert set(statuses) == {400}
    # the whole seed, asked outright, is refused the same way
    whole = client.get(f"/admin/tables/event/?table={table}&data__server_seed={in_play.seed}")
    assert whole.status_code == 400 and in_play.seed not in whole.content.decode()


def test_the_opening_commands_entropy_is_no_oracle_either(staff, in_play):
    client, _ = staff
    table = in_play.hand.table_id

    for where in ("context", "command__ctx"):  # recorded beside the command (inside it, as ctx, in older rows)

        def url(prefix: str, where: str = where) -> str:
            return f"/admin/tables/event/?table={table}&metadata__{where}__entropy__startswith={prefix}"

        found, statuses = _extract_hex(client, url, in_play.command_event, 3)
        assert found == "" and set(statuses) == {400}


def test_a_face_down_card_of_a_hand_in_play_is_no_oracle(staff, in_play):
    client, _ = staff
    table = in_play.hand.table_id
    for card in (in_play.face_down, "1O"):
        response = client.get(f"/admin/tables/event/?table={table}&type=CardDealt&data__card={card}")
        assert response.status_code == 400
        response = client.get(f"/admin/tables/event/?table={table}&data__face_up=false&data__card__startswith={card}")
        assert response.status_code == 400


def test_the_password_hash_of_a_staff_user_is_no_oracle(staff, make_staff):
    client, _ = staff
    victim = make_staff("operator")
    stored = get_user_model().objects.get(pk=victim.pk).password
    algorithm = stored.split("$", 1)[0]
    for url in (
        f"/admin/casino/player/?username={victim.username}&password__regex=^{algorithm}",
        f"/admin/casino/player/?username={victim.username}&password__startswith={stored[:12]}",
        f"/admin/casino/player/?password={stored}",
        f"/admin/auth/user/?username={victim.username}&password__startswith={stored[:12]}",
    ):
        response = client.get(url)
        assert response.status_code == 400, url
        assert stored[len(algorithm) + 1 :] not in response.content.decode()


def test_a_declared_filter_still_works(as_auditor, in_play):
    """Refusing undeclared lookups keeps every filter the pages offer, and the links the admin draws itself."""
    hand = in_play.hand
    urls = [
        f"/admin/tables/event/?table={hand.table_id}&type=HandOpened",
        f"/admin/tables/hand/?table__id__exact={hand.table_id}&status=in_play",
        "/admin/tables/hand/?outcome=in_play&verified=no&disputed__exact=0",
        f"/admin/tables/hand/?opened_at__year={hand.opened_at.year}&opened_at__month={hand.opened_at.month}",
        "/admin/tables/hand/?preset=classic&opened_at__gte=2020-01-01",
        "/admin/casino/player/?is_active__exact=1",  # staff are not players: no is_staff filter there
        "/admin/tables/table/?phase=punters&q=classic",
        "/admin/ledger/account/?kind__exact=player",
        "/admin/ledger/posting/?account__id__exact=1&account__kind__exact=player",
        "/admin/admin/logentry/?action_flag__exact=1",
    ]
    for url in urls:
        assert as_auditor.get(url).status_code == 200, url


# --- every admin of the project, every path to a secret ------------------------------------------------------------


def _secret_paths(model: type[Model], depth: int = 2) -> Iterator[tuple[str, type[Model], str]]:
    """``(lookup path, model holding the secret, field)`` for every secret field reachable from ``model`` over at
    most ``depth`` relations (forward and reverse)."""
    seen: set[tuple[str, str]] = set()

    def walk(current: type[Model], prefix: str, left: int) -> Iterator[tuple[str, type[Model], str]]:
        for field in current._meta.get_fields():
            name = field.name if not isinstance(field, ForeignObjectRel) else (field.related_query_name or "")
            if not name or name.endswith("+"):
                continue
            path = f"{prefix}{name}"
            if (current._meta.concrete_model, field.name) in SECRET_FIELDS and isinstance(field, Field):
                key = (path, field.name)
                if key not in seen:
                    seen.add(key)
                    yield path, current, field.name
            elif field.is_relation and left > 0 and field.related_model is not None:
                yield from walk(field.related_model, f"{path}__", left - 1)

    yield from walk(model, "", depth)


def _attacks(path: str, model: type[Model], field: str, secrets: HandInPlay, password: str) -> list[str]:
    if model is Event and field == "data":
        return [
            f"{path}__server_seed__startswith={secrets.seed[:2]}",
            f"{path}__server_seed={secrets.seed}",
            f"{path}__card={secrets.face_down}",
            f"{path}__card__regex=^{secrets.face_down[0]}",
            f"{path}__contains=%7B%22server_seed%22%3A%22{secrets.seed}%22%7D",
        ]
    if model is Event and field == "metadata":
        return [
            f"{path}__context__entropy__startswith={secrets.seed[:2]}",
            f"{path}__context__entropy={secrets.seed}",
            f"{path}__command__ctx__entropy__startswith={secrets.seed[:2]}",
            f"{path}__command__ctx__entropy={secrets.seed}",
        ]
    if field == "password":
        return [f"{path}__regex=^{password[:3]}", f"{path}__startswith={password[:12]}", f"{path}={password}"]
    return [f"{path}__isnull=false", f"{path}__startswith=a", f"{path}__regex=^a"]


def test_every_admin_refuses_every_lookup_that_reaches_a_secret(staff, in_play):
    client, user = staff
    password = get_user_model().objects.get(pk=user.pk).password
    tried = 0
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, DeclaredLookupsOnly), f"{type(model_admin).__name__} lacks the mixin"
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        if client.get(url).status_code != 200:
            continue  # this role may not read the page at all
        for path, holder, field in _secret_paths(model):
            for query in _attacks(path, holder, field, in_play, password):
                response = client.get(f"{url}?{query}")
                tried += 1
                assert response.status_code == 400, (url, query, response.status_code)
                body = response.content.decode()
                assert in_play.seed not in body and password not in body, (url, query)
    assert tried > 50  # the event store, hands, tables, players, users, the ledger: all reach a secret


def test_no_admin_searches_or_sorts_by_a_secret():
    for model, model_admin in admin.site._registry.items():
        name = type(model_admin).__name__
        for field in model_admin.search_fields:
            parts = field.lstrip("=^@").split("__")
            assert not _reaches_secret(model, parts), (name, field)
        for target in sortable_targets(model_admin):
            assert not _reaches_secret(model, target.lstrip("-").split("__")), (name, target)


def _reaches_secret(model: type[Model], parts: list[str]) -> bool:
    current: type[Model] | None = model
    for part in parts:
        if current is None:
            return False
        try:
            field = current._meta.get_field(part)
        except Exception:
            return False
        if (current._meta.concrete_model, field.name) in SECRET_FIELDS:
            return True
        current = field.related_model if field.is_relation else None
    return False


def test_sorting_by_any_column_never_orders_by_a_secret(staff, in_play):
    client, _ = staff
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        if client.get(url).status_code != 200:
            continue
        for index in range(len(model_admin.list_display)):
            for order in (str(index), f"-{index}"):
                response = client.get(f"{url}?o={order}")
                assert response.status_code == 200, (url, order)
                assert in_play.seed not in response.content.decode()


def test_other_url_tricks_on_the_event_store_and_the_hand_page_show_no_secret(staff, in_play):
    client, _ = staff
    seed, table = in_play.seed, in_play.hand.table_id
    for url in (
        f"/admin/tables/event/?table={table}&q={seed[:8]}",  # no search fields: the term is ignored
        f"/admin/tables/event/?table={table}&_facets=1",
        f"/admin/tables/event/?table={table}&o=-3.2&all=",
        f"/admin/tables/event/?table={table}&_to_field=data",
        f"/admin/tables/event/{in_play.opened_event.pk}/change/?_to_field=data",
        # preserved filters are echoed back in the page's links, never applied
        f"/admin/tables/event/{in_play.opened_event.pk}/change/?_changelist_filters=data__server_seed%3Dab",
        f"/admin/tables/hand/{in_play.hand.pk}/change/?step=999999",
        f"/admin/tables/hand/{in_play.hand.pk}/change/?step=-1",
        f"/admin/tables/hand/?q={seed[:8]}",
    ):
        response = client.get(url)
        assert response.status_code in (200, 302, 400), (url, response.status_code)
        body = response.content.decode()
        assert seed not in body and seed[:16] not in body, url
        assert f'data-card="{in_play.face_down}"' not in body or url.endswith("/tables/event/?table=" + str(table))
