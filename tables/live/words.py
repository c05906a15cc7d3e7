"""The player client's words in the active language (catalogues in ``locale/``), handed to its JavaScript.

Codes (actions, phases, categories, outcomes, suits, ranks) never change with the language; these are only
their names. The game's own words are the ones players of each country use: sette e mezzo, reale, matta;
siete y media; hetedfél.

The words are data: lazy translations, each read in the language active when :func:`client_words` runs.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

#: The name of each code, for each closed set the client shows, by the set's key in :func:`client_words`.
CLOSED_SETS: dict[str, dict[str, Promise]] = {
    "actions": {
        "sit": _("Sit down"),
        "leave": _("Leave the table"),
        "bet": _("Bet"),
        "hit": _("Card"),
        "hit_face_down": _("Card face down"),
        "stand": _("Stand"),
        "raise": _("Raise"),
        "split": _("Split"),
        "assign": _("Give the card to this hand"),
        "sit_out": _("Sit out"),
        "sit_in": _("Sit in"),
        "set_stake": _("Set the stake"),
        "retire_bank": _("Pass the bank"),
    },
    "phases": {
        "waiting": _("waiting for players"),
        "betting": _("bets"),
        "dealing": _("dealing"),
        "punters": _("punters' turns"),
        "banker": _("banker's turn"),
        "settled": _("hand over"),
    },
    "categories": {
        "bust": _("bust"),
        "points": _("points"),
        "seven_half": _("seven and a half"),
        "reale": _("royal seven and a half"),
        "pair7": _("pair of sevens"),
    },
    "outcomes": {
        "win": _("wins"),
        "lose": _("loses"),
        "push": _("push"),
    },
    "suits": {
        "O": pgettext_lazy("suit", "coins"),
        "C": pgettext_lazy("suit", "cups"),
        "E": pgettext_lazy("suit", "swords"),
        "B": pgettext_lazy("suit", "clubs"),
    },
    "ranks": {
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
    },
    "presets": {
        "classic": _("classic rules"),
        "italian": _("Italian rules: sette e mezzo"),
        "spanish": _("Spanish rules: siete y media"),
        "hungarian": _("Hungarian rules: hetedfél"),
    },
    "banks": {
        "house": _("the house holds the bank"),
        "player": _("a player holds the bank"),
    },
}

#: The client's sentences and labels, by key (``%(name)s``-style placeholders filled in by the client).
SENTENCES: dict[str, Promise] = {
    "card_name": _("%(rank)s of %(suit)s"),
    "hidden_card": _("face-down card"),
    "own_face_down": _("face down: only you see it"),
    "matta": _("wild card (matta)"),
    "house": _("the house"),
    "banker": _("banker"),
    "punter": _("punter"),
    "you": _("you"),
    "total": _("total"),
    "bet_label": _("bet"),
    "hand_n": _("Hand %(number)s"),
    "table_n": _("Table %(id)s"),
    "hand_index": _("hand %(index)s"),
    "turn_of": _("Turn: %(name)s"),
    "your_turn": _("Your turn"),
    "bets_open": _("Bets are open"),
    "seconds_left": _("%(seconds)s s left"),
    "dealt": _("%(name)s: %(card)s"),
    "result_line": _("%(name)s %(outcome)s %(net)s (%(total)s)"),
    "banker_line": _("Banker %(name)s: %(total)s"),
    "last_hand_title": _("How hand %(number)s ended"),
    "abandoned": _("abandoned: every stake returned"),
    "no_such_table": _("There is no such table."),
    "live": _("live"),
    "connecting": _("connecting"),
    "reconnecting": _("reconnecting"),
    "not_signed_in": _("not signed in"),
    "signed_out": _("signed out"),
    "token_refused": _("That token was refused."),
    "seat_none": _("none"),
    "sitting_out": _("sitting out"),
    "open_table": _("Open table %(name)s"),
    "players": _("%(taken)s of %(max)s seats"),
    "limits": _("bets %(min)s to %(max)s"),
    "no_hands": _("You have not played a hand yet."),
    "verify": _("Verify"),
    "export": _("Download the export"),
    "verify_ok": _("every check passed"),
    "seed_set": _("Your client seed is now %(seed)s."),
    "new_commitment": _("New commitment: your client seed was changed to a fresh random one."),
    "registered": _("Account created: you are signed in."),
    "game_name": _("Seven and a Half"),
    "rtp_player_bank": _("not given: the banker is a player"),
    "rtp_computing": _("being computed"),
    "rtp_margin": _("%(rtp)s ± %(margin)s"),
    "rtp_exact": _("Exact, computed from the table's rules: what a punter gets back per chip staked."),
    "rtp_simulated": _(
        "Simulated against the documented banker strategy, with its margin at 95 percent confidence: what a punter "
        "gets back per chip staked."
    ),
}


def client_words() -> dict[str, dict[str, str] | str]:
    """Every word the client shows, in the active language: by code (for closed sets) or by key (sentences)."""
    words: dict[str, dict[str, str] | str] = {
        name: {code: str(word) for code, word in names.items()} for name, names in CLOSED_SETS.items()
    }
    words.update((key, str(sentence)) for key, sentence in SENTENCES.items())
    return words
