"""Contract v1.3: a table opens the next hand for every seated player whose limits allow the minimum, with the
settled hand's result counted. Property test over random results (the deck), loss limits of every period, the net
of each period so far and chips at risk at other tables: the command that settles a hand deals the next one to
exactly the players whose loss room after that settlement covers a minimum stake, so no table waits while someone
seated could play, and nobody is dealt in past his limit.

The loss room is computed by the shell's own function (``responsible.policy.loss_room``) for the context, and the
expectation here independently from its definition: for each period, limit - max(0, net loss so far - this
hand's net) - chips at risk at other tables; the lowest wins."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from responsible.policy import DAY_MS, loss_room
from rules import CANONICAL_DECK, Context, HandOpened, HandSettled, PlaceBet, SitIn, Stand
from rules.testing import rig_next_hand
from tests.rules.rules_helpers import Table, entropy_for

MIN = 10
PLAYERS = ("P1", "P2")
NOW = 1_700_000_000_000
#: when each part of a period's net was settled: within the day, within the week, within the month
AGES = (DAY_MS // 2, 3 * DAY_MS, 20 * DAY_MS)

limits = st.fixed_dictionaries(
    {},
    optional={
        "loss:day": st.integers(0, 60),
        "loss:week": st.integers(0, 60),
        "loss:month": st.integers(0, 60),
    },
).filter(bool)
player_facts = st.tuples(limits, st.tuples(*[st.integers(-40, 40)] * 3), st.integers(0, 20))


def expected_room(limits: dict[str, int], parts: tuple[int, int, int], elsewhere: int, net: int) -> int:
    """The room after the hand from the definitions (a part of ``parts`` is a net result: positive is a win)."""
    losses = {
        "loss:day": -parts[0],
        "loss:week": -(parts[0] + parts[1]),
        "loss:month": -(parts[0] + parts[1] + parts[2]),
    }
    return min(limit - max(0, losses[key] - net) for key, limit in limits.items()) - elsewhere


@settings(max_examples=150, deadline=None)
@given(
    deck=st.permutations(CANONICAL_DECK),
    facts=st.tuples(player_facts, player_facts),
)
def test_the_next_hand_is_dealt_to_exactly_the_players_whose_room_after_the_result_covers_the_minimum(
    deck: list[str], facts: tuple
) -> None:
    t = Table("italian", players=PLAYERS, banker=None, bank="house", min_bet=MIN, max_bet=MIN, wallet=1000)
    t.state = rig_next_hand(t.state, deck)
    t.when(SitIn, player_id="P1")  # hand 1 opens: both dealt in (no limits yet)
    assert {h.seat for h in t.hand.punters} == {1, 2}
    t.when(PlaceBet, player_id="P1", amount=MIN)
    t.when(Stand, player_id="P1")
    t.when(PlaceBet, player_id="P2", amount=MIN)
    # the command that settles hand 1 and opens hand 2, decided with the rooms as the shell computes them: this
    # hand's stake (MIN each) is at risk when it is decided, beside each player's chips at other tables
    rooms, ceilings = {}, {}
    for player, (player_limits, parts, elsewhere) in zip(PLAYERS, facts, strict=True):
        settled = [(NOW - age, part) for age, part in zip(AGES, parts, strict=True)]
        room = loss_room(player_limits, settled, at_risk=elsewhere + MIN, now_ms=NOW)
        assert room is not None
        rooms[player], ceilings[player] = room.headroom, room.ceiling
    wallets = {player: t.wallets[player] for player in PLAYERS}  # the house bank unfunded: unlimited
    context = Context(now_ms=NOW, wallets=wallets, entropy=entropy_for(99), loss_room=rooms, loss_ceiling=ceilings)
    events = t.send(Stand(player_id="P2"), context)
    settled_hand = next(e for e in events if isinstance(e, HandSettled))
    nets = {player: 0 for player in PLAYERS}
    for result in settled_hand.results:
        nets[result.player_id] += result.net
    expected = {
        t.seat(player)
        for player, (player_limits, parts, elsewhere) in zip(PLAYERS, facts, strict=True)
        if expected_room(player_limits, parts, elsewhere, nets[player]) >= MIN
    }
    opened = [e for e in events if isinstance(e, HandOpened)]
    if not expected:
        assert not opened  # nobody can play: the table waits
        return
    assert len(opened) == 1 and set(opened[0].entrants) == expected, (nets, facts)
