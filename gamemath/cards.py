"""Cards of the 40-card Spanish/Italian pack, with the card codes of API.md and values in half-points.

A card is its code ``<rank><suit>``: rank 1-7, 10 (sota), 11 (caballo), 12 (rey); suit O, C, E, B.
Values are integer half-points (hp): ace 2, 2-7 twice the rank, any picture 1 (half a point).
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("O", "C", "E", "B")
RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
PICTURE_RANKS: frozenset[int] = frozenset({10, 11, 12})

#: The canonical order of the pack: for suit in O, C, E, B: for rank in 1..7, 10, 11, 12.
CANONICAL_DECK: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)

_RANK_OF: dict[str, int] = {code: int(code[:-1]) for code in CANONICAL_DECK}
#: Half-point value of every card code.
VALUE_HP: dict[str, int] = {code: (1 if r in PICTURE_RANKS else 2 * r) for code, r in _RANK_OF.items()}
_PICTURES: frozenset[str] = frozenset(code for code, r in _RANK_OF.items() if r in PICTURE_RANKS)
_SEVENS: frozenset[str] = frozenset(code for code, r in _RANK_OF.items() if r == 7)

SEVEN_AND_A_HALF_HP = 15

#: The English name of each suit and rank (the Spanish pack's: the jack is the sota, the horse the caballo, the king
#: the rey). Operators' text (``replay_hand``, the event lines) names cards with them; ``kit.card_names`` translates
#: the same words for the player client and the admin (a test holds the two together).
SUIT_WORDS: dict[str, str] = {"O": "coins", "C": "cups", "E": "swords", "B": "clubs"}
RANK_WORDS: dict[int, str] = {
    1: "ace",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    10: "jack",
    11: "horse",
    12: "king",
}


def card_words(code: str) -> str:
    """The card's English name: ``12O`` -> "king of coins" (a code that is no card, as it is)."""
    if not is_card(code):
        return code
    return f"{RANK_WORDS[_RANK_OF[code]]} of {SUIT_WORDS[code[-1]]}"


def is_card(code: object) -> bool:
    """True if ``code`` is one of the 40 card codes."""
    return isinstance(code, str) and code in _RANK_OF


def suit_of(code: str) -> str:
    """The suit letter of a card code."""
    return code[-1]


def value_hp(code: str) -> int:
    """The card's value in half-points (the wild card's floating value is handled by scoring)."""
    return VALUE_HP[code]


def is_picture(code: str) -> bool:
    """True for sota, caballo and rey (10, 11, 12)."""
    return code in _PICTURES


def is_seven(code: str) -> bool:
    """True for a natural seven."""
    return code in _SEVENS


def format_hp(total_hp: int) -> str:
    """A half-point total as the API's decimal string: 15 -> "7.5", 14 -> "7"."""
    whole, half = divmod(total_hp, 2)
    return f"{whole}.5" if half else str(whole)
