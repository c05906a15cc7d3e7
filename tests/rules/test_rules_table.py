"""The table's life: creation, seats, the first banker's draw, hand opening, bets, leaving, sitting out."""

from __future__ import annotations

import hashlib

import pytest

from rules import (
    AlreadySeated,
    BetOutOfLimits,
    CardDealt,
    ClientSeedFixed,
    Context,
    CreateTable,
    FirstBankerDrawn,
    HandAbandoned,
    HandOpened,
    HandSettled,
    Hit,
    IllegalAction,
    InvalidRequest,
    LeaveSeat,
    NotFound,
    PlaceBet,
    ReleaseIdleSeat,
    SeatLeft,
    SeatOccupied,
    SeatTaken,
    SeedCommitted,
    SetClientSeed,
    SitDown,
    SitIn,
    SitOut,
    Stand,
    TableCreated,
    TableFull,
    Timeout,
    decide,
    handle,
    initial_state,
)
from rules.draft import simulated_seed
from tests.rules.rules_helpers import Table, entropy_for


def ctx(n: int = 1, wallets: dict[str, int] | None = None) -> Context:
    return Context(now_ms=1_000_000 + n, wallets=wallets or {}, entropy=entropy_for(n))


def created(preset: str = "classic", **kwargs: object) -> tuple[list[object], object]:
    events, state = handle(CreateTable(preset=preset, **kwargs), initial_state(), ctx())  # type: ignore[arg-type]
    return list(events), state


def test_the_first_event_of_a_table_is_table_created_with_the_resolved_rules() -> None:
    events, state = created("italian", overrides={"reale_with_matta": "never"}, min_bet=5, max_bet=50, max_seats=6)
    assert len(events) == 3 and isinstance(events[0], TableCreated)
    assert events[0].config.rules.reale_with_matta == "never"
    # the seeds of hands 1 and 2 are committed with the table (contract v1.2; no fresh seed supplied: the core
    # commits to seeds derived from the entropy, kept in plain text, a form only such a command deals from)
    assert events[1:] == [
        SeedCommitted(
            number=n,
            seed_commitment=hashlib.sha256(bytes.fromhex(simulated_seed(entropy_for(1), n))).hexdigest(),
            sealed_seed="plain:" + simulated_seed(entropy_for(1), n),
        )
        for n in (1, 2)
    ]
    assert state.version == 3  # type: ignore[attr-defined]


def test_an_invalid_table_command_is_refused_naming_the_field_and_no_second_creation() -> None:
    with pytest.raises(InvalidRequest) as refused:
        decide(CreateTable(preset="classic", min_bet=10, max_bet=5), initial_state(), ctx())
    assert refused.value.details["field"] == "max_bet"
    _, state = created()
    with pytest.raises(Exception) as again:
        decide(CreateTable(preset="classic"), state, ctx())  # type: ignore[arg-type]
    assert getattr(again.value, "code", None) == "wrong_phase"


def test_commands_on_a_table_that_does_not_exist_are_not_found() -> None:
    with pytest.raises(NotFound):
        decide(SitDown(player_id="a", username="A"), initial_state(), ctx())


def test_seats_taken_lowest_free_then_seat_taken_table_full_already_seated() -> None:
    _, state = created(max_seats=2, bank="house")
    events, state = handle(SitDown(player_id="a", username="A"), state, ctx(2, {"a": 0}))  # type: ignore[arg-type]
    assert events == [SeatTaken(seat=1, player_id="a", username="A", client_seed="a")]
    with pytest.raises(AlreadySeated):
        decide(SitDown(player_id="a", username="A"), state, ctx(3))
    with pytest.raises(SeatOccupied):
        decide(SitDown(player_id="b", username="B", seat=1), state, ctx(3))
    with pytest.raises(NotFound):
        decide(SitDown(player_id="b", username="B", seat=3), state, ctx(3))
    _, state = handle(SitDown(player_id="b", username="B", client_seed="lucky"), state, ctx(4, {"a": 0, "b": 0}))
    with pytest.raises(TableFull):
        decide(SitDown(player_id="c", username="C"), state, ctx(5))
    with pytest.raises(InvalidRequest):
        decide(SitDown(player_id="house", username="H"), state, ctx(5))


