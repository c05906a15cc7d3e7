"""What the casino keeps in Redis may all be lost (kit/redis_state.py; docs/reliability.md, "Redis").

The reason a Redis failover needs nothing more than the restart the soak already injects (``redis_restart``: killed
and started again empty, every invariant held): every key the casino writes is of a family whose loss is recovered
from PostgreSQL or not needed. Here every path that writes to Redis runs against the suite's real Redis and every
key it left is classified; the soak does the same with the keys of a whole run under load (soak/checks.py,
``check_redis_keys``). The page's table and the module list the same families.
"""

from __future__ import annotations

import asyncio
import re

import pytest
import redis

from kit import heartbeat
from kit.redis_state import FAMILIES, family_of
from tests.conftest import ROOT


def test_the_reliability_page_lists_the_same_families():
    page = (ROOT / "docs" / "reliability.md").read_text()
    section = page.split("## Redis", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| \*\*(.+?)\*\* \| (.+?) \| (.+?) \|$", section, flags=re.MULTILINE)
    assert rows == [(family.name, family.holds, family.if_lost) for family in FAMILIES]


def test_a_key_of_no_family_is_named_as_such():
    assert family_of("test.gw0.casino:table:12:latest", "test.gw0.") is not None
    assert family_of("casino:table:12:latest", "test.gw0.") is None  # another casino's
    assert family_of("casino:ledger:balance:3") is None  # state that would need keeping: no family


@pytest.mark.django_db(transaction=True)
def test_every_key_the_casino_writes_is_of_a_family_that_may_be_lost(settings):
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from casino.celery import app
    from tables import notify
    from tables.live import limits

    client = redis.Redis.from_url(settings.REDIS_URL)
    prefix = settings.REDIS_KEY_PREFIX
    before = set(client.scan_iter(match=f"{prefix}*"))

    heartbeat.beat("worker")  # a heartbeat
    notify.publish(987654, 3)  # a table's latest version (and a wake-up)

    async def wait() -> None:  # an open wait
        slot = await limits.acquire(424242, "long_poll", 5)
        assert isinstance(slot, limits.Slot)

    asyncio.run(wait())
    settings.REST_FRAMEWORK = {  # the project's rates (the suite turns throttling off elsewhere)
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user_burst": "30/second", "user_sustained": "900/minute"},
    }
    api = APIClient()
    api.force_authenticate(get_user_model().objects.create_user(username="redis-state", password="x" * 12))
    assert api.get("/api/v1/tables").status_code == 200  # throttle counters
    app.send_task("tables.sweep_timeouts", queue=settings.TABLE_TIMER_QUEUE, countdown=3600)  # a queued message

    after = {key.decode() for key in client.scan_iter(match=f"{prefix}*")}
    written = after - {key.decode() for key in before}
    unknown = [key for key in written if family_of(key, prefix) is None]
    assert not unknown
    families = {family.name for key in after if (family := family_of(key, prefix))}
    assert families >= {
        "heartbeats", "latest table versions", "open waits", "throttle counters", "timer and task messages",
    }  # fmt: skip
    if written:
        client.delete(*written)
