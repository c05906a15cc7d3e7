"""Hands in the admin: the list (filters, search, verified column), the hand page (table card, cards, totals,
stakes, results, timeline, ledger), the replay step by step and the verification."""

from __future__ import annotations

import re

import pytest
from django.contrib.admin.models import CHANGE, LogEntry

from ledger.models import Transaction
from tables import services
from tables.hand_events import replay_hand
from tables.models import Hand
from tables.verify import CHECKS
from tests.support.admin_fixtures import html_card_codes, open_dispute, play_table

pytestmark = pytest.mark.django_db


def _listed(client, query: str = "") -> set[int]:
    response = client.get("/admin/tables/hand/" + query)
    assert response.status_code == 200, query
    return {hand.pk for hand in response.context["cl"].result_list}


def test_the_hand_list_filters_by_table_player_preset_outcome_dispute_and_date(as_auditor, played):
    other = play_table("spanish", hands=1, seed=4, prefix="sp")
    mine = {h.pk for h in Hand.objects.filter(table=played.table)}
    theirs = {h.pk for h in Hand.objects.filter(table=other.table)}
    assert _listed(as_auditor) == mine | theirs
    assert _listed(as_auditor, f"?table__id__exact={played.table.pk}") == mine
    player = other.players[1].username
    assert _listed(as_auditor, f"?player={player}") == {
        h.pk for h in Hand.objects.filter(participants__user__username=player)
    }
    assert _listed(as_auditor, f"?player={player.upper()}") == _listed(as_auditor, f"?player={player}")
    assert _listed(as_auditor, "?preset=spanish") == theirs
    settled = Hand.objects.filter(status="settled")
    assert _listed(as_auditor, "?outcome=banker_won") == {h.pk for h in settled if h.banker_net > 0}
    assert _listed(as_auditor, "?outcome=banker_lost") == {h.pk for h in settled if h.banker_net < 0}
    assert _listed(as_auditor, "?outcome=in_play") == {h.pk for h in Hand.objects.filter(status="in_play")}
    won = {p.hand_id for p in other.players[1].hand_entries.filter(net__gt=0, hand__status="settled")}
    assert _listed(as_auditor, f"?player={player}&outcome=player_won") == won
    disputed = played.settled[0]
    open_dispute(disputed)
    assert _listed(as_auditor, "?disputed__exact=1") == {disputed.pk}
    day = disputed.opened_at
    that_day = f"?opened_at__year={day.year}&opened_at__month={day.month}&opened_at__day={day.day}"
    assert _listed(as_auditor, that_day) == mine | theirs
    assert _listed(as_auditor, "?opened_at__year=2001") == set()


def test_the_hand_list_searches_by_hand_id_and_username(as_auditor, played):
    hand = played.settled[1]
    term = str(hand.pk)  # the hand with that id, and the hands of any username containing those digits
    named = {h.pk for h in Hand.objects.filter(participants__user__username__icontains=term)}
    assert _listed(as_auditor, f"?q={term}") == {hand.pk} | named
    player = played.players[2]
    assert _listed(as_auditor, f"?q={player.username}") == {
        h.pk for h in Hand.objects.filter(participants__user=player)
    }
    assert _listed(as_auditor, "?q=nobody-has-this-name") == set()


def test_the_list_shows_which_hands_were_verified(as_auditor, played):
    hand = played.settled[0]
    assert as_auditor.post(f"/admin/tables/hand/{hand.pk}/verify/").status_code == 302
    assert _listed(as_auditor, "?verified=ok") == {hand.pk}
    assert hand.pk not in _listed(as_auditor, "?verified=no")
    assert "✔ ok" in as_auditor.get("/admin/tables/hand/").content.decode()


def test_the_hand_page_shows_the_table_card_cards_results_timeline_and_ledger(as_auditor, played):
    hand = played.settled[0]
    page = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    steps = replay_hand(hand)
    final = steps[-1][1].hand
    dealt = {c for h in final.punters for c in h.cards} | set(final.banker.cards)
    assert dealt <= html_card_codes(page)  # every card as a chip once the hand is settled
    assert final.server_seed in page and final.seed_commitment in page
    assert "Table card (resolved rules)" in page and "tie_rule" in page
    assert f"Timeline ({len(steps)} events)" in page
    for stored, _ in steps:
        assert f"<td>{stored.type}</td>" in page
    for result in final.results:
        assert f"{result.net:+d}" in page
    for entry in Transaction.objects.filter(hand_id=hand.pk):
        assert f"transaction {entry.pk}" in page and entry.cause in page
    assert "player:" in page and "escrow:table:" in page