def test_the_first_banker_is_drawn_among_those_who_can_cover_and_the_hand_opens_with_its_commitment() -> None:
    _, state = created("italian", min_bet=10, max_bet=50, max_seats=4)
    wallets = {"a": 20, "b": 500}  # italian: a punter risks 1 x 10, a banker 3 x 10; a cannot hold the bank
    events: list[object] = []
    for n, pid in enumerate(["a", "b"], start=2):
        evs, state = handle(
            SitDown(player_id=pid, username=pid.upper(), client_seed=f"cs-{pid}"), state, ctx(n, wallets)
        )  # type: ignore[arg-type]
        events += evs
    draw = next(e for e in events if isinstance(e, FirstBankerDrawn))
    assert draw.candidates == (2,) and draw.player_id == "b"
    opened = next(e for e in events if isinstance(e, HandOpened))
    seed = bytes.fromhex(simulated_seed(entropy_for(1), 1))  # committed when the table was created
    assert opened.number == 1 and opened.server_seed == "" and opened.client_seed == ""
    assert opened.seed_commitment == hashlib.sha256(seed).hexdigest()
    fixed = next(e for e in events if isinstance(e, ClientSeedFixed))  # at the first card (italian deals at once)
    assert fixed.client_seed == "cs-a:cs-b" and opened.banker_id == "b" and opened.entrants == (1,)


def test_the_first_banker_draw_is_a_deterministic_function_of_the_entropy() -> None:
    picks = set()
    for n in range(12):
        _, s = created()
        s = handle(SitDown(player_id="a", username="A"), s, ctx(100 + n, {"a": 99, "b": 99}))[1]
        evs = decide(SitDown(player_id="b", username="B"), s, ctx(200 + n, {"a": 99, "b": 99}))
        again = decide(SitDown(player_id="b", username="B"), s, ctx(200 + n, {"a": 99, "b": 99}))
        assert evs == again
        picks.add(next(e for e in evs if isinstance(e, FirstBankerDrawn)).player_id)
    assert picks == {"a", "b"}


def test_classic_bets_are_placed_before_any_card_within_the_limits() -> None:
    t = Table("classic", min_bet=5, max_bet=50)
    t.when(SitIn, player_id="B")
    assert t.state.phase == "betting" and not t.hand.punters[0].cards
    assert isinstance(t.refused(PlaceBet, player_id="P1", amount=4), BetOutOfLimits)
    assert isinstance(t.refused(PlaceBet, player_id="P1", amount=51), BetOutOfLimits)
    assert t.refused(PlaceBet, player_id="B", amount=10).code == "illegal_action"
    t.when(PlaceBet, player_id="P1", amount=50)
    assert t.refused(PlaceBet, player_id="P1", amount=10).code == "illegal_action"
    t.when(PlaceBet, player_id="P2", amount=5)
    assert [type(e).__name__ for e in t.last].count("CardDealt") == 3
    assert t.state.phase == "punters" and t.state.waiting_on is not None and t.state.waiting_on.seat == 2


def test_a_punter_who_joins_during_a_hand_takes_part_from_the_next_one() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.wallets["P2"] = 100
    t.when(SitDown, player_id="P2", username="P2")
    assert t.refused(PlaceBet, player_id="P2", amount=10).code == "illegal_action"
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="B")
    opened = t.of_type(HandOpened)
    assert opened and opened[0].entrants == (2, 3)


def test_an_empty_betting_window_closes_without_a_deal_and_the_table_waits_for_a_player() -> None:
    t = Table("classic")
    t.when(SitIn, player_id="B")
    events = t.timeout()
    assert t.of_type(HandAbandoned) and not t.of_type(CardDealt)
    assert (
        events[-1] == HandAbandoned(number=1, reason="no_stakes", server_seed=t.hand.server_seed) and t.hand.server_seed
    )
    assert not t.of_type(SeedCommitted)  # hands 2 and 3 were committed when hand 1 opened: nothing at its end
    assert [p.number for p in t.state.pledges] == [2, 3]
    assert t.state.phase == "waiting" and t.state.idle
    assert t.timeout() == []  # nothing to wait on: duplicate deliveries are harmless
    t.when(PlaceBet, player_id="P1", amount=10)  # a punter acting again opens a hand with his bet
    assert t.of_type(HandOpened)[0].number == 2 and t.hand.find(2, 0).stake == 10


def test_a_stale_timeout_is_a_no_op() -> None:
    t = Table("classic")
    t.when(SitIn, player_id="B")
    version = t.state.version
    t.when(PlaceBet, player_id="P1", amount=10)
    assert t.send(Timeout(expected_version=version)) == []


