"""Contract v1.3: ``legal_actions`` never offers an action that changes nothing, and such a command is refused,
not recorded (a Hungarian banker was offered ``set_stake`` in his own turn with the stake in force: 24 presses,
24 ``StakeSet`` events, nothing visible). Property: on random tables of every preset and bank, every action a
player is offered, sent with the arguments the offer was probed with, changes the table beyond its version."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from rules import HOUSE, DomainError, TableState, handle, legal_actions
from rules.legal import _candidates
from tests.rules.rules_random_play import PRESETS, RandomTable


def _unversioned(state: TableState) -> TableState:
    return replace(state, version=0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS), bank=st.sampled_from(["house", "player"]))
def test_every_offered_action_changes_the_table(seed: int, preset: str, bank: str) -> None:
    table = RandomTable(random.Random(seed), preset, bank)
    table.setup(punters=table.rng.randint(1, 3))
    for _ in range(60):
        table.step()
        state = table.state
        wallets = {p: v for p, v in table.wallets.items() if p != HOUSE or table.house_funded}
        for seat in state.seats:
            offered = legal_actions(state, seat.player_id, wallets)
            probes = dict(_candidates(state, seat.player_id))
            for name in offered:
                context = table.ctx()
                context = replace(context, wallets=wallets)
                for command in probes[name]:
                    try:
                        _events, after = handle(command, state, context)
                    except DomainError:
                        continue
                    assert _unversioned(after) != _unversioned(state), (name, command, state.phase)
                    break
