"""Read-only admin views of the ledger: accounts with their balances, transactions with their postings, and
postings newest first with their running balance (``balance_after``). Nothing here can add, change or delete:
chips move only through ledger.services (a correction is a new entry)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from ledger.models import Account, Posting, Transaction


class ReadOnlyAdmin(admin.ModelAdmin):
    show_full_result_count = False  # no count(*) over millions of postings

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "kind", "current_balance", "postings_link", "created_at")
    list_filter = ("kind",)
    search_fields = ("code",)
    ordering = ("id",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Account]:
        return super().get_queryset(request).select_related("balance")

    @admin.display(description="balance", ordering="balance__balance")
    def current_balance(self, account: Account) -> int:
        return account.balance.balance

    @admin.display(description="postings")
    def postings_link(self, account: Account) -> str:
        url = reverse("admin:ledger_posting_changelist") + f"?account__id__exact={account.pk}"
        return format_html('<a href="{}">running balance</a>', url)


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ("account", "amount", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("id",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "cause", "table_id", "hand_id", "actor", "memo")
    list_filter = ("kind",)
    search_fields = ("cause", "memo")
    ordering = ("-id",)
    list_select_related = ("actor",)
    inlines = (PostingInline,)


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("id", "at", "account", "amount", "balance_after", "transaction_link", "hand_id", "memo")
    list_filter = ("account__kind",)
    search_fields = ("account__code",)
    ordering = ("-id",)
    list_select_related = ("account", "transaction")

    @admin.display(description="at")
    def at(self, posting: Posting) -> Any:
        return posting.transaction.created_at

    @admin.display(description="hand")
    def hand_id(self, posting: Posting) -> int | None:
        return posting.transaction.hand_id

    @admin.display(description="memo")
    def memo(self, posting: Posting) -> str:
        return posting.transaction.memo

    @admin.display(description="transaction")
    def transaction_link(self, posting: Posting) -> str:
        url = reverse("admin:ledger_transaction_change", args=[posting.transaction_id])
        return format_html('<a href="{}">#{} {}</a>', url, posting.transaction_id, posting.transaction.kind)
