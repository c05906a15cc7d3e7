"""Account names and lazy creation.

An account is named by an :class:`AccountKey`: a wallet by its user id, an escrow by its table id, a house
account by its code. Accounts (and their balance rows, in the same statement) are created on first use, and
creation is safe under concurrency (``ON CONFLICT DO NOTHING``). Codes are those of API.md:
``player:<username>``, ``escrow:table:<table id>``, ``house:bankroll``, ``house:cage``, ``house:fees``, and (an
extension, docs/ledger.md) ``house:bankroll:table:<table id>``, the part of the house bankroll at one table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import DEFAULT_DB_ALIAS, connections

from ledger.errors import InvalidEntry, UnknownAccount
from ledger.models import Account, AccountKind

PLAYER_PREFIX = "player:"
ESCROW_PREFIX = "escrow:table:"
HOUSE_CODES: dict[str, AccountKind] = {
    "house:bankroll": AccountKind.BANKROLL,
    "house:cage": AccountKind.CAGE,
    "house:fees": AccountKind.FEES,
}
BANKROLL = "house:bankroll"
TABLE_BANKROLL_PREFIX = "house:bankroll:table:"  # the house's bankroll for one table, a sub-account of BANKROLL
CAGE = "house:cage"
FEES = "house:fees"

UserRef = AbstractBaseUser | int


def user_id_of(user: UserRef) -> int:
    """The primary key of a user given as a model instance or an id."""
    if isinstance(user, bool) or not isinstance(user, int | AbstractBaseUser):
        raise InvalidEntry(f"expected a user or a user id, got {user!r}")
    if isinstance(user, int):
        return user
    if user.pk is None:
        raise InvalidEntry("the user is not saved")
    return int(user.pk)


@dataclass(frozen=True, order=True)
class AccountKey:
    """Which account: ``("wallet", user_id)``, ``("escrow", table_id)`` or ``("house", code)``."""

    kind: str
    ref: int | str

    @staticmethod
    def wallet(user: UserRef) -> AccountKey:
        return AccountKey("wallet", user_id_of(user))

    @staticmethod
    def escrow(table_id: int) -> AccountKey:
        return AccountKey("escrow", check_int(table_id, "table_id"))

    @staticmethod
    def house(code: str) -> AccountKey:
        if code not in HOUSE_CODES and not is_table_bankroll(code):
            raise InvalidEntry(f"unknown house account {code!r}")
        return AccountKey("house", code)

    @staticmethod
    def table_bankroll(table_id: int) -> AccountKey:
        """The house's bankroll at one table (``house:bankroll:table:<id>``): what a house bank stakes and wins
        there. Part of the house bankroll: reports and reconcile add them all up with ``house:bankroll``."""
        return AccountKey("house", f"{TABLE_BANKROLL_PREFIX}{check_int(table_id, 'table_id')}")


def is_table_bankroll(code: str) -> bool:
    """Whether ``code`` names a table's house bankroll (``house:bankroll:table:<id>``)."""
    return code.startswith(TABLE_BANKROLL_PREFIX) and code.removeprefix(TABLE_BANKROLL_PREFIX).isdecimal()


def house_kind(code: str) -> AccountKind:
    """The kind of a house account code."""
    return AccountKind.BANKROLL if is_table_bankroll(code) else HOUSE_CODES[code]


@dataclass(frozen=True)
class LockedAccount:
    """An account whose balance row this transaction holds locked, with the balance read under the lock."""

    id: int
    kind: str
    code: str
    user_id: int | None
    table_id: int | None
    balance: int

    @property
    def key(self) -> AccountKey:
        if self.kind == AccountKind.WALLET:
            assert self.user_id is not None
            return AccountKey("wallet", self.user_id)
        if self.kind == AccountKind.ESCROW:
            assert self.table_id is not None
            return AccountKey("escrow", self.table_id)
        return AccountKey("house", self.code)


