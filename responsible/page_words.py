"""The words of ``/play/limits/`` in the active language, handed to its script as JSON (the page's strict CSP: no
inline script). Whole sentences with ``%(name)s`` placeholders, each translated for its language's grammar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

#: Each limit by its kind and period (``kind:period``, the form's values), named whole.
LIMIT_NAMES = {
    "loss:day": _("loss per day"),
    "loss:week": _("loss per week"),
    "loss:month": _("loss per month"),
    "deposit:day": _("deposit per day"),
    "deposit:week": _("deposit per week"),
    "deposit:month": _("deposit per month"),
    "stake:": _("largest stake"),
    "session:": _("session (minutes)"),
    "reality_check:": _("reality check every (minutes, 15-120)"),
}


def exclusion_names() -> list[tuple[str, str]]:
    """The breaks and self-exclusions offered (``kind:days``, the form's values), each named whole."""
    breaks = [
        (f"break:{days}", ngettext("a break of %(count)s day", "a break of %(count)s days", days))
        for days in (1, 7, 30, 60, 90)
    ]
    return [(value, name % {"count": value.split(":")[1]}) for value, name in breaks] + [
        ("self_exclusion:180", str(_("self-exclusion for 6 months"))),
        ("self_exclusion:365", str(_("self-exclusion for 1 year"))),
        ("self_exclusion:1825", str(_("self-exclusion for 5 years"))),
    ]


ACTIVITY_NAMES = {
    "stakes": _("stakes"),
    "wins": _("winnings"),
    "net": _("net"),
    "deposits": _("deposits"),
    "withdrawals": _("withdrawals"),
    "net_deposits": _("net deposits"),
}
SENTENCES = {
    "not_signed_in": _("not signed in"),
    "signed_in": _("signed in"),
    "signed_out": _("signed out"),
    "refused": _("refused"),
    "no_limit": _("no limit"),
    "confirm": _("Confirm"),
    "done": _("Done."),
    "requested": _("Requested: confirm it after the cooling-off."),
    "request_line": _("%(limit)s to %(amount)s: confirmable from %(from)s, lapses %(until)s"),
    "on_break": _("You are on a break until %(until)s."),
    "self_excluded": _("You are self-excluded until %(until)s."),
    "started": _("Started: until %(until)s. You have been signed out."),
}
PLURALS: dict[str, Callable[[int], str]] = {
    "minutes": lambda n: ngettext("%(count)s minute", "%(count)s minutes", n),
    "reality": lambda n: ngettext(
        "You have played for %(count)s minute this session, wagered %(wagered)s chips, and your net is %(net)s chips.",
        "You have played for %(count)s minutes this session, wagered %(wagered)s chips, and your net is %(net)s chips.",
        n,
    ),
}
_CATEGORY_SAMPLES = {"one": 1, "many": 1_000_000, "other": 5}


def limits_words() -> dict[str, Any]:
    """Every word the limits page's script shows, in the active language."""
    words: dict[str, Any] = {key: str(text) for key, text in SENTENCES.items()}
    words["limits"] = {key: str(text) for key, text in LIMIT_NAMES.items()}
    words["activity"] = {key: str(text) for key, text in ACTIVITY_NAMES.items()}
    words["plurals"] = {
        key: {category: sentence(n) for category, n in _CATEGORY_SAMPLES.items()} for key, sentence in PLURALS.items()
    }
    return words
