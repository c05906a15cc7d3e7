"""Opening a hand and the deal: steps of the automatic course of a hand (``flow`` decides when they run)."""

from __future__ import annotations

from gamemath.enums import BetTiming, HandStatus, Phase, StakeMode
from gamemath.shuffle import seed_commitment
from rules.banking import ensure_banker
from rules.commands import PlaceBet, SitDown, SitIn
from rules.draft import Draft
from rules.events import CardDealt, ClientSeedFixed, HandOpened

#: Player commands after which a table that went idle (empty betting window) opens a hand again.
_TRIGGERS = (SitDown, SitIn, PlaceBet)


def _entrants(draft: Draft) -> tuple[int, ...]:
    state = draft.state
    minimum = draft.min_stake()
    banker_seat = state.banker_seat
    by_number = {s.seat: s for s in state.seats}
    banker = by_number.get(banker_seat) if banker_seat is not None else None
    bank_left = draft.can_commit(banker.player_id if banker is not None else None)
    betting_first = draft.rules.bet_timing == BetTiming.BEFORE_DEAL
    punter_need = minimum * draft.rules.punter_loss_multiplier
    bank_need = minimum * draft.rules.banker_loss_multiplier
    chosen: list[int] = []
    for number in state.play_order():
        if number == banker_seat:
            continue
        seat = by_number.get(number)
        if seat is None or seat.sitting_out or seat.leaving:
            continue
        # a player whose wallet or loss room does not cover the minimum stake is not dealt in
        if not draft.covers(seat.player_id, punter_need):
            continue
        if not betting_first and bank_left is not None:
            if bank_left < bank_need:
                continue
            bank_left -= bank_need
        chosen.append(number)
    return tuple(chosen)


def open_next_hand(draft: Draft) -> None:
    """Open the next hand if the table has a covering banker and at least one punter who can enter (``flow`` tries
    it once per player command or settlement; when it cannot open, it emits nothing new if tried again).

    After a betting window closed with no stake the table is idle: only a player's trigger (sitting down,
    sitting in, betting) opens a hand again, so the table never spins through empty hands.
    """
    if draft.state.idle and not isinstance(draft.command, _TRIGGERS):
        return
    if not ensure_banker(draft):
        return
    entrants = _entrants(draft)
    if not entrants:
        return
    number = draft.state.hands_opened + 1
    ctx = draft.ctx
    ahead = not ctx.schedule_v11 and (bool(draft.state.pledges) or not ctx.from_simulation)
    if draft.state.pledge_for(number) is None and (ahead or ctx.schedule_v11):
        draft.commit_seed(number)  # a table from before contract v1.2 (or v1.1 replayed) moves to committing ahead
    pledge = draft.state.pledge_for(number)
    state = draft.state
    banker = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    betting_first = draft.rules.bet_timing == BetTiming.BEFORE_DEAL
    if draft.replaying and not betting_first and pledge is not None and not draft.knows_seed(number):
        # a verifier re-running the command that ended the previous hand, before this hand's seed is revealed:
        # everything up to here is checked; this hand is checked with its own commands
        return
    if pledge is not None:
        commitment, server_seed, client_seed = pledge.commitment, "", ""  # revealed at the end / at the first card
    else:
        # the old form, kept so that hands recorded before seeds were committed ahead re-run exactly: the seed
        # is the opening command's entropy and the client seed is fixed at the opening
        members = set(entrants) | ({banker.seat} if banker is not None else set())
        client_seed = ":".join(s.client_seed for s in state.seats if s.seat in members)
        server_seed = ctx.entropy
        commitment = seed_commitment(bytes.fromhex(server_seed))
    draft.emit(
        HandOpened(
            number=number,
            banker_seat=banker.seat if banker else None,
            banker_id=banker.player_id if banker else None,
            seed_commitment=commitment,
            server_seed=server_seed,
            client_seed=client_seed,
            stake=state.stake if draft.rules.stake_mode == StakeMode.BANK_FIXED else None,
            entrants=entrants,
            phase=Phase.BETTING if betting_first else Phase.DEALING,
        )
    )
    if ahead:
        # contract v1.2: hand N's opening commits hand N+2, so the next hand's commitment is public a whole hand
        # before its first card (a table moving over commits N+1 here too)
        for later in (number + 1, number + 2):
            if draft.state.pledge_for(later) is None:
                draft.commit_seed(later)


def fix_client_seed(draft: Draft) -> None:
    """Fix the hand's client seed as its first card is dealt: the client seeds of its participants (the banker
    and every punter hand still in it) at this moment, joined with ``:`` in seat order."""
    hand = draft.hand
    members = {h.seat for h in hand.punters if h.status != HandStatus.VOID}
    if hand.banker.seat is not None:
        members.add(hand.banker.seat)
    seats = sorted((s for s in draft.state.seats if s.seat in members), key=lambda s: s.seat)
    draft.emit(ClientSeedFixed(number=hand.number, client_seed=":".join(s.client_seed for s in seats)))


def draw(draft: Draft) -> tuple[str, int] | None:
    """The next card of the stock and its deck index, or None when the stock is exhausted.

    The first card of a hand fixes its client seed; a hand committed ahead derives its deck from the seed the
    command carries (``SeedUnavailable`` if it carries none that matches the commitment)."""
    hand = draft.hand
    if not hand.client_seed:
        fix_client_seed(draft)
        hand = draft.hand
    deck = hand.deck or draft.deck(hand)
    i = hand.next_card
    if i >= len(deck):
        return None
    return deck[i], i


def _draw_for_deal(draft: Draft) -> tuple[str, int]:
    drawn = draw(draft)
    if drawn is None:  # pragma: no cover - 8 participants never exhaust 40 cards in the first round
        raise RuntimeError("the stock cannot run out during the first round")
    return drawn


def deal_round(draft: Draft) -> None:
    """One card face down to each punter hand in play order, then one to the banker."""
    hand = draft.hand
    for h in hand.punters:
        if h.status != HandStatus.VOID:
            _deal_face_down(draft, seat=h.seat, player_id=h.player_id, banker=False)
    _deal_face_down(draft, seat=hand.banker.seat, player_id=hand.banker.player_id, banker=True)


def _deal_face_down(draft: Draft, *, seat: int | None, player_id: str | None, banker: bool) -> None:
    deal(draft, _draw_for_deal(draft), seat=seat, player_id=player_id, hand=0, banker=banker, face_up=False)


def deal(
    draft: Draft,
    drawn: tuple[str, int],
    *,
    seat: int | None,
    player_id: str | None,
    hand: int | None,
    banker: bool,
    face_up: bool,
) -> None:
    """Deal the ``drawn`` card (and its deck index) to a hand: ``hand`` None is a Hungarian card to assign, ``seat``
    and ``player_id`` None the house banker. Every card of a hand is dealt here."""
    card, deck_index = drawn
    draft.emit(
        CardDealt(
            number=draft.hand.number,
            seat=seat,
            player_id=player_id,
            hand=hand,
            banker=banker,
            card=card,
            face_up=face_up,
            deck_index=deck_index,
        )
    )
