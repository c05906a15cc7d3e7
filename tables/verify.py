"""Verification of a hand (DESIGN.md principle 10): a product, not a debug tool.

``verify_hand`` checks, each saying "ok" or exactly what differs:

- ``commitment``: the revealed server seed hashes to the hand's commitment, which was published (``SeedCommitted``)
  before the hand opened (hands of the old form: published when the hand opened);
- ``shuffle``: the published shuffle of (server seed, client seed, nonce) reproduces every card dealt, in order;
- ``replay``: re-running the recorded commands through ``decide`` from the hand's starting state reproduces
  the recorded events exactly (``tables.verify_replay``);
- ``ledger``: the ledger holds exactly the postings the hand's stakes and settlement imply, and no others
  (``tables.verify_ledger``);
- ``chain``: the stream's hash chain is intact up to the end of the hand;
- ``checkpoint``: every signed checkpoint of the table still matches the chain (signature by a configured key,
  and the chain hash stored at its version is the one that was signed).

The hand's events come from ``tables.hand_events`` (which also replays a hand for the surfaces that show it).
The result is a :class:`Verification`: its ``checks`` (exactly :data:`CHECKS`) decide whether the hand verifies;
its ``notes`` never do. A hand whose history shows no deck has the note ``deck``: why (no card was dealt, so its
client seed was never fixed and no deck was ever shuffled; or its seed was never revealed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from gamemath.chainhash import facts_sha256, form_at, hash_form
from rules import (
    PLAIN_PREFIX,
    CardDealt,
    ClientSeedFixed,
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    evolve,
    no_deck_reason,
    seed_commitment,
    shuffle_deck,
)
from tables import checkpoint_signing, loader
from tables.errors import HandInPlay
from tables.event_queries import checkpoints_against_chain, seed_commitments, seed_pledges, signed_forms
from tables.hand_events import HandEvents, load_hand
from tables.models import Hand
from tables.signals import report_verification_failure
from tables.store import StoredEvent, chain_problems
from tables.verify_ledger import check_ledger
from tables.verify_replay import check_replay

CHECKS = ("commitment", "shuffle", "replay", "ledger", "chain", "checkpoint")
NOTES = ("deck",)


@dataclass(frozen=True, slots=True)
class Verification:
    """What :func:`verify_hand` found: each of :data:`CHECKS` "ok" or what differs, and notes beside them (what
    could not be shown, and why), which never decide whether the hand verifies."""

    checks: dict[str, str]
    notes: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, check: str) -> str:
        return self.checks[check]

    def get(self, check: str, default: str | None = None) -> str | None:
        return self.checks.get(check, default)

    @property
    def ok(self) -> bool:
        return verification_ok(self.checks)

    def failing(self) -> dict[str, str]:
        """The checks that did not pass, with what differs."""
        return {check: text for check, text in self.checks.items() if text != "ok"}

    def as_body(self) -> dict[str, str]:
        """The API's body (``GET /hands/{id}/verify``): every check, then the notes as extension fields."""
        return {**self.checks, **self.notes}


def _check_commitment(
    table_id: int,
    opened: HandOpened,
    opened_version: int,
    closing: HandSettled | HandAbandoned | None,
    first_card: int | None,
) -> str:
    plain = [v for v, _, sealed in seed_pledges(table_id, number=opened.number) if sealed.startswith(PLAIN_PREFIX)]
    if plain:
        # the tests' and the simulator's own form: no shell ever writes it, so stored data that holds it was
        # written around the application (DESIGN.md: a back door in stored data)
        return (
            f"event {plain[0]} committed the seed of hand {opened.number} in plain text ({PLAIN_PREFIX}...), "
            "a form the server never writes: that seed was known before the hand"
        )
    revealed = getattr(closing, "server_seed", None)
    if not revealed:
        if isinstance(closing, HandAbandoned) and closing.reason == "seed_unavailable":
            return (
                "never revealed: the hand was abandoned because its sealed seed could not be opened "
                "(every stake was returned)"
            )
        return "the server seed was not revealed at settlement"
    if opened.server_seed and revealed != opened.server_seed:
        return "the revealed server seed differs from the one the hand was dealt with"
    try:
        seed = bytes.fromhex(revealed)
    except ValueError:
        return "the revealed server seed is not hexadecimal"
    actual = seed_commitment(seed)
    if actual != opened.seed_commitment:
        return f"sha256(server_seed) is {actual}, but the hand committed to {opened.seed_commitment}"
    if opened.server_seed:  # the old form: the commitment was published as the hand opened
        return "ok"
    published = [(v, c) for v, c in seed_commitments(table_id, number=opened.number) if v < opened_version]
    if not published:
        return f"no commitment of hand {opened.number} was published before it opened (event {opened_version})"
    version, commitment = published[-1]
    if commitment != opened.seed_commitment:
        return f"the hand opened with {opened.seed_commitment}, but event {version} published {commitment}"
    if first_card is not None and version >= first_card:
        return f"the commitment (event {version}) was published after the first card (event {first_card})"
    return "ok"


