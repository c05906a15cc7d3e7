"""The responsible-gaming page of each player in the admin: his limits (with what is used), pending raise
requests, exclusion, and the whole history of his account stream. Holders of ``responsible.lower_limits``
(the "operator" group) may lower a limit with a reason, through ``responsible.services.staff_lower_limit``:
never raise or remove one, never shorten an exclusion. Every change is an event of the player's stream (with
the operator and the reason) and a line of the admin's audit log."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from kit.admin_lookups import ViewOnlyAdmin
from kit.audit import log_action
from kit.serializers import MAX_CHIP_AMOUNT
from rules import DomainError

from . import services
from .clock import now_ms
from .errors import iso_ms
from .models import AccountEvent, GamingAccount
from .policy import Kind, Period
from .selectors import limits_overview

LOWER_PERMISSION = "responsible.lower_limits"
HISTORY = 200


class LowerLimitForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k.value, k.value) for k in Kind])
    period = forms.ChoiceField(
        choices=[("", "none (stake, session)")] + [(p.value, p.value) for p in Period], required=False
    )
    amount = forms.IntegerField(min_value=0, max_value=MAX_CHIP_AMOUNT, help_text="Chips, or minutes (session).")
    reason = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 2}), help_text="Required: why.")


@admin.register(GamingAccount)
class GamingAccountAdmin(ViewOnlyAdmin):
    list_display = ("user", "has_limits", "excluded_until", "version")
    list_filter = ("has_limits",)
    search_fields = ("user__username",)
    ordering = ("user__username",)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.lower)
        return [path("<path:object_id>/lower/", view, name="responsible_gamingaccount_lower"), *super().get_urls()]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        account = self._account(request, object_id)
        if account is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        return self._page(request, account, None)

    def _account(self, request: HttpRequest, object_id: str) -> GamingAccount | None:
        account = self.get_object(request, unquote(object_id))
        if account is not None and not self.has_view_permission(request, account):
            raise PermissionDenied
        return account

    def _page(self, request: HttpRequest, account: GamingAccount, bound: LowerLimitForm | None) -> HttpResponse:
        events = AccountEvent.objects.filter(user_id=account.user_id).select_related("actor").order_by("-version")
        history = [
            {"version": e.version, "type": e.type, "at": iso_ms(e.at_ms), "data": e.data, "actor": e.actor,
             "reason": e.reason}
            for e in events[:HISTORY]
        ]  # fmt: skip
        can_lower = request.user.has_perm(LOWER_PERMISSION)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Responsible gaming: {account.user.get_username()}",
            "account": account,
            "overview": limits_overview(account.user_id, now_ms=now_ms()),
            "history": history,
            "can_lower": can_lower,
            "form": (bound or LowerLimitForm()) if can_lower else None,
            "lower_url": reverse("admin:responsible_gamingaccount_lower", args=[account.pk]),
        }
        return TemplateResponse(request, "admin/responsible/gamingaccount/page.html", context)

    def lower(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST: lower one limit of the player, with a reason; anything else is refused on the page."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm(LOWER_PERMISSION):
            raise PermissionDenied
        account = self._account(request, object_id)
        if account is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        form = LowerLimitForm(request.POST)
        if not form.is_valid():
            return self._page(request, account, form)
        data = form.cleaned_data
        try:
            services.staff_lower_limit(
                operator=request.user,
                user=account.user_id,
                kind=data["kind"],
                period=data["period"] or None,
                amount=data["amount"],
                reason=data["reason"],
            )
        except DomainError as exc:
            form.add_error(None, exc.message)
            return self._page(request, account, form)
        period = f" per {data['period']}" if data["period"] else ""
        who = account.user.get_username()
        message = f"Lowered the {data['kind']} limit{period} of {who} to {data['amount']}: {data['reason']}"
        log_action(actor_id=request.user.pk, obj=account, action_flag=CHANGE, message=message)
        messages.success(request, message)
        return HttpResponseRedirect(reverse("admin:responsible_gamingaccount_change", args=[account.pk]))
