"""The command pipeline on real PostgreSQL: one transaction per command, events, ledger and read models."""

from __future__ import annotations

import random

import pytest

from ledger import selectors as ledger_selectors
from rules import DomainError
from tables.models import Hand, Table
from tables.store import load_stream
from tests.support.play import make_players, make_table, play_hands, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _chips(players, table) -> int:
    wallets = sum(ledger_selectors.wallet_balances([p.pk for p in players]).values())
    return wallets + ledger_selectors.balance(f"escrow:table:{table.pk}") + ledger_selectors.house_bankroll()


@pytest.mark.parametrize("preset", ["classic", "italian", "spanish", "hungarian"])
@pytest.mark.parametrize("bank", ["player", "house"])
def test_random_hands_settle_conserve_chips_and_project(preset, bank):
    players = make_players(4 if bank == "player" else 3)
    table = make_table(preset, bank=bank)
    before = _chips(players, table)
    state = play_hands(table, players, 3, random.Random(7))
    assert _chips(players, table) == before  # wallets + escrow + bankroll: nothing created or lost
    hands = Hand.objects.filter(table=table, status="settled")
    assert hands.count() == state.settled_through >= 3
    for hand in hands:
        nets = [p.net for p in hand.participants.all()]
        assert None not in nets
        if bank == "player":
            assert sum(nets) == 0  # the banker's net is minus the punters'
        else:
            assert sum(nets) == -hand.banker_net
        assert any(p.role == "punter" for p in hand.participants.all())
    lobby = Table.objects.get(pk=table.pk)
    assert lobby.version == state.version == len(load_stream(table.pk))
    assert lobby.hands_played == state.settled_through


def test_a_refused_action_writes_nothing():
    players = make_players(2)
    table = make_table("classic")
    version = state_of(table.pk).version
    with pytest.raises(DomainError):
        from tables import services

        services.table_act(table_id=table.pk, user=players[0], action="hit", args={})
    assert state_of(table.pk).version == version
