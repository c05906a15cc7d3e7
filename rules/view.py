"""The views of a table and of its hands for one viewer (DESIGN.md principle 7): the table view, a hand's facts,
the last hand's outcome, the table's settings. What a viewer may see of them is decided by the one hiding rule
(``rules.hiding``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gamemath.cards import CANONICAL_DECK, format_hp
from gamemath.enums import OVER, HandStatus, Phase, ViewerKind
from gamemath.ruleset import Rules
from gamemath.scoring import Score, evaluate
from rules.events import HandResult
from rules.hiding import Viewer, card_visible, no_deck_reason, settled_deck
from rules.legal import legal_actions, legal_hands
from rules.state import BankerHand, EndedHand, HandState, PunterHand, TableState
from rules.view_records import (
    CardView,
    HandFacts,
    HandOutcome,
    HandView,
    LastHand,
    LastHandBanker,
    LastHandRow,
    ParticipantView,
    PendingCard,
    ResultRow,
    SeatRef,
    SeatView,
    TableSettings,
    TableView,
    TurnView,
    You,
)


def result_row(result: HandResult) -> ResultRow:
    """One settled punter hand as every surface shows it."""
    return ResultRow(
        seat=result.seat,
        player_id=result.player_id,
        hand=result.hand,
        bet=result.bet,
        category=result.category,
        total_half_points=result.total_half_points,
        matta_value=result.matta_value,
        outcome=result.outcome,
        tie=result.tie,
        multiplier=result.multiplier,
        net=result.net,
    )


def table_settings(state: TableState) -> TableSettings | None:
    """The table's nine settings (``fixed_stake``: the stake S in force), None before the table exists."""
    config = state.config
    if config is None:
        return None
    return TableSettings(
        preset=config.preset,
        rules=config.rules.to_dict(),
        min_bet=config.min_bet,
        max_bet=config.max_bet,
        bank=config.bank,
        max_seats=config.max_seats,
        fixed_stake=state.stake if state.stake is not None else config.fixed_stake,
        turn_timeout_s=config.turn_timeout_s,
        betting_timeout_s=config.betting_timeout_s,
    )


def _cards(
    viewer: Viewer, owner: str | None, cards: tuple[str, ...], face_up: tuple[bool, ...], shown: bool, public: bool
) -> tuple[tuple[CardView, ...], bool]:
    out = []
    all_visible = True
    for code, up in zip(cards, face_up, strict=True):
        visible = card_visible(viewer, owner, up, shown, public)
        all_visible &= visible
        out.append(CardView(code=code if visible else None, face_up=up or shown or public))
    return tuple(out), all_visible


def _one_hand(
    *,
    index: int,
    bet: int | None,
    cards: tuple[CardView, ...],
    score: Score | None,
    status: str,
    result: HandResult | None = None,
) -> HandView:
    return HandView(
        index=index,
        bet=bet,
        cards=cards,
        total=format_hp(score.total_hp) if score is not None else None,
        total_half_points=score.total_hp if score is not None else None,
        category=score.category if score is not None else None,
        matta_value=score.matta_hp if score is not None else None,
        status=status,
        result=None
        if result is None
        else HandOutcome(outcome=result.outcome, tie=result.tie, multiplier=result.multiplier, net=result.net),
    )


def _punter_hand(viewer: Viewer, hand: HandState, h: PunterHand, rules: Rules, public: bool) -> HandView:
    cards, all_visible = _cards(viewer, h.player_id, h.cards, h.face_up, h.shown, public)
    score: Score | None = None
    if all_visible and h.cards:
        if h.category is not None and h.total_hp is not None:
            score = Score(h.category, h.total_hp, h.matta_hp)
        else:
            score = evaluate(h.cards, rules, split=h.seat in hand.split_seats)
    status = "closed" if h.status == HandStatus.VOID else str(h.status)
    return _one_hand(index=h.hand_index, bet=h.stake, cards=cards, score=score, status=status, result=h.result)


def _banker_hand(viewer: Viewer, b: BankerHand, rules: Rules, public: bool) -> HandView:
    cards, all_visible = _cards(viewer, b.player_id, b.cards, b.face_up, False, public)
    score: Score | None = None
    if all_visible and b.cards:
        if b.category is not None and b.total_hp is not None:
            score = Score(b.category, b.total_hp, b.matta_hp)
        else:
            score = evaluate(b.cards, rules)
    return _one_hand(index=0, bet=None, cards=cards, score=score, status=str(b.status))


def _participants(
    viewer: Viewer, hand: HandState, rules: Rules, names: Mapping[int, str], public: bool
) -> tuple[ParticipantView, ...]:
    """The banker, then each punter in play order with his hands."""
    b = hand.banker
    banker = ParticipantView(
        seat=b.seat,
        player_id=b.player_id,
        username=names.get(b.seat) if b.seat is not None else None,
        role="banker",
        hands=(_banker_hand(viewer, b, rules, public),),
    )
    seats: dict[int, list[PunterHand]] = {}
    for h in hand.punters:
        seats.setdefault(h.seat, []).append(h)
    punters = tuple(
        ParticipantView(
            seat=seat,
            player_id=mine[0].player_id,
            username=names.get(seat),
            role="punter",
            hands=tuple(_punter_hand(viewer, hand, h, rules, public) for h in mine),
        )
        for seat, mine in seats.items()
    )
    return (banker, *punters)


