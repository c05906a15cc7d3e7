"""The live server's fan-out shares its work (tables/live/reads.py): however many sockets of one process follow a
table, a change of the table is read once, and censored and serialised once per distinct viewer (every spectator
is the same viewer); every socket of that viewer is handed the same text. A socket that is several events behind
gets them in one message, in order, none skipped.

Counted with spies that call through to the real functions (real PostgreSQL, committed rows read from worker
threads as the live server reads them)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tables import feed
from tables.live import reads
from tables.live.watch import stamp
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)


class Spy:
    def __init__(self, fn: Any) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.fn(*args, **kwargs)


class EncodeSpy(Spy):
    """``json.dumps``, counting the encodings of an events message (censoring itself may encode other JSON)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], dict) and args[0].get("type") == "events":
            self.calls += 1
        return self.fn(*args, **kwargs)


class AsyncSpy(Spy):
    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.fn(*args, **kwargs)


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> dict[str, Spy]:
    found = {"read": AsyncSpy(reads._load), "censor": Spy(feed.censor), "encode": EncodeSpy(reads.json.dumps)}
    monkeypatch.setattr(reads, "_load", found["read"])
    monkeypatch.setattr(reads.feed, "censor", found["censor"])
    monkeypatch.setattr(reads.json, "dumps", found["encode"])
    return found


def _fan_out(table_id: int, after: int, users: list[Any]) -> list[tuple[str, int]]:
    """What each of the sockets of ``users`` (one socket each, all waiting at ``after``) is sent for one change."""

    async def socket(user: Any) -> tuple[str, int]:
        read = await reads.load(table_id, after)
        return read.message_for(user)

    async def all_sockets() -> list[tuple[str, int]]:
        return list(await asyncio.gather(*(socket(user) for user in users)))

    return asyncio.run(all_sockets())


def test_one_read_and_one_encoding_per_viewer_whatever_the_number_of_sockets(
    house_table: tuple[Any, int], player: Any, make_user: Any, spies: dict[str, Spy]
) -> None:
    client, table_id = house_table
    table = ok(client.get(f"/api/v1/tables/{table_id}"))
    before = table["version"]
    table = ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))
    assert table["table"]["version"] > before + 1  # the bet and the deal: several events behind
    spectators = [make_user("watcher") for _ in range(12)]
    users = [player, player, *spectators]  # the player on two sockets, twelve spectators
    counted = {name: spy.calls for name, spy in spies.items()}  # (the API's own answers encode JSON too)

    sent = _fan_out(table_id, before, users)

    done = {name: spy.calls - counted[name] for name, spy in spies.items()}
    assert done["read"] == 1  # one read for the fourteen sockets
    assert done["censor"] == 2 and done["encode"] == 2  # the player's view and the spectators', once each
    assert sent[0] is sent[1]  # the player's two sockets: the same text object
    assert all(message is sent[2] for message in sent[2:])  # every spectator: the same text object
    assert sent[0][0] != sent[2][0]  # (the player sees his own face-down card; the spectators do not)
    for text, last_seq in (sent[0], sent[2]):
        message = json.loads(text)
        seqs = [event["seq"] for event in message["events"]]
        assert seqs == list(range(before + 1, last_seq + 1))  # in order, none skipped, in one message
        assert message["last_seq"] == last_seq == table["table"]["version"]


def test_each_change_is_read_once_more_and_encoded_once_more_per_viewer(
    house_table: tuple[Any, int], player: Any, make_user: Any, spies: dict[str, Spy]
) -> None:
    client, table_id = house_table
    spectators = [make_user("watcher") for _ in range(5)]
    cursor = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
    received: list[int] = []
    for action in ({"action": "bet", "amount": 10}, {"action": "stand"}):
        ok(client.post(f"/api/v1/tables/{table_id}/actions", action, format="json"))
        counted = {name: spy.calls for name, spy in spies.items()}
        sent = _fan_out(table_id, cursor, [player, *spectators])
        assert {name: spy.calls - counted[name] for name, spy in spies.items()} == {"read": 1, "censor": 2, "encode": 2}
        received += [event["seq"] for event in json.loads(sent[1][0])["events"]]
        cursor = sent[1][1]
    assert received == sorted(received) == list(range(received[0], cursor + 1))  # across changes too


def test_a_socket_that_leaves_during_a_shared_read_does_not_take_the_read_from_the_others(
    house_table: tuple[Any, int], player: Any, make_user: Any
) -> None:
    """Two sockets wait on one read; the one that started it closes (its tasks are cancelled) before the read
    ends. The other still gets the events. (CI: a player closed his socket while the other player's socket was
    waiting on the read he had started; the cancellation reached the other socket's sending task, which died
    silently: its page never saw another event.)"""
    client, table_id = house_table
    before = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
    table = ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))
    watcher = make_user("watcher")

    async def scene() -> tuple[reads.SharedRead, bool]:
        leaver = asyncio.create_task(reads.load(table_id, before))
        await asyncio.sleep(0)  # the leaver starts the read (in a worker thread)
        stayer = asyncio.create_task(reads.load(table_id, before))
        await asyncio.sleep(0)  # the stayer waits on the same read
        joined = len(reads._inflight[asyncio.get_running_loop()]) == 1
        leaver.cancel()  # the leaver's socket closes: _end cancels its tasks
        with pytest.raises(asyncio.CancelledError):
            await leaver
        return await stayer, joined

    read, joined = asyncio.run(scene())
    assert joined  # the scene is the one CI saw: one read, two sockets on it
    text, last_seq = read.message_for(watcher)
    assert last_seq == table["table"]["version"] > before
    assert [event["seq"] for event in json.loads(text)["events"]] == list(range(before + 1, last_seq + 1))


def test_a_socket_woken_after_a_read_began_is_not_handed_that_read(
    house_table: tuple[Any, int], player: Any, spies: dict[str, Spy]
) -> None:
    """A read in flight may have begun before the commit that woke a socket: that socket reads again instead of
    sharing it (else it is handed nothing new and waits for the next change to see this one). Sockets woken
    before the read began share it."""
    client, table_id = house_table
    before = ok(client.get(f"/api/v1/tables/{table_id}"))["version"]
    ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))

    async def scene() -> list[reads.SharedRead]:
        woken_before = stamp()
        first = asyncio.create_task(reads.load(table_id, before, fresh_after=woken_before))
        await asyncio.sleep(0)  # the first read begins
        same = asyncio.create_task(reads.load(table_id, before, fresh_after=woken_before))
        woken_after = stamp()  # a commit announced while the first read is in flight
        later = asyncio.create_task(reads.load(table_id, before, fresh_after=woken_after))
        return list(await asyncio.gather(first, same, later))

    counted = spies["read"].calls
    first, same, later = asyncio.run(scene())
    assert spies["read"].calls - counted == 2
    assert same is first and later is not first
    assert later.loaded.state.version == first.loaded.state.version  # (nothing committed meanwhile here)
