"""The seed checks: ``commitment`` (the revealed server seed is the one committed, and only one was),
``published`` (the commitment was public before the first card), ``client seed`` (the participants' seeds in seat
order) and ``seed timing`` (whether each participant's seed was set after the commitment was published)."""

from __future__ import annotations

import hashlib
from typing import Any

from verifier.hand import Hand
from verifier.report import Report


def check_seeds(report: Report, hand: Hand, me: dict[str, Any] | None) -> None:
    """Every seed check of ``hand``, in order (``me``: the user checking it live, whose seed must be in it)."""
    check_commitment(report, hand)
    committed_at = check_published(report, hand)
    check_client_seed(report, hand, me)
    history = hand.history
    check_seed_timing(report, history, committed_at if committed_at is not None else history.get("seed_committed_at"))


def check_commitment(report: Report, hand: Hand) -> None:
    """sha256 of the revealed server seed is the commitment (a hand abandoned before it revealed its seed fails),
    and the hand's seed was committed once: a committed seed is never replaced (API.md v1.2)."""
    history, number = hand.history, hand.number
    seed, commitment = history["server_seed"], history["seed_commitment"]
    actual = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if seed else None
    if seed or history["status"] == "settled":
        report.line(actual == commitment, "commitment", f"sha256(server_seed) = {actual}, committed {commitment}")
    else:
        report.line(
            False,
            "commitment",
            f"the hand was abandoned ({hand.closed['data'].get('reason')}) and its server seed never revealed: the "
            f"casino could not (or would not) deal from the seed it committed ({commitment})",
        )
    commitments = [e for e in hand.events if e["type"] == "SeedCommitted" and e["data"]["number"] == number]
    if len(commitments) > 1:
        report.line(
            False,
            "commitment",
            f"hand #{number}'s seed was committed {len(commitments)} times (seq "
            f"{', '.join(str(e['seq']) for e in commitments)}): a committed seed is never replaced",
        )


def check_published(report: Report, hand: Hand) -> int | None:
    """The commitment was in the events before the hand's first card (and at ``seed_committed_at``); the seq it
    was first published at, None when it was not."""
    history, number, opened, first_card = hand.history, hand.number, hand.opened, hand.first_card
    commitment = history["seed_commitment"]
    published = [
        e
        for e in hand.events
        if e["type"] == "SeedCommitted" and e["data"]["number"] == number and e["seq"] < first_card
    ]
    if published:
        last = published[-1]
        committed_at: int = published[0]["seq"]
        stated = history.get("seed_committed_at")
        report.line(
            last["data"]["seed_commitment"] == commitment and stated in (None, committed_at),
            "published",
            f"committed at seq {committed_at}, first card at seq {first_card}"
            + ("" if stated in (None, committed_at) else f"; the history says seq {stated}"),
        )
        return committed_at
    if opened["data"].get("server_seed") or opened["data"].get("client_seed"):
        report.line(
            opened["data"]["seed_commitment"] == commitment and opened["seq"] < first_card,
            "published",
            f"a hand of the old form: committed as it opened (seq {opened['seq']}), after its client seed was fixed",
        )
    else:
        report.line(False, "published", f"no commitment of hand #{number} in the events before seq {first_card}")
    return None


def check_client_seed(report: Report, hand: Hand, me: dict[str, Any] | None) -> None:
    """The hand's client seed is the participants' client seeds of the moment it was fixed, joined with ':' in
    seat order (and, live, holds the checking user's own)."""
    history, opened = hand.history, hand.opened
    client_seed = history["client_seed"]
    events = hand.seats_and_seeds_events
    fixed_at = hand.first_card if not opened["data"].get("client_seed") else opened["seq"]
    seeds, seats = _seeds_at(events, fixed_at)
    by_seat = {p["seat"]: p.get("client_seed") for p in history["participants"]}
    skipped = {
        e["data"]["seat"] for e in events if e["type"] == "PunterSkipped" and opened["seq"] < e["seq"] < fixed_at
    }
    members = sorted(
        {s for s in opened["data"]["entrants"] if s not in skipped}
        | ({history["banker"]["seat"]} if history["banker"]["seat"] is not None else set())
    )
    parts = [by_seat.get(s) or seeds.get(seats.get(s, ""), "?") for s in members]
    expected = ":".join(parts)
    if client_seed is None and not hand.deals:
        report.note("client seed", "no card was dealt: the hand's client seed was never fixed, no deck was shuffled")
    elif "?" in parts:
        report.note("client seed", f"{client_seed!r}: the events given do not show every participant's seed")
    elif me is not None and str(me["id"]) in seats.values():
        mine = seeds.get(str(me["id"]))
        report.line(
            expected == client_seed and mine in (client_seed or "").split(":"),
            "client seed",
            f"{client_seed!r} holds yours ({mine!r}) and is the participants' seeds in seat order ({expected!r})",
        )
    else:
        report.line(
            expected == client_seed,
            "client seed",
            f"{client_seed!r} is the participants' seeds in seat order ({expected!r})",
        )


def check_seed_timing(report: Report, history: dict[str, Any], committed_at: int | None) -> None:
    """Whether each participant's client seed was set after the hand's commitment was published."""
    for p in history["participants"]:
        if p["role"] == "banker" and p["seat"] is None:
            continue  # the house has no client seed
        who = f"seat {p['seat']} ({p['username']})"
        set_at = p.get("client_seed_set_at")
        if set_at is None or committed_at is None:
            report.note("seed timing", f"{who}: the casino does not say when his client seed was set")
        elif set_at > committed_at:
            report.line(
                True,
                "seed timing",
                f"{who}: client seed set at seq {set_at}, after the commitment (seq {committed_at}): "
                "the deck was not chosen against it",
            )
        else:
            report.note(
                "seed timing",
                f"{who}: client seed set at seq {set_at}, before the commitment (seq {committed_at}): for this "
                "hand he trusts the operator not to have chosen the server seed against it",
            )


def _seeds_at(events: list[dict[str, Any]], before_seq: int) -> tuple[dict[str, str], dict[int, str]]:
    """(player id -> client seed, seat -> player id) from the feed, as they were before ``before_seq``."""
    seeds: dict[str, str] = {}
    seats: dict[int, str] = {}
    for e in events:
        if e["seq"] >= before_seq:
            break
        data = e["data"]
        if e["type"] == "SeatTaken":
            seats[data["seat"]] = data["player_id"]
            seeds[data["player_id"]] = data["client_seed"]
        elif e["type"] == "ClientSeedSet":
            seeds[data["player_id"]] = data["client_seed"]
        elif e["type"] == "SeatLeft":
            seats.pop(data["seat"], None)
    return seeds, seats
