"""Disputes in the Django admin: players file them through the API; an operator resolves one with a note and,
when chips are owed, a compensating ledger entry (``tables.disputes.dispute_resolve``), never an edit. Both the
resolution and the entry write a ``LogEntry``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from gamemath.enums import DisputeStatus
from kit.admin_lookups import DeclaredLookupsOnly
from ledger.errors import LedgerError
from ledger.models import Transaction
from tables.admin.forms import DisputeResolveForm
from tables.admin.links import hand_url
from tables.admin.log import log_action
from tables.disputes import dispute_resolve
from tables.errors import DisputeAlreadyResolved
from tables.models import Dispute, HandParticipant


@admin.register(Dispute)
class DisputeAdmin(DeclaredLookupsOnly):
    list_display = ("id", "hand_link", "user", "created_at", "status", "resolved_by", "resolved_at", "correction")
    list_filter = ("status", "created_at")
    search_fields = ("=hand__id", "user__username")
    ordering = ("-id",)
    list_select_related = ("hand", "user", "resolved_by")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # players file disputes through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="hand", ordering="hand_id")
    def hand_link(self, dispute: Dispute) -> SafeString:
        return format_html(
            '<a href="{}">hand {} (table #{}, #{})</a>',
            hand_url(dispute.hand_id),
            dispute.hand_id,
            dispute.hand.table_id,
            dispute.hand.number,
        )

    @admin.display(description="compensating entry")
    def correction(self, dispute: Dispute) -> SafeString | str:
        if dispute.correction_transaction_id is None:
            return "—"
        url = reverse("admin:ledger_transaction_change", args=[dispute.correction_transaction_id])
        return format_html('<a href="{}">transaction {}</a>', url, dispute.correction_transaction_id)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        dispute = self.get_object(request, unquote(object_id))
        if dispute is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_permission(request, dispute):
            raise PermissionDenied
        can_resolve = dispute.status == DisputeStatus.OPEN and self.has_change_permission(request, dispute)
        accounts = _compensable_accounts(dispute)
        form = None
        if request.method == "POST":
            if not can_resolve:
                raise PermissionDenied
            form = DisputeResolveForm(request.POST, dispute=dispute, accounts=accounts)
            if form.is_valid():
                response = self._resolve(request, dispute, form)
                if response is not None:
                    return response
        elif can_resolve:
            form = DisputeResolveForm(dispute=dispute, accounts=accounts)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Dispute {dispute.pk} on hand {dispute.hand_id}",
            "dispute": dispute,
            "hand_url": hand_url(dispute.hand_id),
            "form": form,
            "can_resolve": can_resolve,
            "correction": _correction_entry(dispute),
        }
        return TemplateResponse(request, "admin/tables/dispute/dispute_page.html", context)

    def _resolve(self, request: HttpRequest, dispute: Dispute, form: DisputeResolveForm) -> HttpResponse | None:
        compensation = form.compensation()
        try:
            resolved = dispute_resolve(
                dispute_id=dispute.pk,
                operator=request.user,
                resolution=form.cleaned_data["resolution"],
                compensation=compensation,
            )
        except DisputeAlreadyResolved as exc:
            messages.error(request, str(exc))
            return HttpResponseRedirect(request.path)
        except LedgerError as exc:
            form.add_error(None, exc.message)
            return None
        if resolved.correction_transaction_id is not None:
            entry = Transaction.objects.get(pk=resolved.correction_transaction_id)
            log_action(
                request,
                entry,
                ADDITION,
                f"Compensating entry for dispute {resolved.pk} on hand {resolved.hand_id}: "
                + ", ".join(f"{code} {amount:+d}" for code, amount in (compensation or {}).items()),
            )
        paid = f"; compensation {compensation}" if compensation else "; no chips owed"
        log_action(request, resolved, CHANGE, f"Resolved dispute {resolved.pk}: {resolved.resolution}{paid}")
        messages.success(request, f"Dispute {resolved.pk} resolved.")
        return HttpResponseRedirect(request.path)


def _compensable_accounts(dispute: Dispute) -> list[str]:
    """The wallets a compensation may pay: the disputing player's first, then the hand's participants by seat."""
    accounts = [
        f"player:{p.user.get_username()}"
        for p in HandParticipant.objects.filter(hand_id=dispute.hand_id).select_related("user").order_by("seat")
    ]
    if f"player:{dispute.user.get_username()}" not in accounts:
        accounts.insert(0, f"player:{dispute.user.get_username()}")
    return accounts


def _correction_entry(dispute: Dispute) -> Transaction | None:
    """The compensating ledger entry of a resolved dispute, with its postings (None: no chips were owed)."""
    if dispute.correction_transaction_id is None:
        return None
    return (
        Transaction.objects.filter(pk=dispute.correction_transaction_id).prefetch_related("postings__account").first()
    )
