"""The words of the rules: phases, waits, hand statuses and the reasons events give (``StrEnum``s).

Each member's value is the string stored in the events' JSON and shown by the API, so a member compares
equal to (and serialises as) its string: old rows decode, the API does not change.

``bets`` and ``bet`` are two different waits (both values are kept as they are stored):
:attr:`WaitKind.BETTING_WINDOW` (``"bets"``) waits on every entrant who has not staked yet, with the betting
deadline; :attr:`WaitKind.OWED_BET` (``"bet"``) waits on one punter who owes his bet at the start of his turn
(``at_turn_after_peek``), with the turn deadline.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a hand is (``HandState.phase``); the API's table phase is ``waiting`` between hands."""

    WAITING = "waiting"  # no hand in play (the API's phase only; never a hand's)
    BETTING = "betting"  # a betting window is open
    DEALING = "dealing"  # opened, or its betting window closed: cards go out, then the punters play
    PUNTERS = "punters"  # a punter's turn
    BANKER = "banker"  # the banker's turn (or the banker's turn skipped, just before settlement)
    SETTLED = "settled"
    ABANDONED = "abandoned"  # closed without a settlement (no stake, or its seed unavailable)


#: Phases of a hand no longer in play.
OVER = frozenset({Phase.SETTLED, Phase.ABANDONED})


class WaitKind(StrEnum):
    """What the table waits for (``ActionAwaited.kind``, ``Awaiting.kind``, ``PlayerTimedOut.waiting_for``)."""

    BETTING_WINDOW = "bets"  # every entrant who has not staked (a betting window)
    OWED_BET = "bet"  # one punter's bet, owed at the start of his turn
    PLAY = "play"  # a punter's decision on a hand
    ASSIGN = "assign"  # a Hungarian punter gives his drawn card to a hand
    BANKER = "banker"  # a player banker's decision


class ViewerKind(StrEnum):
    """Who is looking at a table (``rules.hiding.Viewer``): the one hiding rule decides what each kind sees."""

    PLAYER = "player"  # a player, seated or not: sees his own face-down cards
    SPECTATOR = "spectator"  # anyone signed in who is not playing
    AUDITOR = "auditor"  # an operator checking hands: the whole deck once a hand is settled


class DisputeStatus(StrEnum):
    """A dispute of a hand: waiting for an operator, or resolved (with a note, and an entry when chips are owed)."""

    OPEN = "open"
    RESOLVED = "resolved"


class HandStatus(StrEnum):
    """A punter's (or the banker's) hand, as API.md names it."""

    WAITING = "waiting"  # not yet its turn
    PLAYING = "playing"
    STOOD = "stood"
    BUST = "bust"
    CLOSED = "closed"  # 15 hp (a banker's pair of sevens too)
    SETTLED = "settled"  # a punter's pair of sevens, settled at once
    VOID = "void"  # dealt in, then out without a stake (the API shows it as closed)


#: Punter hands still to play, and hands that wait for the banker's.
LIVE = frozenset({HandStatus.WAITING, HandStatus.PLAYING})
UNSETTLED = frozenset({HandStatus.STOOD, HandStatus.CLOSED})


class StandReason(StrEnum):
    """Why a hand stands (``HandStood.reason``)."""

    ACTION = "action"
    TIMEOUT = "timeout"
    STOCK_EXHAUSTED = "stock_exhausted"
    HOUSE_RULE = "house_rule"


class SkipReason(StrEnum):
    """Why a punter takes no part in a hand (``PunterSkipped.reason``); the last three are error codes."""

    TIMEOUT = "timeout"
    SAT_OUT = "sat_out"
    LEFT = "left"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    BANK_CANNOT_COVER = "bank_cannot_cover"
    LIMIT_REACHED = "limit_reached"  # his responsible-gaming limits allow no stake (Context.loss_room)


