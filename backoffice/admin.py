"""The casino's own admin pages: players with their balances and the cashier, and the audit log.

- Players (``casino.Player``, a proxy of the user model): balance, postings with running balance, hands and
  disputes; the cashier's deposit and withdrawal forms post through ``ledger.services`` (``deposit``,
  ``withdraw``) for holders of ``casino.use_cashier`` (the "operator" group). Nothing else of a player is
  edited here.
- The audit log: Django's ``LogEntry`` rows, read-only. Every operator action in the admin writes one.
- The home page is the operator's dashboard (``backoffice.dashboard``).
"""

from __future__ import annotations

import uuid
from typing import Any

from axes import admin as axes_admin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied
from django.db.models import IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from knox.models import AuthToken

from backoffice.dashboard import context
from backoffice.models import Player
from kit import audit
from kit.admin_lookups import DeclaredLookupsOnly, ViewOnlyAdmin
from kit.serializers import MAX_CHIP_AMOUNT
from ledger import services as ledger
from ledger.errors import LedgerError
from ledger.models import Account, Balance, PendingCredit
from responsible import credits
from responsible import services as responsible
from rules import DomainError
from tables.models import Dispute, HandParticipant

admin.site.site_header = "Seven and a Half: casino administration"
admin.site.site_title = "Seven and a Half admin"
admin.site.index_title = "Tables, hands, players and chips"
admin.site.site_url = "/play/"  # "View site": the player client (developer "client" serves it)
# The lists' columns need the width (tests/backoffice/test_admin_columns_browser.py: everything fits 1400 px); the home
# page and the breadcrumbs lead everywhere the sidebar did.
admin.site.enable_nav_sidebar = False
admin.site.unregister(User)  # registered again below, with the project's lookup rule
admin.site.unregister(Group)
if admin.site.is_registered(AuthToken):
    admin.site.unregister(AuthToken)  # API tokens: no page lists their digests (a password change revokes them)

_django_index = admin.site.index