def _check_shuffle(opened: HandOpened, client_seed: str, seed_hex: str, deals: Sequence[tuple[int, CardDealt]]) -> str:
    deck = shuffle_deck(bytes.fromhex(seed_hex), client_seed, opened.number)
    for position, (version, deal) in enumerate(deals):
        if deal.deck_index != position:
            return f"event {version}: card {deal.card} left the deck at index {deal.deck_index}, expected {position}"
        if deal.card != deck[position]:
            return f"event {version}: dealt {deal.card}, but the shuffle puts {deck[position]} at deck index {position}"
    return "ok"


def _no_deck_reason(loaded: HandEvents, decoded: Sequence[tuple[StoredEvent, Event]], number: int) -> str | None:
    """Why the hand's history shows no deck (its ``deck_reason``), or None when it shows one."""
    state = loaded.start_state
    for stored, event in decoded:
        state = evolve(state, event)
        if stored.version == loaded.closed:
            break
    hand = state.hand
    if hand is None or hand.number != number:
        return None
    return no_deck_reason(hand)


def _seed_checks(hand: Hand, loaded: HandEvents, in_hand: Sequence[tuple[StoredEvent, Event]]) -> dict[str, str]:
    """The ``commitment`` and ``shuffle`` checks of the hand's own events (``in_hand``): its revealed seed against
    its published commitment, then the cards it dealt against the shuffle of its seeds (not checked when the
    commitment fails: the seed is not the one the hand promised)."""
    opened_at = next(((s.version, e) for s, e in in_hand if isinstance(e, HandOpened)), None)
    if opened_at is None:
        problem = f"event {loaded.opened} is not the opening of hand {hand.number}"
        return {"commitment": problem, "shuffle": problem}
    opened_version, opened = opened_at
    closing = next((e for _, e in in_hand if isinstance(e, (HandSettled, HandAbandoned))), None)
    deals = [(s.version, e) for s, e in in_hand if isinstance(e, CardDealt) and e.number == opened.number]
    first_card = deals[0][0] if deals else None
    commitment = _check_commitment(hand.table_id, opened, opened_version, closing, first_card)
    fixed = next((e for _, e in in_hand if isinstance(e, ClientSeedFixed) and e.number == opened.number), None)
    client_seed = opened.client_seed or (fixed.client_seed if fixed is not None else "")
    if commitment != "ok":
        shuffle = "not checked: " + commitment
    elif deals and not client_seed:
        shuffle = "cards were dealt, but the hand's client seed was never fixed"
    else:
        shuffle = _check_shuffle(opened, client_seed, getattr(closing, "server_seed", ""), deals)
    return {"commitment": commitment, "shuffle": shuffle}


def _check_chain(loaded: HandEvents) -> str:
    """The ``chain`` check: every hash of the events read, from the event before the hand's first command (or the
    table's first event) to the end of the command that closed it, each in the hash form the checkpoints sign for
    it (API.md v1.3: an event in another form, or none, was rewritten after signing)."""
    chained = loaded.before + loaded.events
    problems = _form_problems(loaded.hand.table_id, chained)
    problems += (
        chain_problems(chained)
        if not loaded.before or loaded.before[0].version == 1
        else chain_problems(chained[1:], prev_hash=chained[0].hash)
    )
    return "ok" if not problems else "; ".join(problems[:5])


def _form_problems(table_id: int, events: Sequence[StoredEvent]) -> list[str]:
    """Events whose stored hash form is not the one the table's latest checkpoint that names forms signs for them
    (checkpoints signed before v1.3 name none: nothing to compare)."""
    if not events:
        return []
    signed = signed_forms(table_id, at_least=events[0].version)
    if signed is None:
        return []
    through, runs = signed
    for stored in events:
        if stored.version > through:
            break
        wanted, form = form_at(runs, stored.version), hash_form(stored.metadata)
        if form != wanted:
            return [
                f"event {stored.version} ({stored.type}) is stored in hash form {form}, the checkpoint at version "
                f"{through} signed form {wanted} for it (its hash form was changed after signing)"
            ]
    return []


