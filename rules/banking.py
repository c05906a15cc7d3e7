"""Who holds the bank: covering it, the first banker's draw, offering it on and passing it (RULES.md §6, §7).

Covering the bank (a published house decision): a player may hold the bank when his available wallet covers
the banker reserve of one minimum stake (``min_stake x largest win multiplier``), he is not sitting out and
not leaving. A house bank always covers unless the shell passes a ``"house"`` wallet that does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gamemath.enums import BankReason, BankRotation, BankTrigger, Category, Outcome
from gamemath.scoring import CATEGORY_RANK
from gamemath.shuffle import u32_stream, uniform_below
from rules.draft import Draft
from rules.events import BankPassed, FirstBankerDrawn, HandResult
from rules.state import SeatState

_TRIGGER_CATEGORIES: dict[BankTrigger, frozenset[Category]] = {
    BankTrigger.ANY_75: frozenset({Category.SEVEN_HALF, Category.REALE, Category.PAIR7}),
    BankTrigger.REALE_OR_PAIR7: frozenset({Category.REALE, Category.PAIR7}),
    BankTrigger.NONE: frozenset(),
}


def can_hold_bank(draft: Draft, seat: SeatState, credit: Mapping[str, int] | None = None) -> bool:
    """True if this seated player may hold the bank for the next hand (``credit``: payouts of the hand ending,
    not emitted yet)."""
    if seat.sitting_out or seat.leaving:
        return False
    return draft.covers(seat.player_id, draft.min_stake() * draft.rules.banker_loss_multiplier, credit)


def offer_from(
    draft: Draft, from_seat: int | None, *, include_from: bool = False, credit: Mapping[str, int] | None = None
) -> SeatState | None:
    """The first player counter-clockwise (to the right) of ``from_seat`` who can hold the bank."""
    seats = draft.state.seats
    if from_seat is None:
        ordered = list(seats)
    else:
        ordered = [s for s in seats if s.seat > from_seat] + [s for s in seats if s.seat < from_seat]
        if include_from:
            ordered += [s for s in seats if s.seat == from_seat]
    for s in ordered:
        if can_hold_bank(draft, s, credit):
            return s
    return None


def ensure_banker(draft: Draft) -> bool:
    """Make sure the table has a banker who covers the bank; emit the draw or the passing. False: wait."""
    state = draft.state
    if draft.config.house_bank:
        return draft.covers(None, draft.min_stake() * draft.rules.banker_loss_multiplier)
    current = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    if current is not None:
        if can_hold_bank(draft, current):
            return True
        pass_bank_from(draft, current.seat, BankReason.SAT_OUT if current.sitting_out else BankReason.CANNOT_COVER)
        return draft.state.banker_seat is not None
    if sum(1 for s in state.seats if not s.sitting_out and not s.leaving) < 2:
        return False  # no hand could start: nobody is offered or drawn the bank yet
    if state.last_banker_seat is not None:
        if any(isinstance(e, BankPassed) and e.to_seat is None for e in draft.events):
            return False  # the bank was just given up in this very command: it is not handed straight back
        successor = offer_from(draft, state.last_banker_seat, include_from=True)
        if successor is None:
            return False
        draft.emit(
            BankPassed(from_seat=None, to_seat=successor.seat, player_id=successor.player_id, reason=BankReason.OFFERED)
        )
        return True
    candidates = [s for s in state.seats if can_hold_bank(draft, s)]
    if not candidates:
        return False
    stream = u32_stream(bytes.fromhex(draft.ctx.entropy), "first-banker:" + ",".join(s.player_id for s in candidates))
    chosen = candidates[uniform_below(stream, len(candidates))]
    draft.emit(
        FirstBankerDrawn(candidates=tuple(s.seat for s in candidates), seat=chosen.seat, player_id=chosen.player_id)
    )
    return True


def pass_bank_from(draft: Draft, seat: int, reason: BankReason) -> None:
    """The banker at ``seat`` gives the bank up (he leaves, retires or sits out): offered on counter-clockwise."""
    successor = offer_from(draft, seat)
    draft.emit(
        BankPassed(
            from_seat=seat,
            to_seat=successor.seat if successor else None,
            player_id=successor.player_id if successor else None,
            reason=reason,
        )
    )


def next_banker(
    draft: Draft, results: Sequence[HandResult], payouts: Mapping[str, int]
) -> tuple[int | None, str | None, BankReason]:
    """Who holds the bank after this hand, by §6, with the wallets credited with the hand's ``payouts``."""
    state = draft.state
    if draft.config.house_bank:
        return None, None, BankReason.HOUSE
    allowed = _TRIGGER_CATEGORIES[draft.rules.bank_transfer_trigger]
    winners = [r for r in results if r.outcome == Outcome.WIN and r.category in allowed]
    winners.sort(key=lambda r: -CATEGORY_RANK[r.category])  # stable: play order within a category
    tried: set[int] = set()
    for r in winners:
        if r.seat in tried:
            continue
        tried.add(r.seat)
        s = state.seat_at(r.seat)
        if s is not None and can_hold_bank(draft, s, payouts):
            return s.seat, s.player_id, BankReason.WON
    banker_seat = state.banker_seat
    banker = state.seat_at(banker_seat) if banker_seat is not None else None
    if draft.rules.bank_rotation == BankRotation.EVERY_HAND:
        s = offer_from(draft, banker_seat, credit=payouts)
        if s is not None:
            return s.seat, s.player_id, BankReason.ROTATION
    if banker is not None and not state.banker_retiring and can_hold_bank(draft, banker, payouts):
        return banker.seat, banker.player_id, BankReason.KEPT
    if banker is None or banker.leaving:
        reason = BankReason.LEFT
    elif state.banker_retiring:
        reason = BankReason.RETIRED
    elif banker.sitting_out:
        reason = BankReason.SAT_OUT
    else:
        reason = BankReason.CANNOT_COVER
    s = offer_from(draft, banker_seat, credit=payouts)
    if s is not None:
        return s.seat, s.player_id, reason
    return None, None, reason
