"""Provable fairness in the pure core: seeds committed ahead, the client seed fixed at the first card, seeds kept
out of every state and recorded command, a hand without its seed abandoned with its stakes returned, and hands
of the old form (committed as they opened) still re-running exactly."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from rules import (
    CardDealt,
    ClientSeedFixed,
    Command,
    Context,
    CreateTable,
    HandAbandoned,
    HandOpened,
    HandSettled,
    Hit,
    NextSeed,
    PlaceBet,
    SeedCommitted,
    SetClientSeed,
    SitDown,
    TableState,
    Timeout,
    command_to_json,
    context_to_json,
    decide,
    handle,
    initial_state,
    recorded_command,
    seed_commitment,
    shuffle_deck,
    view,
)
from rules.hiding import Viewer
from tests.rules.rules_helpers import as_json, entropy_for
from tests.rules.rules_random_play import PRESETS, RandomTable


class Shell:
    """What the service does around the core, with a dictionary standing in for the sealing key."""

    def __init__(self, *, v11: bool = False) -> None:
        self.state: TableState = initial_state()
        self.vault: dict[str, str] = {}  # sealed form -> seed: the "key"
        #: what the shell records of each command (the command, its context), its events and the state before it
        self.recorded: list[tuple[dict[str, Any], dict[str, Any], list[Any], TableState]] = []
        self.n = 0
        self.lost = False
        self.v11 = v11  # the shell of contract v1.1: one pending seed, one fresh seed committed at a hand's end

    def _draw(self, number: int | None) -> NextSeed:
        seed = secrets.token_bytes(32)
        sealed = f"sealed-{number}-{self.n}"
        self.vault[sealed] = seed.hex()
        return NextSeed(commitment=seed_commitment(seed), sealed=sealed, seed=seed.hex(), number=number)

    def ctx(self) -> Context:
        self.n += 1
        wallets = {p: 10_000 for p in ("a", "b", "c")}
        base = Context(now_ms=1_000 + self.n, wallets=wallets, entropy=entropy_for(self.n))
        if self.v11:
            pledge = self.state.pledge
            plain = None if pledge is None or self.lost else self.vault.get(pledge.sealed)
            return replace(base, seed=plain, next_seed=self._draw(None))
        seeds = () if self.lost else tuple(self.vault[p.sealed] for p in self.state.pledges)
        first = self.state.hands_opened + 1
        committed = {p.number for p in self.state.pledges}
        fresh = tuple(self._draw(n) for n in range(first, first + 3) if n not in committed)
        return replace(base, seeds=seeds, next_seeds=fresh)

    def send(self, build: Any) -> list[Any]:
        context = self.ctx()
        command: Command = build(context)
        before = self.state
        events, self.state = handle(command, self.state, context)
        self.recorded.append((command_to_json(command), context_to_json(context), events, before))
        return events


def _classic_table() -> Shell:
    shell = Shell()
    shell.send(lambda c: CreateTable(preset="classic", min_bet=1, max_bet=100, max_seats=4))
    for pid in ("a", "b"):
        shell.send(lambda c, pid=pid: SitDown(player_id=pid, username=pid.upper(), client_seed=f"seed-{pid}"))
    return shell


def test_hand_ones_commitment_is_published_with_the_table_and_shown_until_it_opens() -> None:
    shell = Shell()
    events = shell.send(lambda c: CreateTable(preset="italian", min_bet=1, max_bet=100, max_seats=4))
    committed, second = events[1], events[2]
    assert isinstance(committed, SeedCommitted) and committed.number == 1
    assert isinstance(second, SeedCommitted) and second.number == 2  # v1.2: hands 1 and 2 with the table
    assert as_json(view(shell.state, Viewer.spectator()))["next_seed_commitment"] == committed.seed_commitment
    shell.send(lambda c: SitDown(player_id="a", username="A"))
    opening = shell.send(lambda c: SitDown(player_id="b", username="B"))  # italian deals at once
    opened = next(e for e in opening if isinstance(e, HandOpened))
    assert opened.seed_commitment == committed.seed_commitment and opened.server_seed == opened.client_seed == ""
    # while hand 1 is played, hand 2's commitment is public; hand 1's opening committed hand 3
    assert as_json(view(shell.state, Viewer.spectator()))["next_seed_commitment"] == second.seed_commitment
    third = [e for e in opening if isinstance(e, SeedCommitted)]
    assert [e.number for e in third] == [3] and opening.index(third[0]) > opening.index(opened)


def test_a_client_seed_changed_after_the_commitment_and_before_the_first_card_is_in_the_hand() -> None:
    shell = _classic_table()
    assert shell.state.hand is not None and shell.state.hand.phase == "betting"  # no card yet
    shell.send(lambda c: SetClientSeed(player_id="a", client_seed="changed-after-seeing-the-commitment"))
    events = shell.send(lambda c: PlaceBet(player_id="a" if shell.state.banker_seat != 1 else "b", amount=5))
    fixed = next(e for e in events if isinstance(e, ClientSeedFixed))
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardDealt))
    assert events.index(fixed) < first_card
    assert "changed-after-seeing-the-commitment" in fixed.client_seed.split(":")
    assert fixed.client_seed == ":".join(s.client_seed for s in sorted(shell.state.seats, key=lambda s: s.seat))


def _play_to_the_end(shell: Shell) -> list[Any]:
    everything: list[Any] = []
    target = shell.state.settled_through + 1
    for _ in range(200):
        if shell.state.settled_through >= target:
            return everything
        version = shell.state.version
        everything += shell.send(lambda c, v=version: Timeout(expected_version=v))
    raise AssertionError("the hand never ended")


def test_no_state_and_no_recorded_command_holds_the_seed_or_the_deck_of_a_hand_in_play() -> None:
    shell = _classic_table()
    punter = "a" if shell.state.banker_seat != 1 else "b"
    shell.send(lambda c: PlaceBet(player_id=punter, amount=5))
    pledge = shell.state.pledge
    assert pledge is not None and shell.state.hand is not None and shell.state.hand.in_play
    seed = shell.vault[pledge.sealed]
    hand = shell.state.hand
    deck = shuffle_deck(bytes.fromhex(seed), hand.client_seed, hand.number)
    undealt = repr(tuple(deck[hand.next_card : hand.next_card + 4]))[1:-1]
    for recorded, context, events, before in shell.recorded:
        for text in (repr(recorded), repr(context), repr(events), repr(before), repr(shell.state)):
            assert seed not in text and undealt not in text
    assert hand.deck == () and hand.server_seed == ""
    settled = _play_to_the_end(shell)
    end = next(e for e in settled if isinstance(e, HandSettled))
    assert end.server_seed == seed and seed_commitment(bytes.fromhex(seed)) == hand.seed_commitment
    after = settled[settled.index(end) + 1 :]
    assert not any(isinstance(e, SeedCommitted) and e.number == 2 for e in after)  # committed with the table


def test_recorded_commands_re_run_exactly_once_the_seeds_are_revealed() -> None:
    shell = _classic_table()
    punter = "a" if shell.state.banker_seat != 1 else "b"
    shell.send(lambda c: PlaceBet(player_id=punter, amount=5))
    _play_to_the_end(shell)
    revealed = {
        seed_commitment(bytes.fromhex(e.server_seed)): e.server_seed
        for _, _, events, _ in shell.recorded
        for e in events
        if isinstance(e, HandSettled)
    }
    for recorded, context_json, events, before in shell.recorded:
        command, context = recorded_command(recorded, context_json)
        # the seeds revealed since go back in the context; the core matches each to its commitment
        context = replace(context, seeds=tuple(revealed.values()))
        assert decide(command, before, context, replaying=True) == events


def test_a_hand_whose_seed_cannot_be_unsealed_is_abandoned_with_every_stake_returned() -> None:
    shell = _classic_table()
    punter = "a" if shell.state.banker_seat != 1 else "b"
    shell.send(lambda c: PlaceBet(player_id=punter, amount=5))  # betting closes: the first cards are dealt
    hand = shell.state.hand
    assert hand is not None and hand.in_play
    reserves = {h.player_id: h.punter_reserve for h in hand.punters if h.punter_reserve}
    banker_reserve = sum(h.banker_reserve for h in hand.punters)
    shell.lost = True  # the key is lost: the shell cannot open the sealed seed any more
    events = shell.send(lambda c: Hit(player_id=punter))  # a card is needed: the seed is not there
    abandoned = next(e for e in events if isinstance(e, HandAbandoned))
    assert abandoned.reason == "seed_unavailable" and abandoned.server_seed == ""
    assert abandoned.payouts == {**reserves, hand.banker.player_id: banker_reserve}
    assert not any(isinstance(e, SeedCommitted) for e in events)  # no committed seed is ever replaced
    shell.lost = False
    assert shell.state.pledge is not None and shell.state.pledge.number == hand.number + 1


@pytest.mark.parametrize("preset", ["classic", "italian"])
def test_hands_of_the_old_form_still_open_and_end_as_they_did(preset: str) -> None:
    """A table from before seeds were committed ahead (no SeedCommitted) and commands recorded then (no seeds in
    their context): the hand commits as it opens, with the opening command's entropy as its seed."""
    state, _ = _old_table(preset)
    ctx = Context(now_ms=5_000, wallets={"a": 1000, "b": 1000}, entropy=entropy_for(99))
    events, state = handle(SitDown(player_id="b", username="B", client_seed="sb"), state, ctx)
    opened = next(e for e in events if isinstance(e, HandOpened))
    assert opened.server_seed == entropy_for(99) and opened.client_seed
    assert opened.seed_commitment == hashlib.sha256(bytes.fromhex(entropy_for(99))).hexdigest()
    assert not any(isinstance(e, (SeedCommitted, ClientSeedFixed)) for e in events)


