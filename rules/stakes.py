"""Stakes and the chips they need: reserves checked against both wallets (RULES.md §7)."""

from __future__ import annotations

from gamemath.enums import BetTiming, HandStatus, StakeMode
from gamemath.errors import BankCannotCover, BetOutOfLimits, InsufficientFunds, LimitReached
from rules.draft import Draft
from rules.events import BetPlaced


def banker_party(draft: Draft) -> str | None:
    """The banker's wallet key: his player id, or None for the house."""
    return draft.hand.banker.player_id


def owed_bank_reserve(draft: Draft, exclude: tuple[int, int] | None) -> int:
    """Bank chips kept back for dealt-in punters who still owe their minimum bet (so none is ever stuck)."""
    if draft.rules.bet_timing == BetTiming.BEFORE_DEAL:
        return 0
    hand = draft.hand
    owing = sum(
        1 for h in hand.punters if h.stake == 0 and h.status != HandStatus.VOID and (h.seat, h.hand_index) != exclude
    )
    return owing * draft.min_stake(hand) * draft.rules.banker_loss_multiplier


def check_reserves(draft: Draft, player_id: str, amount: int, hand_key: tuple[int, int] | None) -> tuple[int, int]:
    """The (punter, banker) reserves of a stake of ``amount``; refuse what either side cannot cover (§7)."""
    punter_reserve = amount * draft.rules.punter_loss_multiplier
    banker_reserve = amount * draft.rules.banker_loss_multiplier
    room = draft.loss_room(player_id)
    if room is not None and room < punter_reserve:
        raise LimitReached(
            f"a stake of {amount} could lose {punter_reserve} chips, more than your loss limit leaves ({room})",
            {"kind": "loss", "needed": punter_reserve, "remaining": max(room, 0)},
        )
    if not draft.covers(player_id, punter_reserve):
        raise InsufficientFunds(
            f"a stake of {amount} needs {punter_reserve} chips available",
            {"needed": punter_reserve, "available": draft.available(player_id)},
        )
    bank = banker_party(draft)
    avail = draft.can_commit(bank)
    if avail is not None and avail - owed_bank_reserve(draft, hand_key) < banker_reserve:
        raise BankCannotCover(
            f"the bank cannot cover a stake of {amount}", {"needed": banker_reserve, "amount": amount}
        )
    return punter_reserve, banker_reserve


def check_amount(draft: Draft, amount: int, *, low: int, high: int) -> None:
    """A stake of ``amount``: exactly S under ``bank_fixed``, else between ``low`` and ``high``."""
    if draft.rules.stake_mode == StakeMode.BANK_FIXED:
        fixed = draft.min_stake(draft.hand)
        if amount != fixed:
            raise BetOutOfLimits(f"the stake is fixed by the bank at {fixed}", {"stake": fixed, "amount": amount})
        return
    if not low <= amount <= high:
        raise BetOutOfLimits(f"the stake must be between {low} and {high}", {"min": low, "max": high, "amount": amount})


def place_stake(
    draft: Draft, *, seat: int, player_id: str, hand: int, amount: int, reserves: tuple[int, int], by_timeout: bool
) -> None:
    """A punter's first stake on a hand, with its (punter, banker) reserves (:func:`check_reserves`): by his bet,
    or placed for him by a timeout. Every ``BetPlaced`` is built here."""
    punter_reserve, banker_reserve = reserves
    draft.emit(
        BetPlaced(
            seat=seat,
            player_id=player_id,
            hand=hand,
            amount=amount,
            stake=amount,
            punter_reserve=punter_reserve,
            banker_reserve=banker_reserve,
            banker_id=banker_party(draft),
            by_timeout=by_timeout,
        )
    )
