"""Where a hand's checkpoint goes: after its closing event and everything of its end
(``checkpoint_signing.END_OF_HAND``), the same for a command's inline checkpoint and for the signer, never into the
next hand."""

from __future__ import annotations

from gamemath.enums import AbandonReason, BankReason, LeaveReason
from rules import BankPassed, CardDealt, HandAbandoned, SeatLeft, SeedCommitted
from tables import checkpoint_signing, signer
from tables.pipeline import _checkpoint_position

ABANDONED = HandAbandoned(number=3, reason=AbandonReason.NO_STAKES, server_seed="ab" * 32)
RETIRED = BankPassed(from_seat=1, to_seat=2, player_id="8", reason=BankReason.RETIRED)
LEFT = SeatLeft(seat=1, player_id="7", reason=LeaveReason.AFTER_HAND)
BANKER_LEFT = BankPassed(from_seat=1, to_seat=None, player_id=None, reason=BankReason.LEFT)
COMMITTED = SeedCommitted(number=5, seed_commitment="cd" * 32, sealed_seed="v1:x")
NEXT_CARD = CardDealt(  # any event of the next hand
    number=4, seat=1, player_id="7", hand=0, banker=False, card="01C", face_up=False, deck_index=0
)


def test_the_bank_passing_on_after_an_abandonment_belongs_to_the_hands_end() -> None:
    assert _checkpoint_position([ABANDONED, RETIRED]) == 1
    assert _checkpoint_position([ABANDONED, RETIRED, COMMITTED]) == 2


def test_leavers_after_a_leaving_banker_still_belong_to_the_end_and_the_next_hand_does_not() -> None:
    other = SeatLeft(seat=3, player_id="9", reason=LeaveReason.AFTER_HAND)
    assert _checkpoint_position([ABANDONED, LEFT, BANKER_LEFT, other, NEXT_CARD]) == 3
    assert _checkpoint_position([NEXT_CARD, ABANDONED, NEXT_CARD, LEFT]) == 1
    assert _checkpoint_position([LEFT, BANKER_LEFT]) is None  # no hand ended


def test_the_signer_signs_the_same_end_as_a_command() -> None:
    assert signer._END_OF_HAND is checkpoint_signing.END_OF_HAND
    assert {type(e).__name__ for e in (RETIRED, LEFT, COMMITTED)} == checkpoint_signing.END_OF_HAND