def test_the_replay_steps_through_every_event_with_the_full_state(as_auditor, played):
    hand = played.settled[0]
    steps = replay_hand(hand)
    url = f"/admin/tables/hand/{hand.pk}/change/"
    first = as_auditor.get(url).context
    assert first["replay"]["step"] == 1 and first["replay"]["count"] == len(steps)
    assert first["replay"]["event"].type == "HandOpened"
    for number, (stored, state) in enumerate(steps, start=1):
        context = as_auditor.get(f"{url}?step={number}").context
        replay = context["replay"]
        assert replay["event"].seq == stored.version
        assert replay["state"]["version"] == state.version
        cards = {card.code for p in replay["state"]["hand"]["participants"] for h in p["hands"] for card in h["cards"]}
        held = {c for h in state.hand.punters for c in h.cards} | set(state.hand.banker.cards)
        assert cards == held  # a settled hand: every card at every step
    last = as_auditor.get(f"{url}?step=999").context["replay"]
    assert last["step"] == len(steps) and last["event"].type == "HandSettled"
    assert as_auditor.get(f"{url}?step=-4").context["replay"]["step"] == 1
    assert as_auditor.get(f"{url}?step=x").context["replay"]["step"] == 1
    page = as_auditor.get(f"{url}?step=2").content.decode()
    assert 'href="?step=1#replay"' in page and 'href="?step=3#replay"' in page


def test_verify_runs_every_check_records_it_and_logs_who(as_auditor, auditor, played):
    hand = played.settled[0]
    response = as_auditor.post(f"/admin/tables/hand/{hand.pk}/verify/")
    assert response.status_code == 302 and response["Location"].endswith("#verification")
    page = as_auditor.get(response["Location"].split("#")[0]).content.decode()
    for check in CHECKS:
        assert re.search(rf'data-check="{check}" class="check-ok"', page), check
    assert "every check passed" in page
    hand.refresh_from_db()
    assert hand.verified_ok is True and hand.verified_at is not None
    log = LogEntry.objects.get(object_id=str(hand.pk), action_flag=CHANGE)
    assert log.user == auditor and "every check passed" in log.change_message
    assert as_auditor.get(f"/admin/tables/hand/{hand.pk}/verify/").status_code == 405


def test_a_hand_in_play_cannot_be_verified_yet(as_auditor, played):
    state = played.state()
    hand = Hand.objects.filter(table=played.table, status="in_play").first()
    assert hand is not None and state.hand_in_play
    page = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    assert 'id="verify-button" value="Verify this hand" disabled' in page
    response = as_auditor.post(f"/admin/tables/hand/{hand.pk}/verify/", follow=True)
    assert "once it is settled" in response.content.decode()
    hand.refresh_from_db()
    assert hand.verified_at is None


def test_the_timeline_marks_system_timeouts(as_auditor, played):
    state = played.state()
    assert state.awaiting is not None
    deadline = state.awaiting.deadline_ms
    assert services.table_timeout(table_id=played.table.pk, version=state.version, now_ms=deadline) > 0
    hand = Hand.objects.filter(table=played.table).order_by("-number").first()
    rows = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").context["timeline"]
    timed_out = [row for row in rows if row.timeout]
    assert timed_out and all(row.system and row.who == "system (timeout)" for row in timed_out)


@pytest.mark.parametrize("bank", ["player", "house"])
def test_hands_of_every_preset_render_at_every_step(as_auditor, bank):
    for number, preset in enumerate(("classic", "italian", "spanish", "hungarian")):
        played = play_table(preset, hands=2, seed=40 + number, prefix=f"{preset[:2]}{bank[0]}", bank=bank)
        for hand in Hand.objects.filter(table=played.table):
            url = f"/admin/tables/hand/{hand.pk}/change/"
            count = as_auditor.get(url).context["replay"]["count"]
            for step in range(1, count + 1):
                response = as_auditor.get(f"{url}?step={step}")
                assert response.status_code == 200, (preset, bank, hand.pk, step)
            if hand.status == "settled":
                assert as_auditor.post(f"/admin/tables/hand/{hand.pk}/verify/").status_code == 302
                hand.refresh_from_db()
                assert hand.verified_ok is True, (preset, bank, hand.pk)