def dashboard_index(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's home page: the operator's dashboard (backoffice/dashboard.py, templates/admin/index.html) above
    Django's list of models."""
    return _django_index(request, extra_context={**context(request), **(extra_context or {})})


admin.site.index = dashboard_index  # type: ignore[method-assign]

CASHIER_PERMISSION = "casino.use_cashier"
PLAYER_POSTINGS = 50
PLAYER_HANDS = 20


class CashierForm(forms.Form):
    """A deposit or a withdrawal. ``token`` (made when the form is drawn) becomes the ledger cause, so a form
    sent twice (double click, reload) posts once."""

    operation = forms.ChoiceField(choices=[("deposit", "deposit"), ("withdrawal", "withdrawal")])
    amount = forms.IntegerField(min_value=1, max_value=MAX_CHIP_AMOUNT, help_text="Chips (a whole number).")
    reference = forms.CharField(max_length=200, help_text="The cashier's reference (receipt, payment id).")
    token = forms.UUIDField(widget=forms.HiddenInput)

    def cause(self) -> str:
        return f"admin-cashier:{self.cleaned_data['token']}"


def cashier_forms(bound: CashierForm | None = None) -> dict[str, CashierForm]:
    """A deposit and a withdrawal form (``bound``: the one just sent, with its errors)."""
    out = {}
    for operation in ("deposit", "withdrawal"):
        if bound is not None and bound.data.get("operation") == operation:
            out[operation] = bound
        else:
            out[operation] = CashierForm(initial={"operation": operation, "token": uuid.uuid4()})
    return out


@admin.register(Player)
class PlayerAdmin(ViewOnlyAdmin):  # players register through the API
    """The players: every account that is not staff (operators, auditors and superusers are under Users)."""

    list_display = ("username", "balance", "is_active", "date_joined", "last_login")
    list_filter = ("is_active",)
    search_fields = ("username",)
    ordering = ("username",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Player]:
        balance = Balance.objects.filter(account__user_id=OuterRef("pk")).values("balance")[:1]
        return (
            super()
            .get_queryset(request)
            .filter(is_staff=False, is_superuser=False)
            .annotate(wallet_balance=Coalesce(Subquery(balance), Value(0), output_field=IntegerField()))
        )

    @admin.display(description="balance (chips)", ordering="wallet_balance")
    def balance(self, player: Player) -> int:
        return int(getattr(player, "wallet_balance", 0))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.cashier)
        cashier = path("<path:object_id>/cashier/", view, name="casino_player_cashier")
        return [cashier, *super().get_urls()]

    def _player(self, request: HttpRequest, object_id: str) -> Player | None:
        player = self.get_object(request, unquote(object_id))
        if player is not None and not self.has_view_permission(request, player):
            raise PermissionDenied
        return player

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        player = self._player(request, object_id)
        if player is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        return self._page(request, player, None)

    def _page(self, request: HttpRequest, player: Player, bound: CashierForm | None) -> HttpResponse:
        account = Account.objects.filter(user_id=player.pk).first()
        postings = list(ledger.account_postings(account)[:PLAYER_POSTINGS]) if account is not None else []
        entries = (
            HandParticipant.objects.filter(user_id=player.pk)
            .select_related("hand", "hand__table")
            .order_by("-hand_id")[:PLAYER_HANDS]
        )
        can_cashier = request.user.has_perm(CASHIER_PERMISSION)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Player {player.get_username()}",
            "player": player,
            "account": account,
            "balance": ledger.wallet_balance(player),
            "postings": postings,
            "all_postings_url": reverse("admin:ledger_posting_changelist") + f"?account__id__exact={account.pk}"
            if account is not None
            else None,
            "entries": entries,
            "disputes": Dispute.objects.filter(user_id=player.pk).order_by("-id")[:PLAYER_HANDS],
            "can_cashier": can_cashier,
            "cashier": cashier_forms(bound) if can_cashier else None,
            "cashier_url": reverse("admin:casino_player_cashier", args=[player.pk]),
        }
        return TemplateResponse(request, "admin/casino/player/player_page.html", context)

    def cashier(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST a deposit or a withdrawal through the ledger services; log it; back to the player's page."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm(CASHIER_PERMISSION):
            raise PermissionDenied
        player = self._player(request, object_id)
        if player is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        form = CashierForm(request.POST)
        if not form.is_valid():
            return self._page(request, player, form)
        operation = form.cleaned_data["operation"]
        if operation == "deposit" and credits.needs_second_operator(form.cleaned_data["amount"]):  # four eyes
            pending = credits.request_credit(
                user=player,
                amount=form.cleaned_data["amount"],
                reference=form.cleaned_data["reference"],
                operator=request.user,
                cause=form.cause(),
            )
            messages.info(request, f"Credit #{pending.pk} of {pending.amount} chips waits for a second operator.")
            return HttpResponseRedirect(reverse("admin:casino_player_change", args=[player.pk]))
        post = responsible.deposit if operation == "deposit" else ledger.withdraw  # deposits within the limits
        try:
            entry = post(
                user=player,
                amount=form.cleaned_data["amount"],
                reference=form.cleaned_data["reference"],
                operator=request.user,
                cause=form.cause(),
            )
        except (LedgerError, DomainError) as exc:
            form.add_error(None, exc.message)
            return self._page(request, player, form)
        message = audit.log_cashier_entry(
            actor_id=request.user.pk,
            entry=entry,
            operation=operation,
            username=player.get_username(),
            amount=form.cleaned_data["amount"],
            reference=form.cleaned_data["reference"],
            balance=ledger.wallet_balance(player),
            via="admin",
        )
        messages.success(request, message)
        return HttpResponseRedirect(reverse("admin:casino_player_change", args=[player.pk]))


@admin.register(PendingCredit)
class PendingCreditAdmin(ViewOnlyAdmin):
    """Four eyes (issue #43): the credits above ``CASHIER_SECOND_OPERATOR_ABOVE`` chips that one operator asked
    for; another operator with the cashier's permission approves (posts) or rejects them here."""

    list_display = ("id", "requested_at", "user", "amount", "reference", "requested_by", "status", "decided_by")
    list_filter = ("status",)
    ordering = ("-requested_at", "-id")
    list_select_related = ("user", "requested_by", "decided_by")
    actions = ("approve", "reject")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """The cashier's holders (who decide them) and whoever may view them."""
        return request.user.has_perm(CASHIER_PERMISSION) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_cashier_permission(self, request: HttpRequest) -> bool:
        """Who may approve or reject (the actions' ``permissions=["cashier"]``)."""
        return bool(request.user.has_perm(CASHIER_PERMISSION))

    def _decide(self, request: HttpRequest, queryset: QuerySet[PendingCredit], approve: bool) -> None:
        for pending in queryset.order_by("id"):
            try:
                if approve:
                    credits.approve_credit(pending_id=pending.pk, approver=request.user)
                else:
                    credits.reject_credit(pending_id=pending.pk, operator=request.user)
            except (credits.CreditRefused, LedgerError, DomainError) as exc:
                messages.error(request, str(getattr(exc, "message", exc)))
            else:
                messages.success(request, f"Credit #{pending.pk} {'approved' if approve else 'rejected'}.")

    @admin.action(description="Approve the selected credits (a second operator)", permissions=["cashier"])
    def approve(self, request: HttpRequest, queryset: QuerySet[PendingCredit]) -> None:
        self._decide(request, queryset, approve=True)

    @admin.action(description="Reject the selected credits", permissions=["cashier"])
    def reject(self, request: HttpRequest, queryset: QuerySet[PendingCredit]) -> None:
        self._decide(request, queryset, approve=False)


@admin.register(LogEntry)
class LogEntryAdmin(ViewOnlyAdmin):
    """The audit trail: who did what, when, to which object. Read-only for everybody."""

    list_display = ("action_time", "user", "action", "content_type", "object_link", "message")
    list_filter = ("action_flag", "content_type", ("user", admin.RelatedOnlyFieldListFilter))
    search_fields = ("object_repr", "change_message", "user__username")
    date_hierarchy = "action_time"
    ordering = ("-action_time",)
    list_select_related = ("user", "content_type")

    @admin.display(description="action", ordering="action_flag")
    def action(self, entry: LogEntry) -> str:
        return entry.get_action_flag_display()

    @admin.display(description="object")
    def object_link(self, entry: LogEntry) -> SafeString | str:
        url = entry.get_admin_url()
        return format_html('<a href="{}">{}</a>', url, entry.object_repr) if url else entry.object_repr

    @admin.display(description="what")
    def message(self, entry: LogEntry) -> str:
        return entry.get_change_message()


# --- Django's own users and groups, with the project's lookup rule ----------------------------------------------


@admin.register(User)
class StaffUserAdmin(ViewOnlyAdmin, UserAdmin):
    """Django's user pages, read only and filtering only on what they offer (``UserAdmin`` refuses ``password``
    lookups, but would answer any other undeclared one). Privileges, passwords and staff are the owner role's to
    change (``manage.py staff_account``): the web process's database role may not (issue #43)."""


@admin.register(Group)
class StaffGroupAdmin(ViewOnlyAdmin, GroupAdmin):
    """Django's group pages, read only (the groups' permissions are the migrations'), filtering only on what they
    offer."""


def password_change_by_the_owner(request: HttpRequest) -> HttpResponse:
    """``/admin/password_change/`` (before Django's view in casino/urls.py): a staff member's password is the
    owner role's to set (docs/security.md, separation of duties): the web process's role may not write it (issue
    #43), so Django's form would end in a refused UPDATE. A 403 that says so, and nothing written."""
    raise PermissionDenied("Staff passwords are set by the database owner, not in the admin.")


# --- sign-in lockouts (django-axes), with the project's lookup rule ----------------------------------------------
# An operator unlocks a locked sign-in by deleting its access attempt (accounts/login_lockout.py).

for _model in (AccessAttempt, AccessLog, AccessFailureLog):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)


