"""The seed checks: ``commitment`` (the revealed server seed is the one committed, and only one was),
``published`` (the commitment was public before the first card), ``client seed`` (the participants' seeds in seat
order, as the signed facts and events give them) and ``seed timing`` (whether each participant's seed was set after
the commitment was published); with ``--my-seeds``, ``my seeds`` (every seed of yours the hand used is one your
own record holds)."""

from __future__ import annotations

import hashlib
from typing import Any

from verifier.hand import Hand
from verifier.report import Report

HEX = frozenset("0123456789abcdef")


def check_seeds(report: Report, hand: Hand, me: dict[str, Any] | None) -> None:
    """Every seed check of ``hand``, in order (``me``: the user checking it live, whose seed must be in it)."""
    check_commitment(report, hand)
    committed_at = check_published(report, hand)
    check_client_seed(report, hand, me)
    check_seed_timing(report, hand, committed_at)


def check_commitment(report: Report, hand: Hand) -> None:
    """sha256 of the revealed server seed is the commitment the hand opened with (a hand abandoned before it
    revealed its seed fails), and the hand's seed was committed once: a committed seed is never replaced."""
    number, seed, commitment = hand.number, hand.server_seed, hand.opened["data"]["seed_commitment"]
    valid = len(seed) == 64 and set(seed) <= HEX
    actual = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if valid else None
    if seed or hand.closed["type"] == "HandSettled":
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
            f"{', '.join(str(e['seq']) for e in commitments[:5])}): a committed seed is never replaced",
        )


def check_published(report: Report, hand: Hand) -> int | None:
    """The commitment was in the events before the hand's first card (and at the history's
    ``seed_committed_at``); the seq it was first published at, None when it was not."""
    history, number, opened, first_card = hand.history, hand.number, hand.opened, hand.first_card
    commitment = opened["data"]["seed_commitment"]
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
            opened["seq"] < first_card,
            "published",
            f"a hand of the old form: committed as it opened (seq {opened['seq']}), after its client seed was fixed",
        )
    else:
        report.line(False, "published", f"no commitment of hand #{number} in the events before seq {first_card}")
    return None


def members(hand: Hand) -> list[int]:
    """The seats whose client seeds make the hand's: the banker and every entrant not skipped before the client
    seed was fixed, in seat order (as the events say)."""
    opened = hand.opened
    fixed_at = hand.first_card if not opened["data"].get("client_seed") else opened["seq"]
    skipped = {
        e["data"]["seat"] for e in hand.events if e["type"] == "PunterSkipped" and opened["seq"] < e["seq"] < fixed_at
    }
    seats = {s for s in opened["data"]["entrants"] if s not in skipped}
    banker = opened["data"]["banker_seat"]
    return sorted(seats | ({banker} if banker is not None else set()))


def check_client_seed(report: Report, hand: Hand, me: dict[str, Any] | None) -> None:
    """The hand's client seed (fixed by the events) is its participants' client seeds of that moment, as the signed
    facts and the events after them say, joined with ':' in seat order (and, live, holds the checking user's)."""
    client_seed = hand.client_seed
    parts = [hand.seats[s].client_seed if s in hand.seats else "?" for s in members(hand)]
    expected = ":".join(parts)
    if not client_seed and not hand.dealt:
        report.note("client seed", "no card was dealt: the hand's client seed was never fixed, no deck was shuffled")
    elif "?" in parts:
        report.note(
            "client seed",
            f"{client_seed!r}: the signed events given do not show every participant's seed (signed before v1.3)",
        )
    elif me is not None and any(seat.player == str(me["id"]) for seat in hand.seats.values()):
        mine = next(seat.client_seed for seat in hand.seats.values() if seat.player == str(me["id"]))
        report.line(
            expected == client_seed and mine in client_seed.split(":"),
            "client seed",
            f"{client_seed!r} holds yours ({mine!r}) and is the participants' seeds in seat order ({expected!r})",
        )
    else:
        report.line(
            expected == client_seed,
            "client seed",
            f"{client_seed!r} is the participants' seeds in seat order ({expected!r})",
        )


def check_seed_timing(report: Report, hand: Hand, committed_at: int | None) -> None:
    """Whether each participant's client seed (as signed) was set after the hand's commitment was published."""
    names = {p["seat"]: p["username"] for p in hand.history["participants"]}
    for seat in members(hand):
        who = f"seat {seat} ({names.get(seat)})"
        signed = hand.seats.get(seat)
        if signed is None or committed_at is None:
            report.note("seed timing", f"{who}: the signed events do not say when his client seed was set")
        elif signed.set_at > committed_at:
            report.line(
                True,
                "seed timing",
                f"{who}: client seed set at seq {signed.set_at}, after the commitment (seq {committed_at}): "
                "the deck was not chosen against it",
            )
        else:
            report.note(
                "seed timing",
                f"{who}: client seed set at seq {signed.set_at}, before the commitment (seq {committed_at}): for "
                "this hand he trusts the operator not to have chosen the server seed against it",
            )


def check_my_seeds(report: Report, hand: Hand, record: dict[str, Any]) -> None:
    """``--my-seeds``: every client seed of the record's player that went into the hand is one the record holds,
    set at the table version the signed events say (a seed change recorded in his name that his own client never
    made is named)."""
    player, table = str(record["player"]), hand.history["table"]
    held = {(str(r["client_seed"]), int(r["version"])) for r in record["seeds"] if r["table"] == table}
    mine = [(s, hand.seats[s]) for s in members(hand) if s in hand.seats and hand.seats[s].player == player]
    if not mine:
        report.note("my seeds", f"player {player} did not take part in this hand (by the signed events)")
        return
    foreign = [(s, seat) for s, seat in mine if (seat.client_seed, seat.set_at) not in held]
    if foreign:
        seat, signed = foreign[0]
        report.line(
            False,
            "my seeds",
            f"seat {seat}: the hand used client seed {signed.client_seed!r}, set at seq {signed.set_at} in your "
            "name, which your own record does not hold: you did not set it",
        )
    else:
        report.line(True, "my seeds", f"the hand used only client seeds your record holds ({len(mine)} of yours)")