def hand_facts(
    state: TableState,
    hand: HandState,
    viewer: Viewer,
    *,
    public: bool = False,
    with_deck: bool = True,
    names: Mapping[int, str] | None = None,
) -> HandFacts:
    """``hand`` (the hand of ``state``) as ``viewer`` may see it now.

    Once the hand is over every card dealt in it is public, its server seed is revealed and, ``with_deck``, its
    whole deck is shown. ``public`` says the hand has ended since ``state`` (a step of a replay): every card is
    shown as it lay then. ``names`` (seat -> username) default to the seats of ``state``.
    """
    assert state.config is not None
    over = hand.phase in OVER
    settled = hand.phase == Phase.SETTLED
    seen = public or over
    names = {s.seat: s.username for s in state.seats} if names is None else names
    aw = state.awaiting if state.hand is hand and hand.in_play else None
    deck = settled_deck(hand) if over and with_deck else None
    return HandFacts(
        number=hand.number,
        nonce=hand.number,
        seed_commitment=hand.seed_commitment,
        client_seed=hand.client_seed or None,
        server_seed=(hand.server_seed or None) if over else None,
        stake=hand.stake,
        phase=hand.phase,
        turn=None if aw is None else TurnView(seat=aw.seat, hand=aw.hand, kind=aw.kind, deadline=aw.deadline_ms),
        participants=_participants(viewer, hand, state.config.rules, names, seen),
        pending_card=PendingCard(seat=hand.pending[0], code=hand.pending[1]) if hand.pending else None,
        cards_dealt=hand.next_card,
        stock_left=len(CANONICAL_DECK) - hand.next_card,
        deck=tuple(deck) if deck is not None else None,
        deck_reason=(no_deck_reason(hand) if over else "the hand is in play") if deck is None else None,
        results=tuple(result_row(r) for r in hand.results) if settled else None,
        payouts=dict(hand.payouts) if settled else None,
        banker_net=-sum(r.net for r in hand.results) if settled else None,
        next_banker=SeatRef(seat=hand.next_banker_seat, username=names.get(hand.next_banker_seat or -1))
        if settled
        else None,
    )


def last_hand_view(state: TableState) -> LastHand | None:
    """How the last hand that ended (``state.last_hand``) ended, the same for every viewer: every card of an
    ended hand is public (its seed is revealed). The banker's cards and total, then one row per punter hand
    with its cards, total, category, outcome and net. ``number`` says which hand it was; the shell adds its
    ``id``."""
    ended: EndedHand | None = state.last_hand
    if ended is None or state.config is None:
        return None
    hand = ended.hand
    names = dict(ended.usernames)
    b = hand.banker
    banker_score: Score | None = None
    if b.total_hp is not None and b.category is not None:
        banker_score = Score(b.category, b.total_hp, b.matta_hp)
    elif b.cards:
        banker_score = evaluate(b.cards, state.config.rules)
    cards = {(h.seat, h.hand_index): h.cards for h in hand.punters}
    return LastHand(
        number=hand.number,
        status="settled" if hand.phase == Phase.SETTLED else "abandoned",
        banker=LastHandBanker(
            seat=b.seat,
            username=names.get(b.seat) if b.seat is not None else None,
            cards=b.cards,
            total=format_hp(banker_score.total_hp) if banker_score is not None else None,
            total_half_points=banker_score.total_hp if banker_score is not None else None,
            category=banker_score.category if banker_score is not None else None,
        ),
        results=tuple(
            LastHandRow(
                seat=r.seat,
                username=names.get(r.seat),
                hand=r.hand,
                bet=r.bet,
                cards=cards.get((r.seat, r.hand), ()),
                total=format_hp(r.total_half_points),
                total_half_points=r.total_half_points,
                category=r.category,
                outcome=r.outcome,
                net=r.net,
            )
            for r in hand.results
        ),
        next_banker=SeatRef(seat=hand.next_banker_seat, username=names.get(hand.next_banker_seat))
        if hand.next_banker_seat is not None
        else None,
    )


def view(
    state: TableState,
    viewer: Viewer,
    wallets: Mapping[str, int] | None = None,
    *,
    legal: Sequence[str] | None = None,
    hands: Mapping[str, Sequence[int]] | None = None,
) -> TableView:
    """The table as ``viewer`` may see it (API.md's table view; ``msgspec.to_builtins`` gives its JSON).

    For a player viewer ``you.legal_actions`` lists what he may send now (funds are checked against
    ``wallets`` when given): ``legal`` when the caller already worked it out for this state, player and
    wallets (the shell keeps the answers, so a state is probed once), else :func:`legal_actions`; likewise
    ``you.legal_hands`` (``hands``, else :func:`legal_hands`). An ended hand's deck is shown to the auditor
    only (everyone reads it in the hand's history). The shell adds the table id and name and the balance.
    """
    hand = state.hand
    you: You | None = None
    if viewer.kind == ViewerKind.PLAYER and viewer.player_id is not None:
        seat = state.seat_of(viewer.player_id)
        actions = tuple(legal) if legal is not None else tuple(legal_actions(state, viewer.player_id, wallets))
        if hands is None:
            hands = legal_hands(state, viewer.player_id, wallets, legal=list(actions))
        you = You(
            player_id=viewer.player_id,
            seat=seat.seat if seat else None,
            legal_actions=actions,
            legal_hands={name: tuple(indexes) for name, indexes in hands.items()},
        )
    return TableView(
        settings=table_settings(state),
        version=state.version,
        phase=state.phase,
        banker_seat=state.banker_seat,
        seats=tuple(
            SeatView(
                seat=s.seat,
                player_id=s.player_id,
                username=s.username,
                is_banker=s.seat == state.banker_seat,
                sitting_out=s.sitting_out,
                leaving=s.leaving,
                timeouts=s.timeouts,
            )
            for s in state.seats
        ),
        next_seed_commitment=state.next_seed_commitment,
        hand=hand_facts(state, hand, viewer, with_deck=viewer.kind == ViewerKind.AUDITOR)
        if hand is not None and hand.phase != Phase.ABANDONED
        else None,
        last_hand=last_hand_view(state),
        you=you,
    )
