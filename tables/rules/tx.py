"""The working context of one ``decide`` call: the state so far, the events so far and the wallets.

``decide`` plans events by emitting them into a :class:`Tx`, which folds each one with ``evolve`` so later
steps see their effect. Wallets start from ``ctx.wallets`` and follow the reserves and payouts of the
events emitted so far in this command. A raised :class:`DomainError` discards everything.
"""

from __future__ import annotations

import re

from .commands import Context
from .config import TableConfig
from .errors import InvalidRequest, NotFound
from .events import HOUSE, Event, SeedCommitted
from .evolve import EVOLVERS
from .ruleset import Rules
from .shuffle import seed_commitment, shuffle_deck
from .state import HandState, TableState

#: The sealed form of a seed kept in plain text: what the core commits to when the caller supplies no
#: ``ctx.next_seed`` (tests, simulations). The service always supplies one (sealed by its key).
PLAIN_PREFIX = "plain:"
_HEX64 = re.compile(r"[0-9a-f]{64}")


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
    command the :class:`Tx` keeps the deck it derived (``_decks``) and drops it with the command.
    """
    return tuple(shuffle_deck(bytes.fromhex(server_seed), client_seed, number))


def _opens(plain: str, commitment: str) -> bool:
    """Whether ``plain`` is the seed ``commitment`` commits to (64 lowercase hex whose sha256 it is).

    Not cached across commands, for the reason given at :func:`_deck` (one sha256 per command is nothing).
    """
    return _HEX64.fullmatch(plain) is not None and seed_commitment(bytes.fromhex(plain)) == commitment


class Tx:
    """Accumulates the events of one command and the state they lead to."""

    __slots__ = (
        "_committed",
        "_decks",
        "_delta",
        "_seeds",
        "config",
        "ctx",
        "events",
        "may_open",
        "rules",
        "state",
        "trigger",
        "wait_answered",
        "wait_expired",
    )

    def __init__(self, state: TableState, ctx: Context) -> None:
        self.state = state
        self.events: list[Event] = []
        self.ctx = ctx
        self._delta: dict[str, int] = {}
        #: plain seeds this command knows, by hand number (the pending one unsealed by the shell)
        self._seeds: dict[int, str] = {}
        self._committed: int | None = None  # the hand whose seed this command committed
        #: the decks this command dealt from, by hand number (derived and checked once per command)
        self._decks: dict[int, tuple[str, ...]] = {}
        # What this command did, as the automatic steps (``flow``) need to know it:
        #: the flow may try to open the next hand (after a player's command, after a settlement)
        self.may_open = False
        #: a player's trigger (sitting down, sitting in, betting): an idle table opens a hand again
        self.trigger = False
        #: the player the table waited on acted (or timed out): his turn goes on or passes, with a fresh wait
        self.wait_answered = False
        #: the betting window's deadline passed (a timeout): it closes even with no stake on the table
        self.wait_expired = False
        pledge = state.pledge
        if pledge is not None and ctx.seed is not None:
            self._seeds[pledge.number] = ctx.seed
        config = state.config
        if config is not None:
            self.use_config(config)

    def use_config(self, config: TableConfig) -> None:
        """The table's configuration and its rules."""
        self.config: TableConfig = config
        self.rules: Rules = config.rules

    def emit(self, event: Event) -> None:
        """Record ``event`` and fold it into the working state (``evolve``, without its dispatch call)."""
        self.events.append(event)
        self.state = EVOLVERS[type(event)](self.state, event)

    @property
    def hand(self) -> HandState:
        """The current hand (callers check that one exists)."""
        hand = self.state.hand
        if hand is None:  # pragma: no cover - guarded by callers
            raise NotFound("no hand is open")
        return hand

    # -- chips ---------------------------------------------------------------------------------------------
    def available(self, party: str | None) -> int | None:
        """Chips ``party`` can still commit in this command; None means unlimited (a house bank with no
        ``"house"`` entry in the wallets)."""
        key = HOUSE if party is None else party
        wallets = self.ctx.wallets
        if key == HOUSE and key not in wallets:
            return None
        balance = wallets.get(key, 0)
        if type(balance) is not int and (not isinstance(balance, int) or isinstance(balance, bool)):
            raise InvalidRequest("wallets map player ids to integer chip balances", {"field": "wallets"})
        return balance + self._delta.get(key, 0)

    def covers(self, party: str | None, amount: int) -> bool:
        """True if ``party`` can commit ``amount`` chips."""
        avail = self.available(party)
        return avail is None or avail >= amount

    def move(self, party: str | None, amount: int) -> None:
        """Credit (positive) or debit (negative) ``party``'s wallet within this command."""
        key = HOUSE if party is None else party
        self._delta[key] = self._delta.get(key, 0) + amount

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
        if self.rules.stake_mode == "bank_fixed":
            s = hand.stake if hand is not None else self.state.stake
            if s is not None:
                return s
        return self.config.min_bet

    # -- seeds ---------------------------------------------------------------------------------------------
    def commit_next_seed(self) -> None:
        """Draw the seed of the next hand to open (``ctx.next_seed``; else ``entropy``, kept in plain text) and
        publish its commitment."""
        number = self.state.hands_opened + 1
        offered = self.ctx.next_seed
        plain: str | None
        if offered is None:
            plain = self.ctx.entropy
            commitment, sealed = seed_commitment(bytes.fromhex(plain)), PLAIN_PREFIX + plain
        else:
            plain, commitment, sealed = offered.seed, offered.commitment, offered.sealed
            if not isinstance(commitment, str) or not _HEX64.fullmatch(commitment) or not isinstance(sealed, str):
                raise InvalidRequest(
                    "next_seed needs a commitment (64 lowercase hex) and a sealed form", {"field": "next_seed"}
                )
        if plain is not None:
            self._seeds[number] = plain
        self._committed = number
        self.emit(SeedCommitted(number=number, seed_commitment=commitment, sealed_seed=sealed))

    def commits_ahead(self, hand: HandState) -> bool:
        """Whether the end of ``hand`` commits the next hand's seed: always for a hand committed ahead; for a hand
        of the old form only if the shell supplies a seed (a recorded old command re-runs as it ran then)."""
        return not hand.server_seed or self.ctx.next_seed is not None

    def committed_without_seed(self, number: int) -> bool:
        """Whether this command committed the seed of hand ``number`` without carrying its plain text (a verifier
        re-running it before that seed is revealed)."""
        if self._committed != number or number in self._seeds:
            return False
        pledge = self.state.pledge
        return not (pledge is not None and pledge.number == number and pledge.sealed.startswith(PLAIN_PREFIX))

    def server_seed(self, hand: HandState) -> str:
        """The plain server seed of ``hand`` (hex), checked against its commitment; raises SeedUnavailable."""
        if hand.server_seed:  # a hand opened before seeds were committed ahead
            return hand.server_seed
        plain = self._seeds.get(hand.number)
        pledge = self.state.pledge
        if (
            plain is None
            and pledge is not None
            and pledge.number == hand.number
            and pledge.sealed.startswith(PLAIN_PREFIX)
        ):
            plain = pledge.sealed[len(PLAIN_PREFIX) :]
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
