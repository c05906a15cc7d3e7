"""Stakes and the chips they need: reserves checked against both wallets (RULES.md §7)."""

from __future__ import annotations

from .enums import BetTiming, HandStatus, StakeMode
from .errors import BankCannotCover, BetOutOfLimits, InsufficientFunds, LimitReached
from .tx import Tx


def banker_party(tx: Tx) -> str | None:
    """The banker's wallet key: his player id, or None for the house."""
    return tx.hand.banker.player_id


def owed_bank_reserve(tx: Tx, exclude: tuple[int, int] | None) -> int:
    """Bank chips kept back for dealt-in punters who still owe their minimum bet (so none is ever stuck)."""
    if tx.rules.bet_timing == BetTiming.BEFORE_DEAL:
        return 0
    hand = tx.hand
    owing = sum(
        1 for h in hand.punters if h.stake == 0 and h.status != HandStatus.VOID and (h.seat, h.hand_index) != exclude
    )
    return owing * tx.min_stake(hand) * tx.config.banker_loss_multiplier


def check_reserves(tx: Tx, player_id: str, amount: int, hand_key: tuple[int, int] | None) -> tuple[int, int]:
    """The (punter, banker) reserves of a stake of ``amount``; refuse what either side cannot cover (§7)."""
    punter_reserve = amount * tx.config.punter_loss_multiplier
    banker_reserve = amount * tx.config.banker_loss_multiplier
    room = tx.loss_room(player_id)
    if room is not None and room < punter_reserve:
        raise LimitReached(
            f"a stake of {amount} could lose {punter_reserve} chips, more than your loss limit leaves ({room})",
            {"kind": "loss", "needed": punter_reserve, "remaining": max(room, 0)},
        )
    if not tx.covers(player_id, punter_reserve):
        raise InsufficientFunds(
            f"a stake of {amount} needs {punter_reserve} chips available",
            {"needed": punter_reserve, "available": tx.available(player_id)},
        )
    bank = banker_party(tx)
    avail = tx.can_commit(bank)
    if avail is not None and avail - owed_bank_reserve(tx, hand_key) < banker_reserve:
        raise BankCannotCover(
            f"the bank cannot cover a stake of {amount}", {"needed": banker_reserve, "amount": amount}
        )
    return punter_reserve, banker_reserve


def check_amount(tx: Tx, amount: int, *, low: int, high: int) -> None:
    """A stake of ``amount``: exactly S under ``bank_fixed``, else between ``low`` and ``high``."""
    if tx.rules.stake_mode == StakeMode.BANK_FIXED:
        fixed = tx.min_stake(tx.hand)
        if amount != fixed:
            raise BetOutOfLimits(f"the stake is fixed by the bank at {fixed}", {"stake": fixed, "amount": amount})
        return
    if not low <= amount <= high:
        raise BetOutOfLimits(f"the stake must be between {low} and {high}", {"min": low, "max": high, "amount": amount})
