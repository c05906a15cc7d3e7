"""Read-only admin views of the ledger: accounts with their balances, transactions with their postings, and
postings newest first with their running balance (``balance_after``). Nothing here can add, change or delete,
for anybody (superusers included): chips move only through ledger.services (a correction is a new entry; the
cashier and dispute forms of the casino and tables admin call the services).

Links to the game's pages (a hand, a table, a player, a dispute) are made by admin URL name only: the ledger
imports nothing from the game."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kit.admin_lookups import ViewOnlyAdmin
from kit.paginator import EstimatedCountAdminMixin
from ledger.models import Account, Posting, Transaction
from ledger.selectors import account_postings

ACCOUNT_PAGE_POSTINGS = 50


def _admin_link(url_name: str, object_id: object, text: str) -> SafeString | str:
    """A link to another app's admin page, or the plain text when that page is not installed."""
    try:
        url = reverse(url_name, args=[object_id])
    except NoReverseMatch:
        return text
    return format_html('<a href="{}">{}</a>', url, text)


def hand_link(transaction: Transaction) -> SafeString | str:
    if transaction.hand_id is None:
        return "—"
    return _admin_link("admin:tables_hand_change", transaction.hand_id, f"hand {transaction.hand_id}")


def dispute_link(transaction: Transaction) -> SafeString | str:
    dispute_id = (transaction.details or {}).get("dispute_id")
    if dispute_id is None:
        return "—"
    return _admin_link("admin:tables_dispute_change", dispute_id, f"dispute {dispute_id}")


class ReadOnlyAdmin(EstimatedCountAdminMixin, ViewOnlyAdmin):
    """No add, change or delete; estimated counts (kit/paginator.py): no count(*) over millions of postings."""


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "kind", "current_balance", "owner", "postings_link", "created_at")
    list_filter = ("kind",)
    search_fields = ("code",)
    ordering = ("id",)
    fields = ("code", "kind", "current_balance", "owner", "created_at", "recent_postings")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Account]:
        return super().get_queryset(request).select_related("balance")

    @admin.display(description="balance", ordering="balance__balance")
    def current_balance(self, account: Account) -> int:
        return account.balance.balance

    @admin.display(description="postings")
    def postings_link(self, account: Account) -> str:
        url = reverse("admin:ledger_posting_changelist") + f"?account__id__exact={account.pk}"
        return format_html('<a href="{}">running balance</a>', url)

    @admin.display(description="belongs to")
    def owner(self, account: Account) -> SafeString | str:
        if account.user_id is not None:
            return _admin_link("admin:casino_player_change", account.user_id, f"player {account.code[7:]}")
        if account.table_id is not None:
            return _admin_link("admin:tables_table_change", account.table_id, f"table {account.table_id}")
        return "the house"

    @admin.display(description=f"latest {ACCOUNT_PAGE_POSTINGS} postings (running balance)")
    def recent_postings(self, account: Account) -> SafeString:
        postings = list(account_postings(account)[:ACCOUNT_PAGE_POSTINGS])
        if not postings:
            return SafeString("no postings")
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class='num'>{}</td><td class='num'>{}</td><td>{}</td></tr>",
            (
                (
                    p.transaction.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                    _admin_link("admin:ledger_transaction_change", p.transaction_id, f"#{p.transaction_id}"),
                    p.transaction.kind,
                    f"{p.amount:+d}",
                    p.balance_after,
                    p.transaction.memo,
                )
                for p in postings
            ),
        )
        head = "<tr><th>at</th><th>transaction</th><th>kind</th><th>amount</th><th>balance after</th><th>memo</th></tr>"
        return format_html('<table class="ledger-postings">{}{}</table>', SafeString(head), rows)


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
    list_display = ("id", "created_at", "kind", "cause", "table_id", "hand", "dispute", "actor", "memo")
    list_filter = ("kind", "created_at")
    search_fields = ("=id", "cause", "memo", "actor__username")
    ordering = ("-id",)
    list_select_related = ("actor",)
    inlines = (PostingInline,)
    fields = ("id", "created_at", "kind", "cause", "memo", "actor", "table_id", "hand", "dispute", "details")
    readonly_fields = fields

    @admin.display(description="hand")
    def hand(self, transaction: Transaction) -> SafeString | str:
        return hand_link(transaction)

    @admin.display(description="dispute")
    def dispute(self, transaction: Transaction) -> SafeString | str:
        return dispute_link(transaction)


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("id", "at", "account", "amount", "balance_after", "transaction_link", "hand_id", "memo")
    list_filter = ("account__kind",)
    extra_lookups = ("account__id__exact",)  # an account's running balance: the link of the account pages
    search_fields = ("account__code",)
    ordering = ("-id",)
    list_select_related = ("account", "transaction")

    @admin.display(description="at")
    def at(self, posting: Posting) -> Any:
        return posting.transaction.created_at

    @admin.display(description="hand")
    def hand_id(self, posting: Posting) -> SafeString | str:
        return hand_link(posting.transaction)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # Filtered by one account: say whose running balance this is, and its balance now.
        account_id = request.GET.get("account__id__exact", "")
        if account_id.isdigit():
            account = Account.objects.filter(pk=int(account_id)).select_related("balance").first()
            if account is not None:
                title = f"Postings of {account.code}, newest first (balance now {account.balance.balance})"
                extra_context = {**(extra_context or {}), "title": title}
        return super().changelist_view(request, extra_context)

    @admin.display(description="memo")
    def memo(self, posting: Posting) -> str:
        return posting.transaction.memo

    @admin.display(description="transaction")
    def transaction_link(self, posting: Posting) -> str:
        url = reverse("admin:ledger_transaction_change", args=[posting.transaction_id])
        return format_html('<a href="{}">#{} {}</a>', url, posting.transaction_id, posting.transaction.kind)
