"""The working record of one ``decide`` call: the command, the state so far, the events so far and the wallets.

``decide`` plans events by emitting them into a :class:`Draft`, which folds each one with ``evolve`` so later
steps see their effect. It holds no flag steering what happens next: the automatic steps (``flow``) derive
that from the command, the state and the events emitted so far. Wallets start from ``ctx.wallets`` and follow
the reserves and payouts of the events emitted so far in this command. A raised :class:`DomainError` discards
everything.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from gamemath.enums import StakeMode
from gamemath.errors import InvalidRequest, NotFound
from gamemath.ruleset import Rules
from gamemath.shuffle import seed_commitment, shuffle_deck
from rules.chips import CHIP_EVENTS, ESCROW, chip_moves
from rules.commands import Command, Context, NextSeed
from rules.config import TableConfig
from rules.events import HOUSE, Event, HandAbandoned, HandSettled, SeedCommitted
from rules.evolve import EVOLVERS
from rules.state import HandState, TableState

#: The sealed form of a seed kept in plain text: what the core commits to when the command offers no fresh seed
#: (the tests' and the simulator's own entry points: ``Context.from_simulation``). Only such a command deals from it:
#: a pledge of this form found in a table that a shell drives (a row written into the database) is never opened.
PLAIN_PREFIX = "plain:"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def simulated_seed(entropy: str, number: int) -> str:
    """The plain seed a simulation commits for hand ``number``: derived from the command's entropy (64 hex)."""
    return hashlib.sha256(f"{entropy}:seed:{number}".encode()).hexdigest()


class SeedUnavailable(Exception):
    """The seed of hand ``number`` is needed (to deal or to reveal) but the command carries no seed matching its
    commitment (its sealed form could not be opened). ``handle`` then abandons the hand, returning every stake."""

    def __init__(self, number: int) -> None:
        super().__init__(f"the seed of hand {number} is unavailable")
        self.number = number


def _deck(server_seed: str, client_seed: str, number: int) -> tuple[str, ...]:
    """The published shuffle of hand ``number`` (a pure function of its arguments).

    Not cached across commands: a cache keyed by the plain seed would keep the seed (and the undealt cards) of a
    hand in play in process memory after the command that needed them (DESIGN.md principle 13). Within one
    command the :class:`Draft` keeps the deck it derived (``_decks``) and drops it with the command.
    """
    return tuple(shuffle_deck(bytes.fromhex(server_seed), client_seed, number))


def _opens(plain: str, commitment: str) -> bool:
    """Whether ``plain`` is the seed ``commitment`` commits to (64 lowercase hex whose sha256 it is).

    Not cached across commands, for the reason given at :func:`_deck` (one sha256 per command is nothing).
    """
    return _HEX64.fullmatch(plain) is not None and seed_commitment(bytes.fromhex(plain)) == commitment


