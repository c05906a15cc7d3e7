"""While a hand is in play the admin shows no face-down or undealt card and no server seed, on any page (the hand
page, every replay step, the table page, the event store); once it is settled, everything is shown."""

from __future__ import annotations

import pytest

from tables.models import Event, Hand
from tables.store import load_stream
from tests.support.admin_fixtures import (
    card_code_pattern,
    hidden_cards,
    html_card_codes,
    play_table,
    play_until_face_down_in_play,
    secret_seed_and_deck,
)

pytestmark = pytest.mark.django_db


def _pages(client, hand: Hand, steps: int, *, since: int = 1) -> dict[str, str]:
    """Admin pages about the hand: each replay step, its table, the lists, each event from version ``since``."""
    urls = [f"/admin/tables/hand/{hand.pk}/change/?step={n}" for n in range(1, steps + 1)]
    urls += [f"/admin/tables/table/{hand.table_id}/change/", "/admin/tables/hand/", "/admin/tables/event/"]
    events = Event.objects.filter(table_id=hand.table_id, version__gte=since)
    urls += [f"/admin/tables/event/{e.pk}/change/" for e in events]
    pages = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        pages[url] = response.content.decode()
    return pages


@pytest.mark.parametrize(("preset", "bank"), [("classic", "player"), ("spanish", "player"), ("hungarian", "house")])
def test_a_hand_in_play_shows_no_hidden_card_and_no_seed(as_operator, preset, bank):
    played = play_table(preset, hands=1, seed=11, prefix=preset[:2], bank=bank)
    state = play_until_face_down_in_play(played)
    hand = Hand.objects.get(table=played.table, number=state.hand.number)
    assert hand.status == "in_play"
    hidden = hidden_cards(state, played.table.pk)
    face_down = {c for h in state.hand.punters for c, up in zip(h.cards, h.face_up, strict=True) if not up}
    assert face_down and face_down <= hidden
    seed, _ = secret_seed_and_deck(played.table.pk, state)
    for stored in load_stream(played.table.pk):  # sealed at rest: not in any event or recorded command
        assert seed not in str(stored.data) and seed not in str(stored.metadata)
    steps = state.version - hand.opened_version + 1
    pattern = card_code_pattern(hidden)
    for url, html in _pages(as_operator, hand, steps).items():
        assert seed not in html, url  # nor in the command that opened the hand (recorded before HandOpened)
        assert not html_card_codes(html) & hidden, url
    # an earlier hand's events rightly show cards that lie in this hand's stock: the hand's own pages must not
    for url, html in _pages(as_operator, hand, steps, since=hand.opened_version).items():
        assert not pattern.search(html), (url, pattern.search(html))
    page = as_operator.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    assert 'class="card back"' in page and "revealed when the hand is settled" in page


def test_a_settled_hand_shows_every_card_and_the_seed(as_operator, played):
    hand = played.settled[0]
    page = as_operator.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    settled = next(e for e in load_stream(played.table.pk) if e.type == "HandSettled" and e.data["number"] == 1)
    assert settled.data["server_seed"] in page
    assert 'class="card back"' not in page
    for url in [f"/admin/tables/event/{e.pk}/change/" for e in Event.objects.filter(table=played.table)]:
        assert '"entropy"' not in as_operator.get(url).content.decode()  # a command's context is never shown