@admin.register(AccessAttempt)
class LoginAttemptAdmin(DeclaredLookupsOnly, axes_admin.AccessAttemptAdmin):
    """Failed sign-ins per username and address; deleting one (operators) unlocks that pair, the action below
    unlocks the whole account (accounts/login_lockout.py). Both are written to the audit log."""

    actions = ["unlock_usernames"]

    @admin.action(description="Unlock sign-in for these usernames (every address)", permissions=["delete"])
    def unlock_usernames(self, request: HttpRequest, queryset: QuerySet[AccessAttempt]) -> None:
        usernames = sorted({u for u in queryset.values_list("username", flat=True) if u})
        attempts = AccessAttempt.objects.filter(username__in=usernames)
        LogEntry.objects.log_actions(
            user_id=request.user.pk, queryset=attempts, action_flag=DELETION, change_message="unlocked sign-in"
        )
        attempts.delete()
        self.message_user(request, f"Unlocked sign-in for {', '.join(usernames) or 'nobody'}.", messages.SUCCESS)


@admin.register(AccessLog)
class LoginLogAdmin(DeclaredLookupsOnly, axes_admin.AccessLogAdmin):
    """Sign-ins."""


@admin.register(AccessFailureLog)
class LoginFailureLogAdmin(DeclaredLookupsOnly, axes_admin.AccessFailureLogAdmin):
    """Failed sign-ins, one row each (when ``AXES_ENABLE_ACCESS_FAILURE_LOG`` is on)."""
