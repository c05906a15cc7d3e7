"""The names of the 40 cards of the Spanish/Italian pack in the active language: one catalogue for every surface
that names a card (the player client's words, the admin, ``replay_hand``).

A card's code (API.md: ``<rank><suit>``, rank 1-7, 10 sota, 11 caballo, 12 rey; suit O oros, C copas, E espadas,
B bastos) never changes with the language; its name does ("rey de oros", "re di denari", "king of coins").
"""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

SUIT_NAMES: dict[str, Promise] = {
    "O": pgettext_lazy("suit", "coins"),
    "C": pgettext_lazy("suit", "cups"),
    "E": pgettext_lazy("suit", "swords"),
    "B": pgettext_lazy("suit", "clubs"),
}
RANK_NAMES: dict[str, Promise] = {
    "1": pgettext_lazy("rank", "ace"),
    "2": pgettext_lazy("rank", "two"),
    "3": pgettext_lazy("rank", "three"),
    "4": pgettext_lazy("rank", "four"),
    "5": pgettext_lazy("rank", "five"),
    "6": pgettext_lazy("rank", "six"),
    "7": pgettext_lazy("rank", "seven"),
    "10": pgettext_lazy("rank", "jack"),
    "11": pgettext_lazy("rank", "horse"),
    "12": pgettext_lazy("rank", "king"),
}
#: How a rank and a suit make a card's name ("%(rank)s of %(suit)s"), in the active language.
CARD_NAME = _("%(rank)s of %(suit)s")
_CODE = re.compile(r"(1|2|3|4|5|6|7|10|11|12)([OCEB])")


def card_name(code: str) -> str:
    """The card's name in the active language ("king of coins"); anything that is not a card code as it is."""
    match = _CODE.fullmatch(code)
    if match is None:
        return code
    rank, suit = match.groups()
    return str(CARD_NAME) % {"rank": RANK_NAMES[rank], "suit": SUIT_NAMES[suit]}


def card_label(code: str) -> str:
    """The card's name with its code, for operators' lines: "king of coins (12O)"."""
    return f"{card_name(code)} ({code})" if _CODE.fullmatch(code) else code
