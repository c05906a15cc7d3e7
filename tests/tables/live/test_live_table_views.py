"""The v1.3 ``table`` message (API.md "Live updates", issue #45): after the events of a commit each socket gets the
table view its user would get from ``GET /tables/{id}`` at that version, computed once per version and viewer and
encoded once per distinct view, from the process's one read of the change.

- One shape: on a real uvicorn, over hands of a player-banked table, the pushed view of the banker, a punter, a
  spectator and a staff member equals their own ``GET /tables/{id}`` at the same version, move after move.
- Counted in-process (real PostgreSQL and Redis, the live server's own functions, spies that call through):
  however many sockets per user and users per viewer, one read, one view per viewer, one encoding per distinct
  view; a second read of the same version (another cursor) computes nothing again.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from tables.live import reads, table_views
from tables.live.watch import watch
from tests.support.game_helpers import HttpTable, Player, create_table, deposit, ok, register
from tests.support.live_helpers import open_as
from tests.tables.live.test_live_shared_reads import Spy

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_pushed_view_is_the_rest_view_of_each_viewer_at_that_version(
    asgi_server: str, anon: Any, as_staff: Any, staff: Any, client_for: Any
) -> None:
    players = [register(anon, "tv") for _ in range(3)]
    for player in players:
        deposit(as_staff, player, 20_000)
    spectator = register(anon, "tvspec")
    staff_viewer = Player(staff.get_username(), client_for(staff), staff.pk)
    table = create_table(as_staff, "classic", bank="player", max_seats=4)
    game = HttpTable(table["id"], players, random.Random("live-table-views"))
    viewers = [*players, spectator, staff_viewer]
    sockets = [open_as(asgi_server, table["id"], viewer.client) for viewer in viewers]
    for socket in sockets:
        socket.recv()
    compared: dict[str, int] = {"banker": 0, "punter": 0, "spectator": 0, "staff": 0}

    def check(step: Any) -> None:
        version = step.response["table"]["version"]
        for viewer, socket in zip(viewers, sockets, strict=True):
            socket.until(version)
            pushed = socket.table_at(version)
            rest = ok(viewer.client.get(f"/api/v1/tables/{table['id']}"))
            assert rest["version"] == version  # (nothing else acts at this table)
            assert pushed == rest, f"{viewer.username}'s pushed view differs from his GET at version {version}"
            seat = rest["you"]["seat"]
            banker = seat is not None and any(s["is_banker"] and s["seat"] == seat for s in rest["seats"])
            kind = "staff" if viewer is staff_viewer else "spectator" if viewer is spectator else None
            compared[kind or ("banker" if banker else "punter")] += 1

    try:
        game.sit_all()
        game.play_hands(1, after_step=check)
    finally:
        for socket in sockets:
            socket.close()
    assert all(count > 0 for count in compared.values()), compared


class EncoderSpy:
    def __init__(self, encoder: Any) -> None:
        self.encoder, self.calls = encoder, 0

    def encode(self, value: Any) -> bytes:
        self.calls += 1
        return self.encoder.encode(value)  # type: ignore[no-any-return]


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    table_views.forget_all()
    found = {
        "read": Spy(reads._load_with_views),
        "view": Spy(table_views.present_viewer_table),
        "encode": EncoderSpy(table_views._encoder),
    }
    monkeypatch.setattr(reads, "_load", reads.db.read(found["read"]))
    monkeypatch.setattr(table_views, "present_viewer_table", found["view"])
    monkeypatch.setattr(table_views, "_encoder", found["encode"])
    return found


def _push(table_id: int, after: int, sockets: list[Any]) -> list[str]:
    """The ``table`` message each socket (one per entry of ``sockets``: its user) is sent for one change, every
    socket watching the table and up to date at ``after``."""

    async def socket(user: Any) -> str:
        read = await reads.load(table_id, after)
        assert read.reaches_version
        return await read.table_message_for(user)

    async def all_sockets() -> list[str]:
        watchers = [await watch().add(table_id, user=user) for user in sockets]
        try:
            return list(await asyncio.gather(*(socket(user) for user in sockets)))
        finally:
            for watcher in watchers:
                await watch().remove(watcher)

    return asyncio.run(all_sockets())


def _counts(spies: dict[str, Any]) -> dict[str, int]:
    return {name: spy.calls for name, spy in spies.items()}


def test_one_view_per_version_and_viewer_and_one_encoding_per_distinct_view(
    house_table: tuple[Any, int], player: Any, make_user: Any, fund: Any, client_for: Any, spies: dict[str, Any]
) -> None:
    client, table_id = house_table
    spectators = [make_user("watcher") for _ in range(4)]  # no chips: the same ``you``
    rich = make_user("rich")
    fund(rich, 500)  # a spectator whose ``you.balance`` differs: the spectators' view, encoded once more
    staff = [make_user("floor", is_staff=True) for _ in range(2)]  # the auditor
    users = [player, player, player, *spectators, *spectators, rich, *staff, staff[0]]  # several sockets each
    for action in ({"action": "bet", "amount": 10}, {"action": "stand"}):
        before = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
        ok(client.post(f"/api/v1/tables/{table_id}/actions", action, format="json"))
        counted = _counts(spies)
        sent = _push(table_id, before, users)
        done = {name: calls - counted[name] for name, calls in _counts(spies).items()}
        assert done == {"read": 1, "view": 3, "encode": 4}, done  # views: player, spectator, auditor
        by_user: dict[int, str] = {}
        for user, text in zip(users, sent, strict=True):
            assert by_user.setdefault(user.pk, text) is text  # a user's sockets: the very same text
        assert all(by_user[s.pk] is by_user[spectators[0].pk] for s in spectators)  # identical ``you``: shared
        assert by_user[rich.pk] != by_user[spectators[0].pk]
        for user in {u.pk: u for u in users}.values():  # one shape: each is the user's own GET
            message = json.loads(by_user[user.pk])
            assert message["type"] == "table"
            assert message["table"] == ok(client_for(user).get(f"/api/v1/tables/{table_id}"))

        again = _counts(spies)
        _push(table_id, before + 1, [player, spectators[0], staff[0]])  # another cursor, the same version
        assert {name: calls - again[name] for name, calls in _counts(spies).items()} == {
            "read": 1,
            "view": 0,
            "encode": 0,
        }


def test_a_change_and_every_watchers_view_are_read_in_a_few_statements(
    house_table: tuple[Any, int], player: Any, make_user: Any
) -> None:
    """The live read of a change (in its worker thread) with the views of all its watchers, in a process whose
    state of the table is the one before the change (as a live process's is): the new events with the checkpoint
    in one statement, the table row with every watcher's wallet and account in another, the state folded from
    those events: nothing per watcher, nothing read twice."""
    from django.db import connection

    from kit.statements import count_sent
    from tables import loader

    client, table_id = house_table
    watchers = [player, *(make_user("counted") for _ in range(6)), make_user("floor", is_staff=True)]
    before = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
    known = loader.load_table(table_id)
    ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))
    loader.forget_all()
    loader.remember(table_id, known.state, known.last_hash)  # what this process last read: the previous change
    table_views.forget_all()
    with count_sent(connection) as sent:
        read = reads._load_with_views(table_id, before, watchers)
    assert read.reaches_version and set(read.tables) == {w.pk for w in watchers}
    assert read.loaded.state.version > before + 1 and read.loaded.table is not None
    assert read.loaded.table.events_folded == read.loaded.state.version - before  # folded from the events read
    assert len(sent) == 2, sent.render()


def test_a_commit_between_the_events_and_the_table_leaves_no_gap(
    house_table: tuple[Any, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The feed reads the events before the table (so the state can be folded from them): a command that commits
    in between makes the state newer than the events read; the events up to the state are read too, so
    ``last_seq`` never passes an event that was not sent."""
    from tables import feed, loader, selectors

    client, table_id = house_table
    now = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
    real = loader.load_table
    committed: list[int] = []
    bet = {"action": "bet", "amount": 10}

    def load_table_after_a_commit(*args: Any, **kwargs: Any) -> Any:
        if "known" in kwargs and not committed:  # the feed's load (not the command's own, made meanwhile)
            committed.append(0)
            committed[0] = ok(client.post(f"/api/v1/tables/{table_id}/actions", bet, format="json"))["table"]["version"]
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors.loader, "load_table", load_table_after_a_commit)
    loaded = feed.load(table_id, now)
    assert committed and loaded.state.version == committed[0] > now
    assert [s.version for s, _ in loaded.events] == list(range(now + 1, committed[0] + 1))