def check_int(value: object, name: str) -> int:
    """An integer (never a bool, a float or a string of digits)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEntry(f"{name} must be an integer, got {value!r}", {"field": name})
    return value


def key_for_code(code: str) -> AccountKey:
    """The key of an account code; a player code is resolved to the user (by username)."""
    if not isinstance(code, str):
        raise InvalidEntry(f"an account code is a string, got {code!r}")
    if code in HOUSE_CODES or is_table_bankroll(code):
        return AccountKey("house", code)
    if code.startswith(ESCROW_PREFIX):
        table = code.removeprefix(ESCROW_PREFIX)
        if not table.isdecimal():
            raise InvalidEntry(f"malformed escrow account code {code!r}")
        return AccountKey("escrow", int(table))
    if code.startswith(PLAYER_PREFIX):
        username = code.removeprefix(PLAYER_PREFIX)
        user_model = get_user_model()
        user_id = (
            user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username})
            .values_list("pk", flat=True)
            .first()
        )
        if user_id is None:
            raise UnknownAccount(f"no player {username!r}", {"account": code})
        return AccountKey("wallet", int(user_id))
    raise InvalidEntry(f"unknown account code {code!r}")


def create_missing(keys: Iterable[AccountKey], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Create the accounts (and their zero balance rows) of these keys that do not exist yet, in one
    statement. Concurrent creators do not conflict: the loser's insert does nothing."""
    connection = connections[using]
    keys = list(keys)
    user_ids = [int(k.ref) for k in keys if k.kind == "wallet"]
    table_ids = [int(k.ref) for k in keys if k.kind == "escrow"]
    house = [str(k.ref) for k in keys if k.kind == "house"]
    user_model = get_user_model()
    user_table = connection.ops.quote_name(user_model._meta.db_table)
    username_col = connection.ops.quote_name(user_model._meta.get_field(user_model.USERNAME_FIELD).column)
    pk_col = connection.ops.quote_name(user_model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH wanted (code, kind, user_id, table_id) AS (
                SELECT %s || u.{username_col}, 'wallet', u.{pk_col}, NULL::bigint
                  FROM {user_table} u WHERE u.{pk_col} = ANY(%s::bigint[])
                UNION ALL
                SELECT %s || t, 'escrow', NULL, t FROM unnest(%s::bigint[]) AS t
                UNION ALL
                SELECT h.code, h.kind, NULL, NULL FROM unnest(%s::text[], %s::text[]) AS h (code, kind)
            ), created AS (
                INSERT INTO ledger_account (code, kind, user_id, table_id)
                SELECT code, kind, user_id, table_id FROM wanted
                 ORDER BY code  -- one insertion order for every creator: they cannot wait on each other
                ON CONFLICT DO NOTHING
                RETURNING id, kind
            )
            INSERT INTO ledger_balance (account_id, kind, balance) SELECT id, kind, 0 FROM created
            """,
            [
                PLAYER_PREFIX,
                user_ids,
                ESCROW_PREFIX,
                table_ids,
                house,
                [str(house_kind(c)) for c in house],
            ],
        )


def lock_accounts(keys: Iterable[AccountKey], *, using: str = DEFAULT_DB_ALIAS) -> dict[AccountKey, LockedAccount]:
    """Lock the balance rows of these accounts, in ascending account id order (every writer does the same,
    so concurrent entries wait for each other instead of deadlocking), creating missing accounts first.
    Returns each account with its balance as of the lock."""
    wanted = set(keys)
    found = _select_for_update(wanted, using)
    if len(found) < len(wanted):
        create_missing(wanted - found.keys(), using=using)
        found = _select_for_update(wanted, using)
    missing = wanted - found.keys()
    if missing:
        raise UnknownAccount(
            "no such account: " + ", ".join(f"{k.kind} {k.ref}" for k in sorted(missing)),
            {"accounts": [f"{k.kind}:{k.ref}" for k in sorted(missing)]},
        )
    return found


def _select_for_update(keys: set[AccountKey], using: str) -> dict[AccountKey, LockedAccount]:
    user_ids = [int(k.ref) for k in keys if k.kind == "wallet"]
    table_ids = [int(k.ref) for k in keys if k.kind == "escrow"]
    codes = [str(k.ref) for k in keys if k.kind == "house"]
    with connections[using].cursor() as cursor:
        cursor.execute(
            """
            SELECT a.id, a.kind, a.code, a.user_id, a.table_id, b.balance
              FROM ledger_balance b JOIN ledger_account a ON a.id = b.account_id
             WHERE a.user_id = ANY(%s::bigint[]) OR a.table_id = ANY(%s::bigint[]) OR a.code = ANY(%s::text[])
             ORDER BY b.account_id
               FOR UPDATE OF b
            """,
            [user_ids, table_ids, codes],
        )
        rows = [LockedAccount(*row) for row in cursor.fetchall()]
    return {row.key: row for row in rows if row.key in keys}


def get_account(key: AccountKey) -> Account:
    """The account of a key, created if missing (no lock taken)."""
    account = _find(key)
    if account is None:
        create_missing([key])
        account = _find(key)
    if account is None:
        raise UnknownAccount(f"no such account: {key.kind} {key.ref}")
    return account


def _find(key: AccountKey) -> Account | None:
    if key.kind == "wallet":
        return Account.objects.filter(user_id=key.ref).first()
    if key.kind == "escrow":
        return Account.objects.filter(table_id=key.ref).first()
    return Account.objects.filter(code=key.ref).first()


def wallet_for(user: UserRef) -> Account:
    """The player's wallet account (``player:<username>``), created on first use."""
    return get_account(AccountKey.wallet(user))


def escrow_for(table_id: int) -> Account:
    """The escrow account of a table (``escrow:table:<id>``), created on first use."""
    return get_account(AccountKey.escrow(table_id))


def house_account(code: str) -> Account:
    """``house:bankroll``, ``house:cage`` or ``house:fees``, created on first use."""
    return get_account(AccountKey.house(code))
