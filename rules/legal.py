"""``legal_actions(state, player_id)``: exactly the API actions ``decide`` would accept from this player now.

Each action is probed through ``decide`` itself (:func:`~.decide.accepts`: a refusal before the command's first
event costs only the checks) with its least demanding arguments (the minimum stake, a raise of one chip, the
hand whose turn it is, each of the player's hands for ``assign``), so the list can never offer what ``decide``
refuses; since stake checks are monotone in the amount, it never omits an action that some argument would make
``decide`` accept.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from msgspec.structs import replace

from gamemath.enums import StakeMode
from rules.commands import (
    Assign,
    Command,
    Context,
    Hit,
    HitFaceDown,
    LeaveSeat,
    PlaceBet,
    PlayerCommand,
    Raise,
    RetireBank,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
    Split,
    Stand,
)
from rules.decide import accepts
from rules.state import TableState

_PROBE_ENTROPY = "0" * 64
_UNLIMITED = 10**15


def _candidates(state: TableState, player_id: str) -> Iterator[tuple[str, list[PlayerCommand]]]:
    config = state.config
    if config is None:
        return
    hand = state.hand
    bank_fixed = config.rules.stake_mode == StakeMode.BANK_FIXED
    next_stake = state.stake if bank_fixed and state.stake is not None else config.min_bet
    bet = hand.stake if bank_fixed and hand is not None and hand.in_play and hand.stake is not None else next_stake
    seat = state.seat_of(player_id)
    yield "sit_down", [SitDown(player_id=player_id, username=player_id)]
    yield "leave", [LeaveSeat(player_id=player_id)]
    yield "bet", [PlaceBet(player_id=player_id, amount=bet)]
    yield "hit", [Hit(player_id=player_id)]
    yield "hit_face_down", [HitFaceDown(player_id=player_id)]
    yield "stand", [Stand(player_id=player_id)]
    yield "raise", [Raise(player_id=player_id, amount=1)]
    yield "split", [Split(player_id=player_id)]
    indexes = sorted({h.hand_index for h in hand.punters if seat is not None and h.seat == seat.seat}) if hand else []
    yield "assign", [Assign(player_id=player_id, hand=i) for i in indexes]
    yield "sit_out", [SitOut(player_id=player_id)]
    yield "sit_in", [SitIn(player_id=player_id)]
    # a stake other than the one in force (the same again would change nothing, and is refused)
    other_stakes = sorted({config.min_bet, config.max_bet} - {state.stake})
    yield "set_stake", [SetStake(player_id=player_id, amount=amount) for amount in other_stakes]
    yield "retire_bank", [RetireBank(player_id=player_id)]


#: The actions that take a ``hand`` index (API.md "Actions"); ``legal_hands`` answers for these.
HAND_ACTIONS: frozenset[str] = frozenset({"hit", "hit_face_down", "stand", "raise", "split", "assign"})


def _context(state: TableState, player_id: str, wallets: Mapping[str, int] | None) -> Context:
    if wallets is None:
        wallets = {s.player_id: _UNLIMITED for s in state.seats} | {player_id: _UNLIMITED}
    return Context(now_ms=0, wallets=wallets, entropy=_PROBE_ENTROPY)


def legal_actions(state: TableState, player_id: str, wallets: Mapping[str, int] | None = None) -> list[str]:
    """The API action names ``player_id`` may send now, in a fixed order.

    With ``wallets`` (as the next command's context would carry) funds are checked exactly as ``decide``
    checks them; without, every player is assumed to afford any stake.
    """
    ctx = _context(state, player_id, wallets)
    allowed: list[str] = []
    for name, commands in _candidates(state, player_id):
        if any(accepts(command, state, ctx) for command in commands):
            allowed.append(name)
    return allowed


def legal_hands(
    state: TableState, player_id: str, wallets: Mapping[str, int] | None = None, *, legal: list[str] | None = None
) -> dict[str, list[int]]:
    """For each legal action that takes a ``hand`` (:data:`HAND_ACTIONS`), the indexes of ``player_id``'s hands
    that ``decide`` accepts with it now, ascending; an action with none is left out.

    Found like :func:`legal_actions`: each (action, index) is probed through ``decide`` with the action's
    least demanding other arguments, so every index listed succeeds. ``legal``: the answer of
    :func:`legal_actions` for the same state, player and wallets, when the caller has it.
    """
    if legal is None:
        legal = legal_actions(state, player_id, wallets)
    hand = state.hand
    seat = state.seat_of(player_id)
    if hand is None or seat is None or not HAND_ACTIONS.intersection(legal):
        return {}
    indexes = sorted({h.hand_index for h in hand.punters if h.seat == seat.seat})
    if not indexes and hand.banker.seat == seat.seat:
        indexes = [0]  # a player banker plays his one hand, index 0
    ctx = _context(state, player_id, wallets)
    out: dict[str, list[int]] = {}
    for name, commands in _candidates(state, player_id):
        if name not in HAND_ACTIONS or name not in legal:
            continue
        probe: Command = commands[0]
        ok = [i for i in indexes if accepts(replace(probe, hand=i), state, ctx)]
        if ok:
            out[name] = ok
    return out
