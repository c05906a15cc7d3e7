"""Replay and verification of a hand (DESIGN.md principle 10): products, not debug tools.

``replay_hand`` gives the full table state after each event of a hand. ``verify_hand`` checks, each saying
"ok" or exactly what differs:

- ``commitment``: the revealed server seed hashes to the hand's commitment, which was published (``SeedCommitted``)
  before the hand opened (hands of the old form: published when the hand opened);
- ``shuffle``: the published shuffle of (server seed, client seed, nonce) reproduces every card dealt, in order;
- ``replay``: re-running the recorded commands through ``decide`` from the hand's starting state reproduces
  the recorded events exactly (the seeds, never recorded, are put back from their reveals);
- ``ledger``: the ledger holds exactly the postings the hand's stakes and settlement imply, and no others;
- ``chain``: the stream's hash chain is intact up to the end of the hand;
- ``checkpoint``: every signed checkpoint of the table still matches the chain (signature by a configured key,
  and the chain hash stored at its version is the one that was signed).

The result is a :class:`Verification`: its ``checks`` (exactly :data:`CHECKS`) decide whether the hand verifies;
its ``notes`` never do. A hand whose history shows no deck has the note ``deck``: why (no card was dealt, so its
client seed was never fixed and no deck was ever shuffled; or its seed was never revealed).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from msgspec.structs import replace

from rules import (
    ESCROW,
    HOUSE,
    PLAIN_PREFIX,
    CardDealt,
    ClientSeedFixed,
    Context,
    DomainError,
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    TableState,
    chip_moves,
    decide,
    event_to_json,
    evolve,
    initial_state,
    no_deck_reason,
    recorded_command,
    seed_commitment,
    shuffle_deck,
)
from tables import fairness, loader, snapshots
from tables.errors import HandInPlay
from tables.event_queries import checkpoints_against_chain, seed_commitments, seed_pledges
from tables.ledger_bridge import event_cause
from tables.models import Hand
from tables.signals import report_verification_failure
from tables.store import StoredEvent, chain_problems, load_stream

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
_CLOSING_SLACK = 32  # events read past a hand's closing event at a time: the rest of the command that closed it


@dataclass(frozen=True, slots=True)
class HandEvents:
    """A hand's slice of its table's stream: the state before its first command and the commands' events."""

    hand: Hand
    start_state: TableState
    before: list[StoredEvent]  # every event of the stream before the first command of the hand
    events: list[StoredEvent]  # the events of every command from the one that opened the hand to the one that closed it
    opened: int  # version of HandOpened
    closed: int | None  # version of HandSettled / HandAbandoned


def _batch_start(event: StoredEvent) -> int:
    return int(event.metadata.get("command_version") or event.version)


def _cached_start(hand: Hand) -> TableState | None:
    """The state before the hand's first command, cached when the hand opened (None if unusable)."""
    if hand.start_state is None or hand.start_schema != snapshots.SNAPSHOT_SCHEMA or hand.start_version is None:
        return None
    return snapshots.state_from_db(
        hand.start_state,
        binding=snapshots.hand_start_binding(hand.table_id, hand.start_version),
        version=hand.start_version,
        what=f"the cached starting state of hand {hand.pk}",
    )


def _hand_stream(hand: Hand, *, after_version: int) -> list[StoredEvent]:
    """The table's events after ``after_version`` up to the end of the command that closed the hand, not the
    table's later history (a hand in play: up to the latest event)."""
    closed = hand.closed_version
    if closed is None:
        return load_stream(hand.table_id, after_version=after_version)
    upto = closed + _CLOSING_SLACK
    stream = load_stream(hand.table_id, after_version=after_version, upto_version=upto)
    # the read stopped at its bound inside the command that closed the hand: that command goes on
    while stream and stream[-1].version == upto and _batch_start(stream[-1]) <= closed:
        stream += load_stream(hand.table_id, after_version=upto, upto_version=upto + _CLOSING_SLACK)
        upto += _CLOSING_SLACK
    return stream


def load_hand(hand: Hand, *, full: bool = False) -> HandEvents:
    """The events of ``hand`` grouped to whole commands, and the state before them.

    The starting state comes from the cache written when the hand opened; ``full`` (or a missing or outdated
    cache) folds it from the table's first event instead, and then ``before`` holds every earlier event so the
    whole chain up to the hand is checked too.
    """
    start = None if full else _cached_start(hand)
    if start is not None:
        first = start.version + 1
        stream = _hand_stream(hand, after_version=max(first - 2, 0))
        before, rest = ([stream[0]], stream[1:]) if first > 1 else ([], stream)
    else:
        stream = _hand_stream(hand, after_version=0)
        first = _batch_start(stream[hand.opened_version - 1])
        before, rest = stream[: first - 1], stream[first - 1 :]
        start = initial_state()
        for stored in before:
            start = evolve(start, loader.decode(stored))
    upto = len(rest)
    if hand.closed_version is not None:
        # up to the end of the command that closed the hand
        closing = hand.closed_version - first
        batch = _batch_start(rest[closing])
        upto = closing + 1
        while upto < len(rest) and _batch_start(rest[upto]) == batch:
            upto += 1
    return HandEvents(hand, start, before, rest[:upto], hand.opened_version, hand.closed_version)


