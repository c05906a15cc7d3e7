"""The player client's words in the active language (catalogues in ``locale/``), handed to its JavaScript.

Codes (actions, phases, categories, outcomes, suits, ranks) never change with the language; these are only
their names. The game's own words are the ones players of each country use: sette e mezzo, reale, matta;
siete y media; hetedfél.

The words are data: lazy translations, each read in the language active when :func:`client_words` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from kit.card_names import CARD_NAME, RANK_NAMES, SUIT_NAMES

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
    "suits": SUIT_NAMES,
    "ranks": RANK_NAMES,
    "presets": {
        "classic": _("classic rules"),
        "italian": _("Italian rules: sette e mezzo"),
        "spanish": _("Spanish rules: siete y media"),
        "hungarian": _("Hungarian rules: hetedfél"),
    },
    "statuses": {
        "in_play": _("in play"),
        "settled": _("settled"),
        "abandoned": _("abandoned"),
    },
    "banks": {
        "house": _("the house holds the bank"),
        "player": _("a player holds the bank"),
    },
}

#: The client's sentences and labels, by key (``%(name)s``-style placeholders filled in by the client).
SENTENCES: dict[str, Promise] = {
    "card_name": CARD_NAME,
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
    "banker_line": _("Banker %(name)s: %(total)s"),
    "player_at_seat": _("the player at seat %(seat)s"),
    "you_push": _("A push: your stake is returned."),
    "you_tie_push": _("A tie: your stake is returned."),
    "other_push": _("%(name)s: a push, the stake is returned."),
    "other_tie_push": _("%(name)s: a tie, the stake is returned."),
    "bank_even": _("As the banker you break even."),
    "tie_rule_banker": _("Ties go to the bank."),
    "tie_rule_push": _("A tie returns the stake."),
    "next_hand": _("You play from the next hand."),
    "deal_me_in": _("Deal me in"),
    "sound_on": _("Sound on"),
    "sound_off": _("Sound off"),
    "turn_title": _("Your turn!"),
    "hand_over": _("Hand %(number)s is over"),
    "replay": _("Replay, card by card"),
    "step_of": _("Step %(step)s of %(steps)s"),
    "previous_step": _("Previous"),
    "next_step": _("Next"),
    "dispute_open": _("Dispute this hand"),
    "dispute_reason": _("What went wrong?"),
    "dispute_sent": _("Sent: an operator will look at this hand and answer you."),
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


#: Sentences with a number of chips in them, each with its plural forms (Django's ``ngettext``): the client picks
#: the form by the number's CLDR plural category (``Intl.PluralRules``), see :func:`plural_forms`.
PLURALS: dict[str, Callable[[int], str]] = {
    "you_win": lambda n: ngettext("You win %(count)s chip.", "You win %(count)s chips.", n),
    "you_lose": lambda n: ngettext("You lose %(count)s chip.", "You lose %(count)s chips.", n),
    "you_tie_lose": lambda n: ngettext(
        "A tie: ties go to the bank. You lose %(count)s chip.",
        "A tie: ties go to the bank. You lose %(count)s chips.",
        n,
    ),
    "other_win": lambda n: ngettext("%(name)s wins %(count)s chip.", "%(name)s wins %(count)s chips.", n),
    "other_lose": lambda n: ngettext("%(name)s loses %(count)s chip.", "%(name)s loses %(count)s chips.", n),
    "other_tie_lose": lambda n: ngettext(
        "%(name)s ties: ties go to the bank, %(count)s chip lost.",
        "%(name)s ties: ties go to the bank, %(count)s chips lost.",
        n,
    ),
    "bank_win": lambda n: ngettext(
        "As the banker you win %(count)s chip.", "As the banker you win %(count)s chips.", n
    ),
    "bank_lose": lambda n: ngettext(
        "As the banker you lose %(count)s chip.", "As the banker you lose %(count)s chips.", n
    ),
    "held_banker": lambda n: ngettext(
        "%(count)s chip held: as the banker you may pay %(times)s times the bets of %(bet)s.",
        "%(count)s chips held: as the banker you may pay %(times)s times the bets of %(bet)s.",
        n,
    ),
    "held_punter": lambda n: ngettext(
        "%(count)s chip held: you may lose %(times)s times your bet of %(bet)s.",
        "%(count)s chips held: you may lose %(times)s times your bet of %(bet)s.",
        n,
    ),
}

#: A number of each CLDR plural category the four languages use, to ask ``ngettext`` for that category's form.
_CATEGORY_SAMPLES = {"one": 1, "many": 1_000_000, "other": 5}


def plural_forms(sentence: Callable[[int], str]) -> dict[str, str]:
    """The forms of one plural sentence in the active language, by CLDR plural category (one, many, other): data,
    not a formula, so the page's strict CSP (no eval) holds and ``Intl.PluralRules`` picks among them."""
    return {category: sentence(n) for category, n in _CATEGORY_SAMPLES.items()}


def client_words() -> dict[str, Any]:
    """Every word the client shows, in the active language: by code (for closed sets) or by key (sentences)."""
    words: dict[str, Any] = {
        name: {code: str(word) for code, word in names.items()} for name, names in CLOSED_SETS.items()
    }
    words.update((key, str(sentence)) for key, sentence in SENTENCES.items())
    words["plurals"] = {key: plural_forms(sentence) for key, sentence in PLURALS.items()}
    return words