def _old_table(preset: str) -> tuple[TableState, list[Any]]:
    ctx = Context(now_ms=1_000, wallets={"a": 1000}, entropy=entropy_for(1))
    events = decide(CreateTable(preset=preset, min_bet=1, max_bet=10, max_seats=4), initial_state(), ctx)
    events = [e for e in events if not isinstance(e, SeedCommitted)]  # as the old core wrote it
    state = initial_state()
    from rules import fold

    state = fold(events, state)
    more, state = handle(
        SitDown(
            player_id="a",
            username="A",
            client_seed="sa",
        ),
        state,
        Context(now_ms=2_000, wallets={"a": 1000}, entropy=entropy_for(2)),
    )
    return state, events + more


# -- contract v1.2: a whole hand ahead, at every preset and bank ---------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PRESETS), st.sampled_from(["player", "house"]), st.integers(1, 4), st.randoms())
def test_every_hand_is_committed_before_the_hand_before_it_deals_and_never_recommitted(
    preset: str, bank: str, punters: int, rng: Any
) -> None:
    table = RandomTable(rng, preset, bank)
    table.setup(punters)
    committed: dict[int, int] = {}  # hand -> the command (step index) that committed it
    opened: dict[int, int] = {}
    first_card: dict[int, int] = {}
    for _ in table.run(150):
        pass
    for index, step in enumerate(table.steps):  # from the table's creation on
        for event in step.events:
            if isinstance(event, SeedCommitted):
                assert event.number not in committed, "a committed seed was committed again"
                committed[event.number] = index
            elif isinstance(event, HandOpened):
                opened[event.number] = index
            elif isinstance(event, CardDealt):
                first_card.setdefault(event.number, index)
    for number, at in first_card.items():
        # committed in an earlier command than the hand's first card, and before the hand before it dealt
        assert committed[number] < at, (number, committed, first_card)
        if number >= 2:
            assert committed[number] < first_card.get(number - 1, at), (number, committed, first_card)
        if number >= 3:
            assert committed[number] <= opened[number - 2], (number, committed, opened)