def replay_hand(hand: Hand) -> list[tuple[StoredEvent, TableState]]:
    """The state after each event of the hand, from HandOpened to its settlement (or the latest event)."""
    loaded = load_hand(hand)
    state = loaded.start_state
    steps: list[tuple[StoredEvent, TableState]] = []
    for stored in loaded.events:
        state = evolve(state, loader.decode(stored))
        if stored.version >= loaded.opened and (loaded.closed is None or stored.version <= loaded.closed):
            steps.append((stored, state))
    return steps


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


def _revealed_seeds(events: Sequence[StoredEvent]) -> dict[str, str]:
    """Commitment -> seed of every seed revealed in ``events`` (the seeds the recorded commands ran with)."""
    revealed: dict[str, str] = {}
    for stored in events:
        if stored.type in ("HandSettled", "HandAbandoned"):
            seed = stored.data.get("server_seed")
            if isinstance(seed, str) and len(seed) == 64:
                try:
                    revealed[seed_commitment(bytes.fromhex(seed))] = seed
                except ValueError:
                    continue
    return revealed


def _with_revealed(context: Context, state: TableState, revealed: dict[str, str]) -> Context:
    """A recorded context with the seeds revealed since that it may use: those of the table's pledges when the
    command ran and of the seeds it offered (the core matches each to its commitment)."""
    offered = (*context.next_seeds, *((context.next_seed,) if context.next_seed is not None else ()))
    wanted = (*(pledge.commitment for pledge in state.pledges), *(seed.commitment for seed in offered))
    return replace(context, seeds=tuple(revealed[c] for c in wanted if c in revealed))


def _check_replay(start: TableState, events: Sequence[StoredEvent]) -> str:
    state = start
    batches: dict[int, list[StoredEvent]] = defaultdict(list)
    revealed = _revealed_seeds(events)
    for stored in events:
        batches[_batch_start(stored)].append(stored)
    for first_version, recorded in sorted(batches.items()):
        head = recorded[0]
        command_json = head.metadata.get("command")
        if command_json is None:
            return f"event {head.version}: no recorded command"
        try:
            command, context = recorded_command(command_json, head.metadata.get("context"))
            produced = decide(command, state, _with_revealed(context, state, revealed), replaying=True)
        except DomainError as exc:
            return f"command at event {first_version} ({command_json.get('type')}): refused on replay: {exc.message}"
        except Exception as exc:  # a malformed recorded command
            return f"command at event {first_version}: cannot be replayed ({exc.__class__.__name__}: {exc})"
        produced_json = [event_to_json(e) for e in produced]
        try:  # decoded and encoded again: fields added since (with their defaults) compare equal
            recorded_json = [event_to_json(loader.decode(s)) for s in recorded]
        except DomainError:
            recorded_json = [{"type": s.type, **s.data} for s in recorded]
        if (
            len(produced_json) < len(recorded_json)
            and first_version == max(batches)
            and recorded_json[len(produced_json)].get("type") == "HandOpened"
            and recorded_json[: len(produced_json)] == produced_json
        ):
            # the command that ended the hand also dealt the next one, whose seed is revealed when that hand ends:
            # this hand's part is checked here, the next hand's part with the next hand
            recorded = recorded[: len(produced_json)]
            recorded_json = recorded_json[: len(produced_json)]
        if len(produced_json) != len(recorded_json):
            return (
                f"command at event {first_version} ({command_json.get('type')}): produced {len(produced_json)} "
                f"events on replay, {len(recorded_json)} were recorded"
            )
        for stored, mine, theirs in zip(recorded, produced_json, recorded_json, strict=True):
            if mine != theirs:
                fields = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
                return (
                    f"event {stored.version} ({stored.type}) differs from the replay in {', '.join(fields)}: "
                    f"recorded {[theirs.get(k) for k in fields]}, replayed {[mine.get(k) for k in fields]}"
                )
        for event in produced:
            state = evolve(state, event)
    return "ok"


def _expected_postings(
    table_id: int, decoded: Sequence[tuple[StoredEvent, Event]], usernames: dict[str, str]
) -> dict[str, dict[str, int]]:
    def account(party: str) -> str:
        if party == ESCROW:
            return f"escrow:table:{table_id}"
        return f"house:bankroll:table:{table_id}" if party == HOUSE else f"player:{usernames[party]}"

    expected: dict[str, dict[str, int]] = {}
    for stored, event in decoded:
        moves = chip_moves(event)
        if moves:
            expected[event_cause(table_id, stored.version)] = {account(p): v for p, v in moves.items() if v}
    return expected


