"""List filters of the game's admin pages."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import connection
from django.db.models import QuerySet
from django.http import HttpRequest

from gamemath.ruleset import PRESET_NAMES
from rules import EVENT_TYPES


class InputFilter(admin.SimpleListFilter):
    """A filter typed into a text box (for values with too many choices to list, such as usernames)."""

    template = "admin/tables/input_filter.html"
    placeholder = ""

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("", "")]  # one dummy choice, so the filter is shown

    def choices(self, changelist: Any) -> Any:
        params = getattr(changelist, "params", {}) or {}
        others = []
        for key, values in params.items():
            if key in (self.parameter_name, "p"):
                continue
            for value in values if isinstance(values, list) else [values]:
                others.append((key, value))
        yield {
            "parameter_name": self.parameter_name,
            "value": self.value() or "",
            "placeholder": self.placeholder,
            "others": others,
            "clear": changelist.get_query_string(remove=[self.parameter_name]),
        }


class PlayerFilter(InputFilter):
    title = "player"
    parameter_name = "player"
    placeholder = "username"

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = (self.value() or "").strip()
        if not value:
            return queryset
        return queryset.filter(participants__user__username__iexact=value)


class OutcomeFilter(admin.SimpleListFilter):
    """How a hand ended: for the bank, or, when a player is chosen, for that player."""

    title = "outcome"
    parameter_name = "outcome"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        choices = [
            ("banker_won", "banker won"),
            ("banker_lost", "banker lost"),
            ("even", "banker even"),
            ("abandoned", "abandoned"),
            ("in_play", "in play"),
        ]
        if request.GET.get(PlayerFilter.parameter_name):
            choices += [("player_won", "the player won"), ("player_lost", "the player lost"), ("player_even", "even")]
        return choices

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value == "banker_won":
            return queryset.filter(status="settled", banker_net__gt=0)
        if value == "banker_lost":
            return queryset.filter(status="settled", banker_net__lt=0)
        if value == "even":
            return queryset.filter(status="settled", banker_net=0)
        if value in ("abandoned", "in_play"):
            return queryset.filter(status=value)
        player = (request.GET.get(PlayerFilter.parameter_name) or "").strip()
        if value in ("player_won", "player_lost", "player_even") and player:
            net = {"player_won": "participants__net__gt", "player_lost": "participants__net__lt"}
            lookup = net.get(value, "participants__net")
            return queryset.filter(status="settled", participants__user__username__iexact=player, **{lookup: 0})
        return queryset


class VerifiedFilter(admin.SimpleListFilter):
    title = "verification"
    parameter_name = "verified"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("ok", "verified: every check passed"), ("failed", "verified: a check failed"), ("no", "not verified")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value == "ok":
            return queryset.filter(verified_ok=True)
        if value == "failed":
            return queryset.filter(verified_ok=False)
        if value == "no":
            return queryset.filter(verified_at__isnull=True)
        return queryset


class StreamFilter(InputFilter):
    """A table typed by its id (the events' and the hands' lists; listing the tables would read them all)."""

    title = "table id"
    parameter_name = "table"
    placeholder = "table id"

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = (self.value() or "").strip()
        return queryset.filter(table_id=int(value)) if value.isdigit() else queryset


class HandTableFilter(StreamFilter):
    """The hands of a table typed by its id (the parameter Django's related-field filter used)."""

    parameter_name = "table__id__exact"


class EventTypeFilter(admin.SimpleListFilter):
    """Event types from the rules core (no query over the event table to list them)."""

    title = "type"
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(cls.__name__, cls.__name__) for cls in EVENT_TYPES]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(type=self.value()) if self.value() else queryset


class ChoicesFilter(admin.SimpleListFilter):
    """A column's values listed from code, not by ``SELECT DISTINCT`` over a table of millions of rows (what
    Django's default filter for a plain column does)."""

    field = ""
    choices_list: tuple[tuple[str, str], ...] = ()

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(self.choices_list)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class PresetFilter(ChoicesFilter):
    title = "preset"
    parameter_name = "preset"
    field = "preset"
    choices_list = tuple((name, name) for name in PRESET_NAMES)


class HandStatusFilter(ChoicesFilter):
    title = "status"
    parameter_name = "status"
    field = "status"
    choices_list = (("in_play", "in play"), ("settled", "settled"), ("abandoned", "abandoned"))


# every (version, digest) of the rules that dealt a hand, one index probe each (a skip scan of
# hand_rules_release_idx), not a SELECT DISTINCT over every hand (('', ''): hands opened before hands recorded them)
_RULES_RELEASES = """
WITH RECURSIVE releases AS (
    (SELECT rules_version, rules_sha256 FROM "tables_hand" ORDER BY rules_version, rules_sha256 LIMIT 1)
    UNION ALL
    SELECT later.rules_version, later.rules_sha256 FROM releases, LATERAL (
        SELECT h.rules_version, h.rules_sha256 FROM "tables_hand" h
         WHERE (h.rules_version, h.rules_sha256) > (releases.rules_version, releases.rules_sha256)
         ORDER BY h.rules_version, h.rules_sha256 LIMIT 1) later
)
SELECT rules_version, rules_sha256 FROM releases ORDER BY rules_version = '', rules_version, rules_sha256
"""
UNKNOWN_RULES = "unknown"


def rules_releases() -> list[tuple[str | None, str | None]]:
    """Every (rules version, rules sha256) that ever dealt a hand (API.md: operators can list them), in the order
    of their text; (None, None) last if some hands were opened before hands recorded them (empty columns)."""
    with connection.cursor() as cursor:
        cursor.execute(_RULES_RELEASES)
        return [(version or None, digest or None) for version, digest in cursor.fetchall()]


class RulesReleaseFilter(admin.SimpleListFilter):
    """The rules a hand was dealt under: every version and digest that ever dealt one (``rules_releases``)."""

    title = "rules (version, sha256)"
    parameter_name = "rules"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            (f"{version}:{digest}", f"{version} ({digest[:12]}…)")
            if version is not None and digest is not None
            else (UNKNOWN_RULES, "unknown (opened before hands recorded it)")
            for version, digest in rules_releases()
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value:
            return queryset
        if value == UNKNOWN_RULES:
            return queryset.filter(rules_version="")
        version, _, digest = value.partition(":")
        return queryset.filter(rules_version=version, rules_sha256=digest)


class RtpLimitsFilter(admin.SimpleListFilter):
    """House-banked tables whose card the casino's return-to-player limits refuse now (``tables.worth``)."""

    title = "return to player"
    parameter_name = "rtp"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("outside", "outside the limits")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() != "outside":
            return queryset
        from tables.worth import house_tables_outside_limits

        return queryset.filter(pk__in=list(house_tables_outside_limits()))
