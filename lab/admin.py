"""The lab in the admin: the list of every simulated rule set (read-only for everybody). A table's page shows
the figure as ``tables.worth`` makes it (the return to player; a player bank's is this simulation's)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html
from django.utils.safestring import SafeString

from kit.admin_lookups import ViewOnlyAdmin
from lab.models import DONE, FAILED, HouseEdge


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def describe(row: HouseEdge) -> SafeString:
    """The figure as the admin shows it: edge ± half-width with the interval, or "computing"/"failed"."""
    if row.status == DONE and row.edge is not None and row.half_width is not None:
        result = row.result or {}
        return format_html(
            '<span class="house-edge" data-status="done"><strong>{}</strong> ± {} (95% interval {} to {})</span>'
            '<div class="help">bank\'s net per unit staked over {} simulated rounds, seed {}; {} punter(s): {}; '
            "banker: {} (the computation of docs/house-edge.md)</div>",
            _pct(row.edge),
            _pct(row.half_width),
            _pct(row.edge - row.half_width),
            _pct(row.edge + row.half_width),
            f"{row.rounds:,}",
            row.spec.get("seed", "?"),
            row.spec.get("punters", "?"),
            result.get("punter_strategy", "?"),
            result.get("banker_strategy", "?"),
        )
    if row.status == FAILED:
        return format_html('<span class="house-edge" data-status="failed">could not be computed: {}</span>', row.error)
    return SafeString('<span class="house-edge" data-status="computing">computing… (reload in a minute)</span>')


@admin.register(HouseEdge)
class HouseEdgeAdmin(ViewOnlyAdmin):
    """Every rule set whose edge was asked for: read-only (the figures are computed, never typed)."""

    list_display = ("preset", "bank", "status", "edge_pct", "interval", "rounds", "computed_at")
    list_filter = ("status", "bank", "preset")
    search_fields = ("=key", "preset")
    ordering = ("preset", "bank", "id")
    readonly_fields = (
        "key",
        "preset",
        "bank",
        "status",
        "figure",
        "rounds",
        "rules",
        "spec",
        "error",
        "requested_at",
        "computed_at",
    )
    fields = readonly_fields

    @admin.display(description="edge", ordering="edge")
    def edge_pct(self, row: HouseEdge) -> str:
        return _pct(row.edge) if row.edge is not None else "—"

    @admin.display(description="95% interval")
    def interval(self, row: HouseEdge) -> str:
        if row.edge is None or row.half_width is None:
            return "—"
        return f"{_pct(row.edge - row.half_width)} to {_pct(row.edge + row.half_width)}"

    @admin.display(description="house edge")
    def figure(self, row: HouseEdge) -> SafeString:
        return describe(row)