def _check_ledger(hand: Hand, decoded: Sequence[tuple[StoredEvent, Event]]) -> str:
    # the hand's entries with their postings and accounts, in one query
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.cause, a.code, a.kind, a.user_id, p.amount FROM ledger_transaction t "
            "JOIN ledger_posting p ON p.transaction_id = t.id JOIN ledger_account a ON a.id = p.account_id "
            "WHERE t.table_id = %s AND t.hand_id = %s ORDER BY t.id, p.id",
            [hand.table_id, hand.pk],
        )
        rows = cursor.fetchall()
    house = f"house:bankroll:table:{hand.table_id}"
    usernames = {str(user_id): code.removeprefix("player:") for _, code, kind, user_id, _ in rows if kind == "wallet"}
    parties = {str(getattr(e, "player_id", "")) for _, e in decoded} | {
        str(p) for _, e in decoded if isinstance(e, HandSettled) for p in e.payouts
    }
    unknown = [int(p) for p in parties if p.isdigit() and p not in usernames]
    if unknown:  # a party with no posting at all: its name comes from the users
        usernames |= {
            str(pk): name for pk, name in get_user_model().objects.filter(pk__in=unknown).values_list("pk", "username")
        }
    expected = _expected_postings(hand.table_id, decoded, usernames)
    legs_of: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for cause, code, _kind, _user_id, amount in rows:
        # hands posted before the house banked each table from its own account used the shared one
        legs_of[cause][house if code == "house:bankroll" else code] += amount
    actual = {cause: {k: v for k, v in legs.items() if v} for cause, legs in legs_of.items()}
    for cause, legs in expected.items():
        if cause not in actual:
            return f"no ledger transaction for {cause}"
        if actual[cause] != legs:
            return f"transaction {cause} posts {actual[cause]}, the events imply {legs}"
    extra = sorted(set(actual) - set(expected))
    if extra:
        return f"ledger transactions not explained by the hand's events: {', '.join(extra)}"
    escrow = sum(legs.get(f"escrow:table:{hand.table_id}", 0) for legs in actual.values())
    if hand.status == "settled" and escrow != 0:
        return f"the hand leaves {escrow} chips in escrow"
    return "ok"


def verify_hand(hand: Hand, *, record: bool = True, full: bool = False, source: str = "api") -> Verification:
    """Run every check on a settled (or abandoned) hand; each value is "ok" or what differs.

    By default the hand starts from the state cached when it opened and the chain is checked from the event
    before it; ``full`` folds the table from its first event and checks the whole chain up to the hand.
    ``record`` keeps the outcome on the hand's row; a failure is always kept (``backoffice.models.
    VerificationFailure``, with ``source``: who ran the check) for the dashboard and the metrics.
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
    opened_at = next(((s.version, e) for s, e in in_hand if isinstance(e, HandOpened)), None)
    closing = next((e for _, e in in_hand if isinstance(e, (HandSettled, HandAbandoned))), None)
    report: dict[str, str] = {}
    notes: dict[str, str] = {}
    if opened_at is None:
        report["commitment"] = report["shuffle"] = f"event {loaded.opened} is not the opening of hand {hand.number}"
    else:
        opened_version, opened = opened_at
        deals = [(s.version, e) for s, e in in_hand if isinstance(e, CardDealt) and e.number == opened.number]
        first_card = deals[0][0] if deals else None
        report["commitment"] = _check_commitment(hand.table_id, opened, opened_version, closing, first_card)
        fixed = next((e for _, e in in_hand if isinstance(e, ClientSeedFixed) and e.number == opened.number), None)
        client_seed = opened.client_seed or (fixed.client_seed if fixed is not None else "")
        if report["commitment"] != "ok":
            report["shuffle"] = "not checked: " + report["commitment"]
        elif deals and not client_seed:
            report["shuffle"] = "cards were dealt, but the hand's client seed was never fixed"
        else:
            seed_hex = getattr(closing, "server_seed", "")
            report["shuffle"] = _check_shuffle(opened, client_seed, seed_hex, deals)
    report["replay"] = _check_replay(loaded.start_state, loaded.events)
    no_deck = _no_deck_reason(loaded, decoded, hand.number)
    if no_deck is not None:
        notes["deck"] = no_deck
    report["ledger"] = _check_ledger(hand, in_hand)
    chained = loaded.before + loaded.events
    problems = (
        chain_problems(chained)
        if not loaded.before or loaded.before[0].version == 1
        else chain_problems(chained[1:], prev_hash=chained[0].hash)
    )
    report["chain"] = "ok" if not problems else "; ".join(problems[:5])
    report["checkpoint"] = check_checkpoints(hand.table_id)
    result = Verification({check: report[check] for check in CHECKS}, notes)
    if not result.ok:
        report_verification_failure(
            table_id=hand.table_id, hand_id=hand.pk, hand_number=hand.number, checks=result.checks, source=source
        )
    if record:
        with transaction.atomic():
            Hand.objects.filter(pk=hand.pk).update(verified_at=timezone.now(), verified_ok=result.ok)
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
    for version, signed_hash, key_id, signature, at, stored_hash in rows:
        if not fairness.checkpoint_signature_ok(table_id, version, signed_hash, key_id, signature):
            return f"the checkpoint at version {version} ({at:%Y-%m-%d %H:%M:%S}) is not signed by key {key_id}"
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