class Draft:
    """The draft of one command's outcome: the events so far and the state they lead to (discarded whole when the
    command is refused). Not a database transaction: nothing is written until the shell appends the events."""

    __slots__ = (
        "_decks",
        "_delta",
        "_released",
        "_returned",
        "_risked",
        "_seeds",
        "command",
        "config",
        "ctx",
        "events",
        "replaying",
        "rules",
        "start",
        "state",
        "unopenable",
    )

    def __init__(
        self,
        state: TableState,
        ctx: Context,
        command: Command | None = None,
        *,
        replaying: bool = False,
        unopenable: int | None = None,
    ) -> None:
        #: the command being decided, the state it is decided on and its context: what the flow derives from
        self.command = command
        self.start = state
        self.state = state
        self.events: list[Event] = []
        self.ctx = ctx
        self._delta: dict[str, int] = {}
        self._risked: dict[str, int] = {}  # chips each party committed in this command (never lowered by a win)
        self._returned: dict[str, int] = {}  # chips this command's settlements paid each party (reserve and winnings)
        self._released: dict[str, int] = {}  # of which his own reserves released (what he had at risk)
        #: plain seeds this command knows, by hand number (the committed ones unsealed by the shell)
        self._seeds: dict[int, str] = {}
        #: a verifier re-running a recorded command: a hand whose seed is not revealed yet is not opened
        self.replaying = replaying
        #: the hand whose committed seed cannot be opened: it opens and is abandoned at once (``decide``)
        self.unopenable = unopenable
        #: the decks this command dealt from, by hand number (derived and checked once per command)
        self._decks: dict[int, tuple[str, ...]] = {}
        if state.pledges and (ctx.seeds or ctx.seed is not None):
            numbers = {pledge.commitment: pledge.number for pledge in state.pledges}
            for plain in (ctx.seed, *ctx.seeds):
                if isinstance(plain, str) and _HEX64.fullmatch(plain) is not None:
                    number = numbers.get(seed_commitment(bytes.fromhex(plain)))
                    if number is not None:
                        self._seeds[number] = plain
        config = state.config
        if config is not None:
            self.use_config(config)

    def use_config(self, config: TableConfig) -> None:
        """The table's configuration and its rules."""
        self.config: TableConfig = config
        self.rules: Rules = config.rules

    def emit(self, event: Event) -> None:
        """Record ``event``, fold it into the working state (``evolve``, without its dispatch call) and move the
        wallets by the chips it moves (:func:`~.chips.chip_moves`)."""
        self.events.append(event)
        self.state = EVOLVERS[type(event)](self.state, event)
        if type(event) in CHIP_EVENTS:
            for party, amount in chip_moves(event).items():
                if party != ESCROW:
                    self._delta[party] = self._delta.get(party, 0) + amount
                    if amount < 0:
                        self._risked[party] = self._risked.get(party, 0) - amount
            if isinstance(event, (HandSettled, HandAbandoned)):
                self._count_payouts(event)

    def _count_payouts(self, event: HandSettled | HandAbandoned) -> None:
        """What a settlement (or an abandoned hand) paid each party, and how much of it was his released reserve
        (the payout less his net in the hand): the loss room follows both (``loss_room``)."""
        nets: dict[str, int] = {}
        if isinstance(event, HandSettled):
            for result in event.results:
                nets[result.player_id] = nets.get(result.player_id, 0) + result.net
            if event.banker_id is not None:
                nets[event.banker_id] = nets.get(event.banker_id, 0) + event.banker_net
        for party in event.payouts.keys() | nets.keys():  # a party who lost all he reserved is paid nothing
            amount = event.payouts.get(party, 0)
            self._returned[party] = self._returned.get(party, 0) + amount
            self._released[party] = self._released.get(party, 0) + amount - nets.get(party, 0)

    @property
    def hand(self) -> HandState:
        """The current hand (callers check that one exists)."""
        hand = self.state.hand
        if hand is None:  # pragma: no cover - guarded by callers
            raise NotFound("no hand is open")
        return hand

    # -- chips ---------------------------------------------------------------------------------------------
    def available(self, party: str | None, credit: Mapping[str, int] | None = None) -> int | None:
        """Chips ``party`` can still commit in this command (and with ``credit``: payouts not emitted yet); None
        means unlimited (a house bank with no ``"house"`` entry in the wallets)."""
        key = HOUSE if party is None else party
        wallets = self.ctx.wallets
        if key == HOUSE and key not in wallets:
            return None
        balance = wallets.get(key, 0)
        if type(balance) is not int and (not isinstance(balance, int) or isinstance(balance, bool)):
            raise InvalidRequest("wallets map player ids to integer chip balances", {"field": "wallets"})
        return balance + self._delta.get(key, 0) + (credit.get(key, 0) if credit else 0)

    def loss_room(self, party: str | None) -> int | None:
        """Chips ``party`` may still put at risk under his loss limit (``ctx.loss_room``); None: no limit. With his
        ``ctx.loss_ceiling`` (contract v1.3), a hand settled in this command counts: its payout to him comes back
        to his headroom, and his released reserve to his ceiling."""
        if party is None or party not in self.ctx.loss_room:
            return None
        risked = self._risked.get(party, 0)
        ceiling = self.ctx.loss_ceiling.get(party)
        if ceiling is None:
            return self.ctx.loss_room[party] - risked
        headroom = self.ctx.loss_room[party] + self._returned.get(party, 0) - risked
        return min(headroom, ceiling + self._released.get(party, 0) - risked)

    def can_commit(self, party: str | None, credit: Mapping[str, int] | None = None) -> int | None:
        """Chips ``party`` can commit now: his wallet, capped by his loss room; None means unlimited."""
        avail, room = self.available(party, credit), self.loss_room(party)
        if avail is None or room is None:
            return room if avail is None else avail
        return min(avail, room)

    def covers(self, party: str | None, amount: int, credit: Mapping[str, int] | None = None) -> bool:
        """True if ``party`` can commit ``amount`` chips: his wallet (with ``credit``) and his loss room allow it."""
        avail = self.can_commit(party, credit)
        return avail is None or avail >= amount

    # -- time ----------------------------------------------------------------------------------------------
    def turn_deadline(self) -> int:
        """Deadline of a decision that starts now."""
        return self.ctx.now_ms + self.config.turn_timeout_s * 1000

    def betting_deadline(self) -> int:
        """Deadline of a betting window that opens now."""
        return self.ctx.now_ms + self.config.betting_timeout_s * 1000

    # -- stakes --------------------------------------------------------------------------------------------
    def min_stake(self, hand: HandState | None = None) -> int:
        """The least stake: S under ``bank_fixed`` (of ``hand`` if given, else for the next hand), else min."""
        if self.rules.stake_mode == StakeMode.BANK_FIXED:
            s = hand.stake if hand is not None else self.state.stake
            if s is not None:
                return s
        return self.config.min_bet

    # -- seeds ---------------------------------------------------------------------------------------------
    def commit_next_seed(self) -> None:
        """Contract v1.1 (a recorded command re-run as it ran then): commit ``ctx.next_seed`` for the next hand."""
        self.commit_seed(self.state.hands_opened + 1)

    def _offered(self, number: int) -> NextSeed | None:
        for offered in self.ctx.next_seeds:
            if offered.number == number:
                return offered
        return self.ctx.next_seed if self.ctx.schedule_v11 else None

    def commit_seed(self, number: int) -> None:
        """Publish the commitment of hand ``number``'s seed, drawn by the shell (``ctx.next_seeds``); a simulation
        commits to a seed derived from ``entropy``, kept in plain text. A seed once committed is never drawn again,
        replaced or re-drawn."""
        offered = self._offered(number)
        plain: str | None
        if offered is None:
            if not self.ctx.from_simulation:
                raise InvalidRequest(f"no fresh seed was offered for hand {number}", {"field": "next_seeds"})
            plain = simulated_seed(self.ctx.entropy, number)
            commitment, sealed = seed_commitment(bytes.fromhex(plain)), PLAIN_PREFIX + plain
        else:
            plain, commitment, sealed = offered.seed, offered.commitment, offered.sealed
            if not isinstance(commitment, str) or not _HEX64.fullmatch(commitment) or not isinstance(sealed, str):
                raise InvalidRequest(
                    "next_seed needs a commitment (64 lowercase hex) and a sealed form", {"field": "next_seeds"}
                )
        if plain is None:  # a verifier re-running a recorded command: the seed revealed since, if any
            plain = self._carried(commitment)
        if plain is not None:
            self._seeds[number] = plain
        self.emit(SeedCommitted(number=number, seed_commitment=commitment, sealed_seed=sealed))

    def _carried(self, commitment: str) -> str | None:
        """The plain seed among those the context carries that ``commitment`` commits to, if any."""
        for plain in (self.ctx.seed, *self.ctx.seeds):
            if isinstance(plain, str) and _opens(plain, commitment):
                return plain
        return None

    def _plain(self, number: int) -> str | None:
        """The plain seed of hand ``number`` this command carries; a pledge kept in plain text only for a command
        of the tests' or the simulator's own entry points (never for one from the shell)."""
        plain = self._seeds.get(number)
        if plain is None and self.ctx.from_simulation:
            pledge = self.state.pledge_for(number)
            if pledge is not None and pledge.sealed.startswith(PLAIN_PREFIX):
                plain = pledge.sealed[len(PLAIN_PREFIX) :]
        return plain

    def knows_seed(self, number: int) -> bool:
        """Whether this command can open the committed seed of hand ``number``."""
        pledge = self.state.pledge_for(number)
        plain = self._plain(number)
        return pledge is not None and isinstance(plain, str) and _opens(plain, pledge.commitment)

    def server_seed(self, hand: HandState) -> str:
        """The plain server seed of ``hand`` (hex), checked against its commitment; raises SeedUnavailable."""
        if hand.server_seed:  # a hand opened before seeds were committed ahead
            return hand.server_seed
        plain = self._plain(hand.number)
        if not isinstance(plain, str) or not _opens(plain, hand.seed_commitment):
            raise SeedUnavailable(hand.number)
        return plain

    def deck(self, hand: HandState) -> tuple[str, ...]:
        """The hand's 40 cards in dealing order (kept only within this command for a hand committed ahead)."""
        if hand.deck:
            return hand.deck
        deck = self._decks.get(hand.number)
        if deck is None:
            deck = self._decks[hand.number] = _deck(self.server_seed(hand), hand.client_seed, hand.number)
        return deck