class LeaveReason(StrEnum):
    """``SeatLeft.reason``."""

    REQUEST = "request"
    AFTER_HAND = "after_hand"
    IDLE = "idle"  # released by the server: took part in no hand for a while (ReleaseIdleSeat)


class SitOutReason(StrEnum):
    """``SatOut.reason`` (and ``SeatState.sit_out_reason``)."""

    REQUEST = "request"
    TIMEOUT = "timeout"


class SitInReason(StrEnum):
    """``SatIn.reason``: back from sitting out, "ready" between hands, or back by acting in a hand."""

    REQUEST = "request"
    READY = "ready"
    ACTED = "acted"


class BankReason(StrEnum):
    """Why the bank is where it is (``HandSettled.bank_reason``, ``BankPassed.reason``)."""

    WON = "won"
    ROTATION = "rotation"
    KEPT = "kept"
    RETIRED = "retired"
    LEFT = "left"
    SAT_OUT = "sat_out"
    CANNOT_COVER = "cannot_cover"
    HOUSE = "house"
    OFFERED = "offered"  # a table without a banker offers the bank


class AbandonReason(StrEnum):
    """``HandAbandoned.reason``."""

    NO_STAKES = "no_stakes"
    SEED_UNAVAILABLE = "seed_unavailable"


class Outcome(StrEnum):
    """How a punter hand settles (``HandResult.outcome``)."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


class Category(StrEnum):
    """What a hand makes (``evaluate``; ``HandResult.category``), worst first."""

    BUST = "bust"
    POINTS = "points"
    SEVEN_HALF = "seven_half"
    REALE = "reale"  # 7½ with a picture and a seven (``reale``)
    PAIR7 = "pair7"  # a pair of sevens (``pair_of_sevens``)


# -- the rule toggles' words (RULES.md §4) ------------------------------------------------------------------------


class Preset(StrEnum):
    """The four presets of RULES.md §8."""

    CLASSIC = "classic"
    ITALIAN = "italian"
    SPANISH = "spanish"
    HUNGARIAN = "hungarian"


class Bank(StrEnum):
    """Who banks a table: its players in turn, or the house."""

    PLAYER = "player"
    HOUSE = "house"


class BetTiming(StrEnum):
    """``bet_timing``: when punters stake."""

    BEFORE_DEAL = "before_deal"
    AT_TURN_AFTER_PEEK = "at_turn_after_peek"
    AFTER_DEAL_ALL = "after_deal_all"


class StakeMode(StrEnum):
    """``stake_mode``: each punter's choice, or one stake S fixed by the bank."""

    PLAYER_CHOICE = "player_choice"
    BANK_FIXED = "bank_fixed"


class RealeWithMatta(StrEnum):
    """``reale_with_matta``: whether a reale may hold the wild card."""

    ANY = "any"
    MATTA_AS_HALF_ONLY = "matta_as_half_only"
    NEVER = "never"


class MattaValues(StrEnum):
    """``matta_values``: the values the wild card may take."""

    HALF_OR_INTEGERS = "half_or_integers"
    INTEGERS_ONLY = "integers_only"
    HALF_OR_SEVEN = "half_or_seven"


class MattaAlone(StrEnum):
    """``matta_alone_value``: the wild card alone."""

    HALF = "half"
    FREE = "free"


class SplitMode(StrEnum):
    """``split_mode``."""

    NONE = "none"
    SPANISH = "spanish"
    HUNGARIAN = "hungarian"


class TieRule(StrEnum):
    """``tie_rule``: who wins a tie."""

    BANKER = "banker"
    PUSH = "push"


class BankTrigger(StrEnum):
    """``bank_transfer_trigger``: which winning hands take the bank."""

    ANY_75 = "any_75"
    REALE_OR_PAIR7 = "reale_or_pair7"
    NONE = "none"


class BankRotation(StrEnum):
    """``bank_rotation``."""

    NEVER = "never"
    EVERY_HAND = "every_hand"
