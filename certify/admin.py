"""The game-output audits in the admin: read-only for staff (the auditor and operator roles may read them).

The list shows each stored audit (``manage.py game_audit`` writes them); an audit's page shows the laboratories'
rows (the same record the monthly CSV is written from: :func:`certify.services.lab_row`) and every figure behind
each flagged table."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from certify.models import AuditRun
from certify.monthly import COLUMNS
from kit.admin_lookups import ViewOnlyAdmin


def rows_table(report: dict[str, Any]) -> SafeString:
    """The lab rows as an HTML table (one row per table; FLAG where a figure is outside its interval)."""
    head = format_html_join("", "<th>{}</th>", ((c,) for c in COLUMNS))
    body = format_html_join(
        "",
        '<tr class="{}">{}</tr>',
        (
            (
                "flagged" if row["flag"] else "",
                format_html_join("", "<td>{}</td>", ((row[c] if row[c] is not None else "—",) for c in COLUMNS)),
            )
            for row in report.get("rows", [])
        ),
    )
    return format_html('<table class="audit-rows"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body)


def flagged_figures(report: dict[str, Any]) -> SafeString:
    """Every flagged figure: what was observed, the exact expectation, its interval and p-value."""
    items = [
        (table, f["name"], *(f"{f[k]:.6g}" for k in ("observed", "expected", "low", "high")), f["p"])
        for table, figures in report.get("figures", {}).items()
        for f in figures
        if f["flag"]
    ]
    if not items:
        return SafeString("<p>nothing outside its interval</p>")
    rows = format_html_join(
        "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td><td>{:.3g}</td></tr>", items
    )
    return format_html(
        '<table class="audit-flags"><thead><tr><th>table</th><th>figure</th><th>observed</th><th>expected</th>'
        "<th>interval</th><th>p-value</th></tr></thead><tbody>{}</tbody></table>",
        rows,
    )


@admin.register(AuditRun)
class AuditRunAdmin(ViewOnlyAdmin):
    """Stored audits, read-only (computed by ``manage.py game_audit``, never typed)."""

    list_display = ("__str__", "period_start", "period_end", "hands", "flagged", "started_at", "seconds")
    ordering = ("-started_at", "-id")
    readonly_fields = ("period_start", "period_end", "hands", "tables", "rule", "lab_rows", "flags", "started_at")
    fields = readonly_fields

    @admin.display(description="flagged tables")
    def flagged(self, run: AuditRun) -> str:
        return ", ".join(str(t) for t in run.flagged_tables) or "none"

    @admin.display(description="verdict rule")
    def rule(self, run: AuditRun) -> str:
        return f"{run.report.get('rule', '')} Threshold here: {run.report.get('threshold', 0):.3g}."

    @admin.display(description="laboratories' rows")
    def lab_rows(self, run: AuditRun) -> SafeString:
        return rows_table(run.report)

    @admin.display(description="flagged figures")
    def flags(self, run: AuditRun) -> SafeString:
        return flagged_figures(run.report)
