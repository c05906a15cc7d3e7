"""Fixtures of the admin tests: the two staff roles, real hands played through the services, signed-in clients."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group
from django.test import Client

from rules import TableState, Viewer, card_visible
from tables import services
from tables.admin.roles import AUDITOR, OPERATOR, sync_roles
from tables.disputes import hand_dispute_open
from tables.models import Dispute, Hand, Table
from tests.support.play import make_players, make_table, play_hands, state_of, step
from tests.support.staff import staff_user

PASSWORD = "correct horse 42"
_names = itertools.count(1)


@pytest.fixture
def roles(db: Any) -> dict[str, Group]:
    """The groups as the data migration makes them (a transactional test's flush empties auth_group)."""
    sync_roles(apps)
    return {name: Group.objects.get(name=name) for name in (AUDITOR, OPERATOR)}


@pytest.fixture
def make_staff(roles: dict[str, Group]) -> Callable[[str], AbstractBaseUser]:
    """A staff user in the group ``role`` (``"superuser"`` for a superuser), with the password ``PASSWORD``."""

    def make(role: str) -> AbstractBaseUser:
        return staff_user(f"{role}{next(_names)}", role, password=PASSWORD)

    return make


@pytest.fixture
def auditor(make_staff: Callable[[str], AbstractBaseUser]) -> AbstractBaseUser:
    return make_staff(AUDITOR)


@pytest.fixture
def operator(make_staff: Callable[[str], AbstractBaseUser]) -> AbstractBaseUser:
    return make_staff(OPERATOR)


@pytest.fixture
def superuser(make_staff: Callable[[str], AbstractBaseUser]) -> AbstractBaseUser:
    return make_staff("superuser")


def signed_in(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def as_auditor(auditor: AbstractBaseUser) -> Client:
    return signed_in(auditor)


@pytest.fixture
def as_operator(operator: AbstractBaseUser) -> Client:
    return signed_in(operator)


@pytest.fixture
def as_superuser(superuser: AbstractBaseUser) -> Client:
    return signed_in(superuser)


class Played:
    """A table with players and the hands they played through the services."""

    def __init__(self, table: Table, players: list[AbstractBaseUser]) -> None:
        self.table = table
        self.players = players

    @property
    def settled(self) -> list[Hand]:
        return list(Hand.objects.filter(table=self.table, status="settled").order_by("number"))

    def state(self) -> TableState:
        return state_of(self.table.pk)


def play_table(
    preset: str = "classic", *, hands: int = 2, players: int = 3, seed: int = 8, prefix: str = "adm", **extra: Any
) -> Played:
    people = make_players(players, prefix=prefix)
    table = make_table(preset, **extra)
    if hands:
        play_hands(table, people, hands, random.Random(seed))
    else:
        for user in people:
            services.table_sit(table_id=table.pk, user=user)
    return Played(table, people)


@pytest.fixture
def played(db: Any) -> Played:
    """A classic player-bank table with three players and two settled hands."""
    return play_table()


def secret_seed_and_deck(table_id: int, state: TableState) -> tuple[str, list[str]]:
    """The seed of the hand in play (unsealed with the key, as only the pipeline does) and its whole deck."""
    from rules import shuffle_deck
    from tables import fairness

    hand = state.hand
    assert hand is not None
    seed = hand.server_seed or fairness.unseal(table_id, state.pledge)
    assert seed, "the seed of the hand in play cannot be unsealed"
    deck = list(hand.deck) or (
        shuffle_deck(bytes.fromhex(seed), hand.client_seed, hand.number) if hand.client_seed else []
    )
    return seed, deck


def hidden_cards(state: TableState, table_id: int | None = None) -> set[str]:
    """Every card of the current hand an auditor may not see now: face-down cards and the undealt stock (the
    stock of a hand committed ahead is known only with the seed: pass ``table_id`` to unseal it)."""
    hand = state.hand
    assert hand is not None and hand.in_play
    auditor = Viewer.auditor()
    deck = list(hand.deck) if table_id is None else secret_seed_and_deck(table_id, state)[1]
    hidden = set(deck[hand.next_card :])
    for h in hand.punters:
        for code, up in zip(h.cards, h.face_up, strict=True):
            if not card_visible(auditor, h.player_id, up, h.shown, False):
                hidden.add(code)
    for code, up in zip(hand.banker.cards, hand.banker.face_up, strict=True):
        if not card_visible(auditor, hand.banker.player_id, up, False, False):
            hidden.add(code)
    return hidden


def play_until_face_down_in_play(played: Played, seed: int = 3, limit: int = 300) -> TableState:
    """Play on until a hand is in play with a face-down card somebody holds (and cards left in the stock)."""
    rng = random.Random(seed)
    for _ in range(limit):
        state = played.state()
        hand = state.hand
        if hand is not None and hand.in_play:
            face_down = [c for h in hand.punters for c, up in zip(h.cards, h.face_up, strict=True) if not up]
            if face_down:
                return state
        assert step(played.table, played.players, rng), "the table got stuck"
    raise AssertionError("no hand in play with a face-down card")


def html_card_codes(html: str) -> set[str]:
    """The card codes the page shows as card chips."""
    return set(re.findall(r'data-card="([0-9]{1,2}[OCEB])"', html))


def card_code_pattern(codes: set[str]) -> re.Pattern[str]:
    """Any of ``codes`` standing alone (not part of a longer word or number)."""
    return re.compile(r"(?<![0-9A-Za-z])(" + "|".join(sorted(codes)) + r")(?![0-9A-Za-z])")


def open_dispute(hand: Hand, reason: str = "the banker's card looked wrong") -> Dispute:
    participant = hand.participants.select_related("user").filter(role="punter").first()
    assert participant is not None
    return hand_dispute_open(hand_id=hand.pk, user=participant.user, reason=reason)