def _keep_outcome(hand: Hand, result: Verification, *, record: bool, alert: bool, source: str) -> None:
    """A failure reported (``backoffice.models.VerificationFailure``, the dashboard, the metrics) unless ``alert``
    is off (the signer reports its own, once per cause); with ``record`` the outcome kept on the hand's row."""
    if alert and not result.ok:
        report_verification_failure(
            table_id=hand.table_id, hand_id=hand.pk, hand_number=hand.number, checks=result.checks, source=source
        )
    if record:
        with transaction.atomic():
            Hand.objects.filter(pk=hand.pk).update(verified_at=timezone.now(), verified_ok=result.ok)


def verify_hand(
    hand: Hand, *, record: bool = True, full: bool = False, source: str = "api", alert: bool = True
) -> Verification:
    """Run every check on a settled (or abandoned) hand; each value is "ok" or what differs.

    By default the hand starts from the state cached when it opened and the chain is checked from the event
    before it; ``full`` folds the table from its first event and checks the whole chain up to the hand.
    ``record`` keeps the outcome on the hand's row; a failure is kept (``backoffice.models.
    VerificationFailure``, with ``source``: who ran the check) for the dashboard and the metrics, unless ``alert``
    is off: then the caller reports it (the signer, once per table and cause: tables/signer.py).
    """
    if hand.status == "in_play":
        raise HandInPlay("the hand is still in play: it can be verified once it is settled", {"hand": hand.pk})
    loaded = load_hand(hand, full=full)
    decoded = [(s, loader.decode(s)) for s in loaded.events]
    in_hand = [
        (s, e)
        for s, e in decoded
        if loaded.opened <= s.version and (loaded.closed is None or s.version <= loaded.closed)
    ]
    report = _seed_checks(hand, loaded, in_hand)
    report["replay"] = check_replay(loaded.start_state, loaded.events)
    report["ledger"] = check_ledger(hand, in_hand)
    report["chain"] = _check_chain(loaded)
    report["checkpoint"] = check_checkpoints(hand.table_id)
    no_deck = _no_deck_reason(loaded, decoded, hand.number)
    result = Verification({check: report[check] for check in CHECKS}, {"deck": no_deck} if no_deck is not None else {})
    _keep_outcome(hand, result, record=record, alert=alert, source=source)
    return result


def verification_ok(report: Mapping[str, Any] | Verification) -> bool:
    """Every check passed (notes are not checks)."""
    checks = report.checks if isinstance(report, Verification) else report
    return all(checks.get(check) == "ok" for check in CHECKS)


def check_checkpoints(table_id: int, *, after: int = 0) -> str:
    """Every signed checkpoint of the table (after version ``after``) against the chain as stored now: "ok", or
    which signed version no longer matches (and the last one that still does, which bounds the rewrite)."""
    rows = checkpoints_against_chain(table_id, after_version=after)
    if not rows:
        return "ok"
    last_good: int | None = None
    for version, signed_hash, key_id, signature, at, stored_hash, forms, digest, facts in rows:
        if not checkpoint_signing.checkpoint_signature_ok(
            table_id, version, signed_hash, key_id, signature, forms, digest
        ):
            return f"the checkpoint at version {version} ({at:%Y-%m-%d %H:%M:%S}) is not signed by key {key_id}"
        facts = json.loads(facts) if isinstance(facts, str) else facts  # a raw cursor reads jsonb as text
        if digest is not None and (not isinstance(facts, dict) or facts_sha256(facts) != digest):
            return f"the checkpoint at version {version} signs facts of the table that are not the ones kept beside it"
        if stored_hash != signed_hash:
            since = f"; it matched the checkpoint at version {last_good}" if last_good is not None else ""
            now = "is missing" if stored_hash is None else f"is now {stored_hash}"
            return (
                f"the chain no longer matches the checkpoint signed at version {version} "
                f"({at:%Y-%m-%d %H:%M:%S}, key {key_id}): its hash {now}, {signed_hash} was signed{since}, so an "
                f"event between versions {(last_good or 0) + 1} and {version} was rewritten"
            )
        last_good = version
    return "ok"
