"""Many players acting on one table at once: gapless versions, no duplicates, a state equal to a fresh replay,
and idempotent retries with no second effect."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import connection

from ledger.models import Transaction
from rules import DomainError, fold, legal_actions
from tables import loader, services, snapshots
from tables.errors import IdempotencyConflict, StaleVersion
from tables.models import Snapshot, Table
from tables.store import chain_problems, load_stream
from tests.support.play import make_players, make_table, play_hands, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _run_threads(targets) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(targets))

    def wrap(fn):
        def run():
            try:
                barrier.wait(10)
                fn()
            except BaseException as exc:  # collected and asserted on by the test
                errors.append(exc)
            finally:
                connection.close()

        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors


def _assert_stream_sound(table_id: int) -> None:
    events = load_stream(table_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert chain_problems(events) == []
    assert loader.load_table(table_id).state == fold(loader.decode(e) for e in events)


def test_punters_betting_at_once_all_succeed_with_gapless_versions():
    players = make_players(7)
    table = make_table("classic")
    play_hands(table, players, 1, random.Random(1))  # everyone seated takes part from the second hand on
    state = state_of(table.pk)
    assert state.phase == "betting"
    entrants = {state.seat_at(seat).player_id for seat in state.hand.entrants}
    punters = [u for u in players if str(u.pk) in entrants]
    assert len(punters) == 6

    errors = _run_threads(
        [lambda u=u: services.table_act(table_id=table.pk, user=u, action="bet", args={"amount": 10}) for u in punters]
    )
    assert errors == []
    state = state_of(table.pk)
    stakes = {h.player_id: h.stake for h in state.hand.punters}
    assert stakes == {str(u.pk): 10 for u in punters}
    hand_id = Table.objects.get(pk=table.pk).current_hand_id
    assert Transaction.objects.filter(hand_id=hand_id, kind="stake_reserve").count() == len(punters)
    _assert_stream_sound(table.pk)


def test_random_players_hammering_one_table_keep_it_consistent():
    players = make_players(5)
    table = make_table("spanish")
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    stop = threading.Event()
    unexpected: list[BaseException] = []

    def player_loop(user, seed):
        rng = random.Random(seed)
        for _ in range(60):
            state = state_of(table.pk)
            actions = [a for a in legal_actions(state, str(user.pk)) if a in ("bet", "hit", "stand", "hit_face_down")]
            if not actions:
                if stop.is_set():
                    return
                continue
            action = rng.choice(actions)
            args = {"amount": state.config.min_bet} if action == "bet" else {}
            try:
                services.table_act(table_id=table.pk, user=user, action=action, args=args)
            except DomainError:
                pass  # the table moved between looking and acting: a legitimate refusal, nothing written
            except BaseException as exc:
                unexpected.append(exc)

    errors = _run_threads([lambda u=u, i=i: player_loop(u, i) for i, u in enumerate(players)])
    assert errors == [] and unexpected == []
    _assert_stream_sound(table.pk)
    play_hands(table, players, 1, random.Random(3))  # and the table still plays on
    _assert_stream_sound(table.pk)


def test_a_retried_idempotent_command_has_no_second_effect():
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 1, random.Random(1))
    state = state_of(table.pk)
    entrants = {state.seat_at(seat).player_id for seat in state.hand.entrants}
    punter = next(u for u in players if str(u.pk) in entrants)
    first = services.table_act(table_id=table.pk, user=punter, action="bet", args={"amount": 10}, idempotency_key="k1")
    again = services.table_act(table_id=table.pk, user=punter, action="bet", args={"amount": 10}, idempotency_key="k1")
    assert again.repeated and [e.version for e in again.events] == [e.version for e in first.events]
    assert Transaction.objects.filter(hand_id=Table.objects.get(pk=table.pk).current_hand_id).count() == 1
    with pytest.raises(IdempotencyConflict):
        services.table_act(table_id=table.pk, user=punter, action="bet", args={"amount": 20}, idempotency_key="k1")
    assert state_of(table.pk).version == first.events[-1].version


def test_concurrent_duplicates_of_one_idempotent_command_act_once():
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 1, random.Random(1))
    state = state_of(table.pk)
    entrants = {state.seat_at(seat).player_id for seat in state.hand.entrants}
    punter = next(u for u in players if str(u.pk) in entrants)
    outcomes = []

    def bet():
        outcomes.append(
            services.table_act(table_id=table.pk, user=punter, action="bet", args={"amount": 10}, idempotency_key="dup")
        )

    assert _run_threads([bet] * 6) == []
    assert sum(1 for o in outcomes if not o.repeated) == 1
    assert Transaction.objects.filter(hand_id=Table.objects.get(pk=table.pk).current_hand_id).count() == 1
    _assert_stream_sound(table.pk)


def test_an_explicit_expected_version_turns_a_moved_table_into_stale_version():
    players = make_players(3)
    table = make_table("classic")
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    version = state_of(table.pk).version
    with pytest.raises(StaleVersion) as info:
        services.table_sit(table_id=table.pk, user=make_players(1)[0], expected_version=version - 1)
    assert info.value.code == "stale_version"
    assert state_of(table.pk).version == version


def test_a_process_reuses_the_latest_committed_state_it_saw_and_folds_what_others_appended():
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 1, random.Random(8))
    current = loader.load_table(table.pk)
    assert current.source == "cache" and current.events_folded == 0  # after our own commits: nothing to fold
    # another process appends (simulated: this process forgets, then sees a state older than the stream)
    stale_version = current.state.version
    play_hands(table, players, 1, random.Random(9))
    events = load_stream(table.pk)
    loader.forget_all()
    loader.remember(table.pk, fold(loader.decode(e) for e in events[:stale_version]), events[stale_version - 1].hash)
    Snapshot.objects.filter(table_id=table.pk, version__gt=stale_version).delete()  # (else the newer snapshot wins)
    caught_up = loader.load_table(table.pk)
    assert caught_up.source == "cache" and caught_up.snapshot_version == stale_version
    assert caught_up.events_folded == len(events) - stale_version
    assert caught_up.state == fold(loader.decode(e) for e in events)
    assert caught_up.last_hash == events[-1].hash


def test_loading_uses_the_snapshot_and_a_missing_or_outdated_one_is_rebuilt():
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 3, random.Random(5))
    loader.forget_all()  # this process's cache of committed states aside: the snapshot path
    loaded = loader.load_table(table.pk)
    assert loaded.source == "snapshot" and loaded.snapshot_version > 0
    assert loaded.events_folded < loaded.state.version / 3  # the events of the current hand, not the history
    from_scratch = fold(loader.decode(e) for e in load_stream(table.pk))
    assert loaded.state == from_scratch
    Snapshot.objects.filter(table_id=table.pk).update(schema="an-older-rules-core")
    loader.forget_all()
    outdated = loader.load_table(table.pk)
    assert outdated.source == "events" and outdated.snapshot_version == 0 and outdated.state == from_scratch
    Snapshot.objects.filter(table_id=table.pk).delete()
    loader.forget_all()
    missing = loader.load_table(table.pk)
    assert missing.source == "events" and missing.snapshot_version == 0 and missing.state == from_scratch
    play_hands(table, players, 1, random.Random(6))  # the next hand boundary writes a fresh snapshot
    assert Snapshot.objects.get(table_id=table.pk).schema == snapshots.SNAPSHOT_SCHEMA


def test_a_command_that_waited_for_the_table_lock_is_decided_on_the_wallets_after_the_command_it_waited_for():
    """The table load reads the seated players' wallets in the same statement; a statement that waited for the
    table's lock holds an older snapshot, so its balances are not trusted then (read again after the lock)."""
    (player,) = make_players(1, chips=10, prefix="waiter")
    table = make_table("classic", bank="house", min_bet=10, max_bet=10)
    services.table_sit(table_id=table.pk, user=player)
    first_holds_lock, outcomes = threading.Event(), {}

    def bet_and_hold() -> None:
        from django.db import transaction

        with transaction.atomic():
            services.table_act(table_id=table.pk, user=player, action="bet", args={"amount": 10})
            first_holds_lock.set()
            waiting = 0
            for _ in range(1500):  # until the second command waits for the table's lock (30 s on a loaded machine)
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_stat_clear_snapshot()")  # activity is cached per transaction
                    cursor.execute(  # (pg_locks: a backend of the suite's login role hides its wait events)
                        "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                        "WHERE NOT l.granted AND a.datname = current_database()"
                    )
                    waiting = cursor.fetchone()[0]
                if waiting:
                    break
                threading.Event().wait(0.02)
            assert waiting, "the second command never waited for the lock"

    def act_after() -> None:
        first_holds_lock.wait(10)
        outcomes["second"] = services.table_act(table_id=table.pk, user=player, action="stand")

    errors = _run_threads([bet_and_hold, act_after])
    assert not errors, errors
    # the bet took the player's 10 chips; the second command's context saw that, not the 10 it held before
    second = outcomes["second"]
    context = second.events[0].metadata["context"]
    assert context["wallets"][str(player.pk)] == 0, context
