"""``Split`` and ``Assign``: the Spanish split of two pictures and the Hungarian hands made from pictures (§4.2)."""

from __future__ import annotations

from gamemath.cards import is_picture
from gamemath.enums import HandStatus, SplitMode, StakeMode, WaitKind
from gamemath.errors import IllegalAction
from rules.commands import Assign, Split
from rules.draft import Draft
from rules.events import CardAssigned, CardTurnedUp, HandSplit
from rules.play import acted, in_turn, own_hand, target_hand
from rules.stakes import banker_party, check_amount, check_reserves
from rules.state import Awaiting, PunterHand, SeatState
from rules.turns import show_if_done


def _all_pictures(draft: Draft, seat: int) -> bool:
    hand = draft.hand
    cards = [c for h in hand.punters if h.seat == seat for c in h.cards]
    if hand.pending is not None and hand.pending[0] == seat:
        cards.append(hand.pending[1])
    return all(is_picture(c) for c in cards)


def _spanish_source(draft: Draft, seat: SeatState, aw: Awaiting, cmd: Split) -> tuple[PunterHand, str, int]:
    """The hand a Spanish split takes its second picture from, that picture and the least stake (the hand's)."""
    source = target_hand(draft, seat, aw, cmd.hand)
    if len(source.cards) != 2 or not all(is_picture(c) for c in source.cards):
        raise IllegalAction("only a hand of exactly two pictures can be split")
    return source, source.cards[1], source.stake


def _hungarian_source(draft: Draft, seat: SeatState, aw: Awaiting, cmd: Split) -> tuple[PunterHand | None, str, int]:
    """A Hungarian new hand's picture: the drawn card (no source hand) or the last card of his only hand."""
    if not _all_pictures(draft, seat.seat):
        raise IllegalAction("the split window is closed: a number card was received")
    hand = draft.hand
    if aw.kind == WaitKind.ASSIGN:
        if cmd.hand is not None:
            raise IllegalAction("a drawn picture starts a new hand without a hand argument")
        assert hand.pending is not None
        return None, hand.pending[1], draft.config.min_bet
    source = target_hand(draft, seat, aw, cmd.hand)
    if len(hand.hands_of(seat.seat)) != 1 or len(source.cards) < 2:
        raise IllegalAction("only the last picture of a hand of several cards can start a new hand")
    return source, source.cards[-1], draft.config.min_bet


def _turn_up_before_split(draft: Draft, seat: int, source: PunterHand | None) -> None:
    """A split shows the hidden cards: of the split hand (Spanish), of all his hands at a first Hungarian split."""
    hand = draft.hand
    if draft.rules.split_mode == SplitMode.SPANISH:
        assert source is not None
        turned: tuple[PunterHand, ...] = (source,)
    elif seat not in hand.split_seats:
        turned = hand.hands_of(seat)
    else:
        turned = ()
    for h in turned:
        for code, up in zip(h.cards, h.face_up, strict=True):
            if not up:
                draft.emit(CardTurnedUp(seat=seat, hand=h.hand_index, banker=False, card=code))


def split(draft: Draft, cmd: Split) -> None:
    """Spanish split of two pictures, or a Hungarian new hand from the last picture received (§4.2)."""
    seat, aw = in_turn(draft, cmd)
    rules = draft.rules
    if aw.kind == WaitKind.BANKER:
        raise IllegalAction("the banker does not split")
    if rules.split_mode == SplitMode.NONE:
        raise IllegalAction("splitting needs a split_mode", {"toggle": "split_mode"})
    if aw.kind == WaitKind.OWED_BET:
        raise IllegalAction("bet first: a stake is owed before anything else")
    hand = draft.hand
    mine = hand.hands_of(seat.seat)
    if len(mine) >= rules.max_hands_per_punter:
        raise IllegalAction(f"at most {rules.max_hands_per_punter} hands per punter")
    spanish = rules.split_mode == SplitMode.SPANISH
    source, card, low = (_spanish_source if spanish else _hungarian_source)(draft, seat, aw, cmd)
    amount = (
        cmd.amount
        if cmd.amount is not None
        else (draft.min_stake(hand) if rules.stake_mode == StakeMode.BANK_FIXED else low)
    )
    check_amount(draft, amount, low=low, high=draft.config.max_bet)
    pr, br = check_reserves(draft, cmd.player_id, amount, None)
    acted(draft, seat)
    _turn_up_before_split(draft, seat.seat, source)
    draft.emit(
        HandSplit(
            seat=seat.seat,
            player_id=cmd.player_id,
            from_hand=source.hand_index if source is not None else None,
            new_hand=max(h.hand_index for h in mine) + 1,
            card=card,
            amount=amount,
            punter_reserve=pr,
            banker_reserve=br,
            banker_id=banker_party(draft),
            open_now=not spanish,  # a Hungarian hand plays at once, a Spanish one after its elder
        )
    )


def assign(draft: Draft, cmd: Assign) -> None:
    """Hungarian: give the drawn card to one of one's open hands."""
    seat, aw = in_turn(draft, cmd)
    if aw.kind != WaitKind.ASSIGN:
        raise IllegalAction("there is no drawn card to assign")
    hand = draft.hand
    h = own_hand(draft, seat, cmd.hand)
    if h.status != HandStatus.PLAYING:
        raise IllegalAction(f"hand {cmd.hand} is not open", {"hand": cmd.hand})
    assert hand.pending is not None
    acted(draft, seat)
    draft.emit(CardAssigned(seat=seat.seat, hand=h.hand_index, card=hand.pending[1]))
    show_if_done(draft, seat.seat, h.hand_index)
