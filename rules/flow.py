"""How a hand moves on by itself: the automatic steps that follow a command until the table waits for someone.

A command's handler validates it and records the player's own facts (his bet, his card and what it makes, his
stand, his timeout). Then ``decide`` runs::

    while (step := next_automatic_step(draft)) is not None:
        step(draft)

``next_automatic_step`` reads the command, the state the events so far lead to and those events, and names the
next move of the game; every move of a hand that nobody decides is here, in the order a hand goes:

1. between hands: open the next hand, once per occasion (a player's command, each settlement in it);
2. betting: open the betting window; close it once nobody owes a bet (abandon the hand if the command is the
   window's timeout and nobody staked);
3. the deal, then the punters' turns: once the awaited player answered (acted, or timed out) his next decision,
   else the next hand to play;
4. the banker's turn (or its skipping), a house banker's draws, then the settlement.

A step emits the events of one move; ``None``, or a step that emits nothing (a hand that cannot open now), means
the table waits for someone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from gamemath.enums import OVER, BetTiming, HandStatus, Phase, WaitKind
from rules.commands import Assign, Command, Hit, HitFaceDown, PlaceBet, PlayerCommand, Raise, Split, Stand, Timeout
from rules.draft import Draft
from rules.events import ActionAwaited, BettingClosed, HandOpened, HandSettled
from rules.opening import deal_round, open_next_hand
from rules.showdown import abandon_empty_hand, abandon_without_seed, house_banker_plays, settle, start_banker_turn
from rules.state import HandState
from rules.turns import first_hand_to_play, same_punters_next_decision

Step = Callable[[Draft], None]


#: Commands that answer the wait on a player (his decision), when the table waits on him: his turn goes on or
#: passes, with a fresh wait. A timeout answers too (:func:`_answered`). Matched by exact type, as ``decide``
#: dispatches (one set lookup instead of an ``isinstance`` per type, twice per command).
_DECISIONS: frozenset[type[Command]] = frozenset((Hit, HitFaceDown, Stand, Raise, Split, Assign, PlaceBet))


def run_automatic_steps(draft: Draft) -> None:
    """Move the table on by itself until it waits for someone."""
    while (step := next_automatic_step(draft)) is not None:
        emitted = len(draft.events)
        step(draft)
        if len(draft.events) == emitted:  # nothing moved (no hand can open now): the table waits
            return


def next_automatic_step(draft: Draft) -> Step | None:
    """The next move nobody decides, or None when the table waits."""
    hand = draft.state.hand
    if hand is None or hand.phase in OVER:
        return open_next_hand if _may_open(draft) else None
    return _PHASE_STEPS[hand.phase](draft, hand)


def _may_open(draft: Draft) -> bool:
    """Between hands, a hand opens at most once per occasion: a player's command, and each settlement in it (a
    hand abandoned in this command leaves the table waiting for a player)."""
    for event in reversed(draft.events):  # matched by exact type (an isinstance that misses a Struct class is slow)
        if type(event) is HandOpened:
            return False
        if type(event) is HandSettled:
            return True
    return isinstance(draft.command, PlayerCommand)


def _timed_out(draft: Draft) -> WaitKind | None:
    """The kind of wait this command times out: a ``Timeout`` naming the version the command is decided on."""
    command, start = draft.command, draft.start
    if isinstance(command, Timeout) and start.awaiting is not None and command.expected_version == start.version:
        return start.awaiting.kind
    return None


def _answered(draft: Draft) -> bool:
    """The wait in force was set before this command, and this command answered it: the awaited player decided
    (his command got past its checks) or his time ran out."""
    if draft.state.awaiting is not draft.start.awaiting:
        return False  # a wait set by this very command stands (only ActionAwaited makes one)
    return type(draft.command) in _DECISIONS or _timed_out(draft) not in (None, WaitKind.BETTING_WINDOW)


def _owes_bet(hand: HandState) -> bool:
    return any(h.stake == 0 and h.status != HandStatus.VOID for h in hand.punters)


def _betting_step(draft: Draft, hand: HandState) -> Step | None:
    """A betting window: every entrant owes a bet until he stakes (or drops out)."""
    if draft.state.awaiting is None:
        return await_bets
    if _owes_bet(hand):
        return None
    if any(h.stake > 0 for h in hand.punters):
        return close_betting
    # Nobody owes a bet and nobody staked (all dropped out): the window stays open until its deadline, so that
    # toggling sit_out / sit_in cannot open and abandon a hand (a seed, a snapshot, events) per toggle.
    return abandon_empty_hand if _timed_out(draft) == WaitKind.BETTING_WINDOW else None


def _punters_step(draft: Draft, hand: HandState) -> Step | None:
    """The deal and the punters' turns (phases ``dealing`` and ``punters``)."""
    if not hand.banker.cards:
        # a hand whose committed seed cannot be opened is abandoned before its first card (``decide``)
        return abandon_without_seed if draft.unopenable == hand.number else deal_round
    awaiting = draft.state.awaiting
    if awaiting is not None and not _answered(draft):
        return None
    if awaiting is None and draft.rules.bet_timing == BetTiming.AFTER_DEAL_ALL and _owes_bet(hand):
        return await_bets  # everybody has seen his card: the bets, all at once
    if awaiting is not None and awaiting.seat is not None:
        decision = same_punters_next_decision(draft, awaiting.seat, awaiting.hand)
        if decision is not None:
            return partial(await_decision, seat=awaiting.seat, index=decision[0], kind=decision[1])
    turn = first_hand_to_play(hand)
    if turn is not None:
        seat, index, kind = turn
        return partial(await_decision, seat=seat, index=index, kind=kind)
    if not any(h.stake > 0 for h in hand.punters):
        # every punter dropped out without a stake (skipped at his turn: the bank could not cover him, or his
        # limits allow no stake): nothing to settle, the hand is abandoned like an empty betting window
        return abandon_empty_hand
    return start_banker_turn


def _banker_step(draft: Draft, hand: HandState) -> Step | None:
    """The banker's turn: a player banker decides each move, a house banker follows its rule; then settle."""
    banker = hand.banker
    if banker.status != HandStatus.PLAYING:  # stood, bust, 15 hp, pair of sevens, or his turn was skipped
        return settle
    if banker.player_id is None:
        return house_banker_plays
    if draft.state.awaiting is None or _answered(draft):
        return partial(await_decision, seat=banker.seat, index=0, kind=WaitKind.BANKER)
    return None


#: What moves a hand in play on, by its phase (looked up once per step, as ``decide`` dispatches a command).
_PHASE_STEPS: dict[Phase, Callable[[Draft, HandState], Step | None]] = {
    Phase.BETTING: _betting_step,
    Phase.DEALING: _punters_step,
    Phase.PUNTERS: _punters_step,
    Phase.BANKER: _banker_step,
}


def await_bets(draft: Draft) -> None:
    """Open the betting window for every entrant who owes a bet (``betting_timeout_s``)."""
    draft.emit(ActionAwaited(seat=None, hand=None, kind=WaitKind.BETTING_WINDOW, deadline_ms=draft.betting_deadline()))


def await_decision(draft: Draft, *, seat: int | None, index: int | None, kind: WaitKind) -> None:
    """Wait on one player's next decision, with a fresh deadline (``turn_timeout_s``)."""
    draft.emit(ActionAwaited(seat=seat, hand=index, kind=kind, deadline_ms=draft.turn_deadline()))


def close_betting(draft: Draft) -> None:
    """Every stake of the window is in: bets close (the deal follows under ``before_deal``)."""
    draft.emit(BettingClosed(number=draft.hand.number))
