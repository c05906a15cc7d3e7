"""Error ``message``s in the caller's language (API.md "Languages"); codes never change with it.

In English a message is the sentence the code that refused the request wrote (it may name a hand, a field or
an amount). In Italian, Spanish and Hungarian it is that sentence's translation where the catalogue
(``locale/<lang>/LC_MESSAGES/django.po``) has it, else the code's own sentence below in that language: a
translated message is never a mix of two languages, and the ``details`` still say exactly what was wrong.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, gettext_noop

#: One sentence per error code, in every language of the catalogues.
CODE_MESSAGES = {
    "invalid_request": gettext_lazy("The request is invalid."),
    "bet_out_of_limits": gettext_lazy("The bet is outside the table's limits."),
    "rules_refused": gettext_lazy("The casino's limits on what a table returns to players refuse this table."),
    "not_authenticated": gettext_lazy("Sign in first: the credentials are missing or were refused."),
    "forbidden": gettext_lazy("You may not do this."),
    "excluded": gettext_lazy("This account is on a break or self-excluded."),
    "not_found": gettext_lazy("Not found."),
    "method_not_allowed": gettext_lazy("This method is not allowed here."),
    "not_acceptable": gettext_lazy("The requested format is not available."),
    "request_too_large": gettext_lazy("The request body is too large."),
    "unsupported_media_type": gettext_lazy("Send the body as JSON."),
    "throttled": gettext_lazy("Too many requests: wait a little and try again."),
    "not_your_turn": gettext_lazy("It is not your turn."),
    "wrong_phase": gettext_lazy("The hand is not at a point where this is possible."),
    "illegal_action": gettext_lazy("This action is not allowed now."),
    "insufficient_funds": gettext_lazy("You do not have enough chips."),
    "bank_cannot_cover": gettext_lazy("The bank cannot cover this bet."),
    "seat_taken": gettext_lazy("That seat is taken."),
    "table_full": gettext_lazy("The table is full."),
    "already_seated": gettext_lazy("You are already seated at this table."),
    "not_seated": gettext_lazy("You have no seat at this table."),
    "stale_version": gettext_lazy("The table has moved on: look again and retry."),
    "idempotency_conflict": gettext_lazy("This Idempotency-Key was already used with a different request."),
    "limit_reached": gettext_lazy("One of your limits has been reached."),
    "reality_check_due": gettext_lazy("A reality check is due: acknowledge it to go on playing."),
    "seat_limit": gettext_lazy("You already hold as many seats as an account may hold."),
    "server_error": gettext_lazy("Internal server error."),
    "service_unavailable": gettext_lazy("A service the casino depends on is briefly unavailable; retry."),
}


#: Sentences the rules core writes (it imports no Django, so they are marked here for the catalogues); a message
#: with a number in it (a hand, a seat) falls back to its code's sentence.
CORE_MESSAGES = (
    gettext_noop("it is not your turn"),
    gettext_noop("you bet at the start of your turn"),
    gettext_noop("you are already taking part"),
    gettext_noop("you are already sitting out"),
    gettext_noop("you are not seated at this table"),
    gettext_noop("you have already bet on this hand"),
    gettext_noop("you are not in this hand; you take part from the next one"),
    gettext_noop("bet first: a stake is owed before anything else"),
    gettext_noop("give the drawn card to a hand first"),
    gettext_noop("no hand is in play"),
    gettext_noop("bets are closed"),
    gettext_noop("the table is full"),
    gettext_noop("the table does not exist"),
    gettext_noop("Unable to log in with the provided credentials."),
)


def localized(code: str, message: str) -> str:
    """``message`` (written in English for ``code``) in the active language."""
    language = translation.get_language() or "en"
    if language.split("-")[0] == "en":
        return message
    translated = gettext(message) if message else message
    if translated != message:
        return translated
    sentence = CODE_MESSAGES.get(code)
    return str(sentence) if sentence is not None else message
