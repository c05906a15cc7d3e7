"""The admin tells the truth on a small database (issue 32): exact counts where counting is cheap and "about N"
only above ADMIN_EXACT_COUNT_UP_TO (then said so), no empty page after the last, no "Show all" on the big lists,
"View site" to the player client, staff apart from the players, charts whose axes read round numbers."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backoffice.charts import bar_chart, nice_ticks
from ledger.models import Account, Posting
from tables.models import Event, Hand
from tests.support.admin_fixtures import play_table

pytestmark = pytest.mark.django_db

BIG_LISTS = {
    "/admin/tables/hand/": Hand,
    "/admin/tables/event/": Event,
    "/admin/ledger/account/": Account,
    "/admin/ledger/posting/": Posting,
}


def _count_line(body: str) -> str:
    paginator = body[body.index('<nav class="paginator"') :]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", paginator[: paginator.index("</nav>")])).strip()


@pytest.mark.parametrize("url", sorted(BIG_LISTS))
def test_a_small_list_says_its_exact_count_and_has_no_page_after_the_last(url, as_superuser):
    play_table(hands=3, players=3)
    exact = BIG_LISTS[url].objects.count()
    body = as_superuser.get(url).content.decode()
    line = _count_line(body)
    assert "about" not in line and re.search(rf"\b{exact}\b", line), (exact, line)
    assert "Show all" not in body and "next-page" not in body
    per_page = 100
    pages = set(re.findall(r"[?&]p=(\d+)", body))
    assert len(pages) <= max(0, math.ceil(exact / per_page) - 1) + 1
    if exact <= 50:
        assert "?p=2" not in body  # the empty page 2 of "about 150 accounts" for 8


def test_above_the_bound_the_count_is_an_estimate_and_says_so(as_superuser, settings):
    play_table(hands=3, players=3)
    settings.ADMIN_EXACT_COUNT_UP_TO = 5
    body = as_superuser.get("/admin/tables/event/").content.decode()
    assert "about" in _count_line(body) and "PostgreSQL's estimate" in body
    assert "Show all" not in body


def test_view_site_opens_the_player_client(as_superuser):
    body = as_superuser.get("/admin/").content.decode()
    assert re.search(r'<a href="/play/">\s*View site\s*</a>', body), "View site does not point to /play/"


def test_staff_are_not_listed_as_players(as_superuser, make_staff):
    play_table(hands=0, players=2, prefix="listed")
    operator = make_staff("operator")
    players = as_superuser.get("/admin/casino/player/").content.decode()
    assert "listed0" in players and operator.username not in players
    assert operator.username in as_superuser.get("/admin/auth/user/").content.decode()


@given(low=st.integers(-(10**7), 0), high=st.integers(0, 10**7))
def test_axis_ticks_are_round_cover_the_values_and_zero(low, high):
    ticks = nice_ticks(low, high)
    step = ticks[1] - ticks[0]
    assert ticks[0] <= low and ticks[-1] >= high and 0 in ticks
    assert 2 <= len(ticks) <= 7
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 9) in {1, 2, 5}, step
    assert all(t == int(t) for t in ticks)  # counts and chips: whole steps
    assert all(math.isclose(b - a, step) for a, b in itertools.pairwise(ticks))


def test_the_house_net_chart_of_the_issue_reads_round_numbers():
    """The issue's axis read 4, -9.5, -23, -36.5, -50."""
    from datetime import UTC, datetime, timedelta

    days = [datetime(2026, 12, 1, tzinfo=UTC) + timedelta(days=i) for i in range(3)]
    svg = str(bar_chart("net", "net", {"classic": [(days[0], 4), (days[1], -50), (days[2], -12)]}, days, "chips"))
    labels = [float(x.replace(",", "")) for x in re.findall(r'text-anchor="end">([-\d.,]+)</text>', svg)]
    assert labels == [-50, -40, -30, -20, -10, 0, 10], labels