def test_leaving_between_hands_is_at_once_and_during_a_hand_after_it() -> None:
    t = Table("classic", stock=["5O", "3E", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(LeaveSeat, player_id="P1")
    assert t.state.seat_of("P1") is not None and t.state.seat_of("P1").leaving  # type: ignore[union-attr]
    assert t.refused(LeaveSeat, player_id="P1").code == "illegal_action"
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="P2")
    t.when(Stand, player_id="B")
    assert SeatLeft(seat=2, player_id="P1", reason="after_hand") in t.last
    assert t.state.seat_of("P1") is None
    t.when(LeaveSeat, player_id="P2")  # in the betting window of the next hand without a stake: leaves at once
    assert t.state.seat_of("P2") is None


def test_sitting_out_skips_later_hands_and_sitting_in_takes_part_again() -> None:
    t = Table("italian", players=("B", "P1", "P2"))
    t.when(SitOut, player_id="P2")  # any player's command lets a waiting table open a hand
    assert t.of_type(HandOpened)[0].entrants == (2,)
    assert t.refused(SitOut, player_id="P2").code == "illegal_action"
    t.when(SitIn, player_id="P2")
    assert t.state.seat_of("P2").sitting_out is False  # type: ignore[union-attr]
    assert t.refused(SitIn, player_id="P1").code == "illegal_action"  # already taking part in the hand in play


def test_client_seed_changes_apply_to_every_hand_whose_first_card_is_not_dealt() -> None:
    t = Table("classic", players=("B", "P1"))
    t.when(SetClientSeed, player_id="P1", client_seed="my-lucky-seed")  # opens hand 1 (betting first): no card yet
    assert t.of_type(HandOpened) and not t.of_type(ClientSeedFixed)
    t.when(SetClientSeed, player_id="P1", client_seed="changed-after-the-commitment")
    t.when(PlaceBet, player_id="P1", amount=10)  # betting closes, the first card fixes the client seed
    assert t.of_type(ClientSeedFixed)[0].client_seed == "B:changed-after-the-commitment"
    assert t.hand.client_seed == "B:changed-after-the-commitment"
    assert t.refused(SetClientSeed, player_id="P1", client_seed="").code == "invalid_request"
    assert t.refused(SetClientSeed, player_id="P1", client_seed="a:b").code == "invalid_request"  # ':' joins the seeds
    assert t.refused(SetClientSeed, player_id="P1", client_seed="a b").code == "invalid_request"


def test_the_context_must_carry_64_lowercase_hex_of_entropy() -> None:
    t = Table("classic")
    with pytest.raises(InvalidRequest) as refused:
        handle(SitIn(player_id="B"), t.state, Context(now_ms=1, wallets={}, entropy="XYZ"))
    assert refused.value.details["field"] == "entropy"


def test_a_punter_cannot_act_out_of_turn() -> None:
    t = Table("classic", stock=["5O", "3E", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(PlaceBet, player_id="P2", amount=10)
    assert t.refused(Hit, player_id="P2").code == "not_your_turn"
    assert t.refused(Hit, player_id="B").code == "not_your_turn"
    assert t.refused(Hit, player_id="nobody").code == "not_seated"
    assert isinstance(t.refused(Hit, player_id="P1", hand=1), InvalidRequest)  # one hand per punter without splits
    t.when(Stand, player_id="P1")
    assert isinstance(t.refused(PlaceBet, player_id="P1", amount=10), IllegalAction)


def test_every_settled_hand_reveals_its_seed_and_the_next_hand_opens() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="B")
    settled = t.of_type(HandSettled)[0]
    committed = [e for e in t.events if isinstance(e, SeedCommitted)]
    assert hashlib.sha256(bytes.fromhex(settled.server_seed)).hexdigest() == committed[0].seed_commitment
    # hand 2's seed was committed before hand 1 opened (contract v1.2: a whole hand ahead); hand 2's opening
    # commits hand 4's
    opened = t.of_type(HandOpened)[0]
    assert opened.number == 2 and opened.seed_commitment == next(c for c in committed if c.number == 2).seed_commitment
    assert t.events.index(next(c for c in committed if c.number == 2)) < t.events.index(settled)
    assert committed[-1].number == 4 and t.last.index(committed[-1]) > t.last.index(opened)


def test_the_server_releases_an_idle_seat_never_one_in_the_hand_in_play() -> None:
    """ReleaseIdleSeat (API.md v1.2 seats: the shell decides idleness): SeatLeft with reason idle for a seat that
    is not in the hand, refused for one that is."""
    t = Table("classic", stock=["5O", "3E", "4O"])
    t.when(SitOut, player_id="P2")
    t.when(PlaceBet, player_id="P1", amount=10)
    assert t.refused(ReleaseIdleSeat, player_id="P1").code == "illegal_action"  # staked in the hand in play
    t.when(ReleaseIdleSeat, player_id="P2")
    assert SeatLeft(seat=3, player_id="P2", reason="idle") in t.last
    assert t.state.seat_of("P2") is None and t.state.seat_of("P1") is not None
    assert t.refused(ReleaseIdleSeat, player_id="P2").code == "not_seated"
