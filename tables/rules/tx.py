"""The working context of one ``decide`` call: the state so far, the events so far and the wallets.

``decide`` plans events by emitting them into a :class:`Tx`, which folds each one with ``evolve`` so later
steps see their effect. Wallets start from ``ctx.wallets`` and follow the reserves and payouts of the
events emitted so far in this command. A raised :class:`DomainError` discards everything.
"""

from __future__ import annotations

from .commands import Context
from .config import TableConfig
from .errors import InvalidRequest, NotFound
from .events import HOUSE, Event
from .evolve import EVOLVERS
from .ruleset import Rules
from .state import HandState, TableState

_MULTIPLIERS: dict[int, tuple[Rules, int, int]] = {}


def _multipliers(rules: Rules) -> tuple[int, int]:
    """(punter loss, banker loss) multipliers of ``rules``, memoised by identity (hashing 25 toggles is slow)."""
    entry = _MULTIPLIERS.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = (rules, rules.punter_loss_multiplier, rules.banker_loss_multiplier)
        if len(_MULTIPLIERS) > 1024:
            _MULTIPLIERS.clear()
        _MULTIPLIERS[id(rules)] = entry
    return entry[1], entry[2]


class Tx:
    """Accumulates the events of one command and the state they lead to."""

    __slots__ = ("_delta", "config", "ctx", "events", "loss_mult", "rules", "state", "win_mult")

    def __init__(self, state: TableState, ctx: Context) -> None:
        self.state = state
        self.events: list[Event] = []
        self.ctx = ctx
        self._delta: dict[str, int] = {}
        config = state.config
        if config is not None:
            self.config: TableConfig = config
            rules = self.rules = config.rules
            self.loss_mult, self.win_mult = _multipliers(rules)

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
