"""The rules of one table in words, in the active language: the game information panel of the table page.

Built from the table's resolved rules (``gamemath.ruleset.Rules``) and limits, one whole sentence per fact (each
language's grammar, Django's catalogues), so every language says the same rules with the same figures.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from gamemath.cards import format_hp
from gamemath.enums import BetTiming, SplitMode, StakeMode, TieRule
from kit.card_names import card_name
from rules.config import TableConfig


def rules_in_words(config: TableConfig) -> list[str]:
    """One sentence per rule of the table that a player needs, in the active language."""
    rules = config.rules
    said = [
        _(
            "Aces count one, two to seven their value, jack, horse and king half a point: the hand closest to seven "
            "and a half without going over wins."
        ),
    ]
    if rules.stake_mode == StakeMode.BANK_FIXED and config.fixed_stake:
        said.append(_("Every bet is the bank's stake of %(stake)s chips.") % {"stake": config.fixed_stake})
    else:
        said.append(_("Bets from %(min)s to %(max)s chips.") % {"min": config.min_bet, "max": config.max_bet})
    said.append(
        {
            BetTiming.BEFORE_DEAL: _("Punters bet before any card is dealt."),
            BetTiming.AT_TURN_AFTER_PEEK: _("Each punter sees his first card, then bets at his turn."),
            BetTiming.AFTER_DEAL_ALL: _("Every punter sees his first card, then all bet before play starts."),
        }[rules.bet_timing]
    )
    said.append(_("A winning hand is paid %(times)s to 1.") % {"times": rules.player_win_pays})
    if rules.player_75_pays != rules.player_win_pays:
        said.append(_("Seven and a half is paid %(times)s to 1.") % {"times": rules.player_75_pays})
    if rules.reale:
        said.append(_("A royal seven and a half is paid %(times)s to 1.") % {"times": rules.reale_pays})
    if rules.pair_of_sevens:
        said.append(_("A pair of sevens is paid %(times)s to 1.") % {"times": rules.pair7_pays})
    said.append(_("Ties go to the bank.") if rules.tie_rule == TieRule.BANKER else _("A tie returns the stake."))
    if rules.matta != "none":
        said.append(_("The %(card)s is wild (matta).") % {"card": card_name(rules.matta)})
    if rules.raise_on_draw:
        said.append(_("You may raise your bet when you take a card."))
    if rules.hidden_card_swap:
        said.append(_("You may turn your hidden card up and take the next one face down."))
    if rules.split_mode != SplitMode.NONE:
        said.append(
            ngettext(
                "You may split into up to %(hands)s hand.",
                "You may split into up to %(hands)s hands.",
                rules.max_hands_per_punter,
            )
            % {"hands": rules.max_hands_per_punter}
        )
    if config.house_bank:
        said.append(
            _("The house holds the bank: it draws below %(points)s and stands on %(points)s or more.")
            % {"points": format_hp(rules.banker_stands_at_hp)}
        )
    else:
        said.append(_("A player holds the bank and plays his own hand."))
    said.append(
        ngettext(
            "You have %(seconds)s second for each decision.",
            "You have %(seconds)s seconds for each decision.",
            config.turn_timeout_s,
        )
        % {"seconds": config.turn_timeout_s}
    )
    return said
