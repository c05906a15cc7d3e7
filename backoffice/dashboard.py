"""The operator's dashboard: the admin's home page (docs/operations.md).

Every figure comes from a read model or the ledger through an index, never by folding events:

| figure | from | index |
| --- | --- | --- |
| tables by phase | ``tables_table`` (lobby read model; one row per table) | (small table) |
| hands per hour, 30 days, by preset and bank | ``tables_hand.opened_at`` | ``hand_opened_at_idx`` (index-only) |
| house net per day, 30 days, by preset | ``banker_net`` of house-banked hands | ``hand_house_settled_idx`` |
| open disputes | ``tables_dispute`` | (small table) |
| chips | ``ledger_balance`` of the house accounts and the escrows | ``ledger_account.user_id IS NULL`` |
| timeouts per hour, 24 h | the first event of each timeout command | ``event_timeout_command_idx`` (partial) |
| verification failures | ``casino_verificationfailure`` | ``casino_verifyfail_at_idx`` |
| last reconciliation | ``casino_reconcilerun`` | ``casino_reconcile_at_idx`` |
| house tables outside the RTP limits | their ``TableCreated`` events, priced by ``tables.worth`` (cached) | event key |

Player wallets are not summed over every player's row: the trial balance is zero, so the wallets hold minus
everything else (the cage, the bankrolls, the fees and the escrows: one row per table at most).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Sum
from django.db.models.functions import TruncDay, TruncHour
from django.utils import timezone

from backoffice.charts import bar_chart, line_chart
from backoffice.models import ReconcileRun, VerificationFailure
from gamemath.enums import DisputeStatus
from ledger.models import Balance
from tables.event_queries import timeout_commands_by_hour
from tables.models import Dispute, Hand, Table
from tables.worth import house_tables_outside_limits

DAYS = 30
TIMEOUT_HOURS = 24
LATEST = 10


def series_name(preset: str, house_banked: bool) -> str:
    return f"{preset} · {'house' if house_banked else 'player'} bank"


@dataclass
class Chips:
    wallets: int
    escrow: int
    bankroll: int
    fees: int
    cage: int

    @property
    def issued(self) -> int:
        """Every chip the cage has handed out and not taken back (minus the cage's balance)."""
        return -self.cage

    @property
    def with_players(self) -> int:
        """Chips in the players' hands: their wallets and their stakes in play."""
        return self.wallets + self.escrow


@dataclass
class Dashboard:
    now: datetime
    since: datetime
    tables_by_phase: list[tuple[str, int]]
    hands_per_hour: dict[str, list[tuple[datetime, int]]]
    hands_total: dict[str, int]
    hands_in_play: int
    net_per_day: dict[str, list[tuple[datetime, int]]]
    net_total: dict[str, int]
    open_disputes: int
    latest_disputes: list[Dispute]
    chips: Chips
    timeouts_per_hour: list[tuple[datetime, int]]
    failures: list[VerificationFailure]
    failures_24h: int
    reconcile: ReconcileRun | None
    outside_rtp: int = 0  # house-banked tables the casino's return-to-player limits refuse now
    days: list[datetime] = field(default_factory=list)
    hours: list[datetime] = field(default_factory=list)

    @property
    def tables_total(self) -> int:
        return sum(n for _, n in self.tables_by_phase)

    @property
    def net_30_days(self) -> int:
        return sum(self.net_total.values())

    @property
    def net_today(self) -> int:
        today = self.days[-1] if self.days else None
        return sum(v for points in self.net_per_day.values() for at, v in points if at == today)


def _hours(start: datetime, count: int) -> list[datetime]:
    return [start + timedelta(hours=i) for i in range(count)]


def _chips() -> Chips:
    # every account but the players' (the house's and the tables' escrows: user_id IS NULL, through the unique
    # index on user_id), summed by kind
    totals = dict(Balance.objects.filter(account__user__isnull=True).values_list("kind").annotate(total=Sum("balance")))
    escrow, bankroll, cage, fees = (int(totals.get(kind, 0)) for kind in ("escrow", "bankroll", "cage", "fees"))
    return Chips(wallets=-(cage + bankroll + fees + escrow), escrow=escrow, bankroll=bankroll, fees=fees, cage=cage)


def build(now: datetime | None = None) -> Dashboard:
    """Every figure of the dashboard (about ten indexed statements)."""
    now = now or timezone.now()
    this_hour = now.replace(minute=0, second=0, microsecond=0)
    today = this_hour.replace(hour=0)
    days = [today - timedelta(days=DAYS - 1 - i) for i in range(DAYS)]
    since = days[0]
    hours = _hours(since, int((this_hour - since) / timedelta(hours=1)) + 1)

    phases = list(Table.objects.values_list("phase").annotate(n=Count("*")).order_by("phase"))

    per_hour: dict[str, dict[datetime, int]] = defaultdict(dict)
    rows = (
        Hand.objects.filter(opened_at__gte=since)
        .annotate(hour=TruncHour("opened_at"))
        .values_list("hour", "preset", "house_banked")
        .annotate(n=Count("*"))
    )
    for hour, preset, house_banked, n in rows:
        per_hour[series_name(preset, house_banked)][hour] = n
    hands_per_hour = {name: [(h, counts.get(h, 0)) for h in hours] for name, counts in sorted(per_hour.items())}

    per_day: dict[str, dict[datetime, int]] = defaultdict(dict)
    net_rows = (
        Hand.objects.filter(house_banked=True, settled_at__gte=since, banker_net__isnull=False)
        .annotate(day=TruncDay("settled_at"))
        .values_list("day", "preset")
        .annotate(net=Sum("banker_net"))
    )
    for day, preset, net in net_rows:
        per_day[series_name(preset, True)][day] = int(net)
    net_per_day = {name: [(d, nets.get(d, 0)) for d in days] for name, nets in sorted(per_day.items())}

    timeouts = timeout_commands_by_hour(since=this_hour - timedelta(hours=TIMEOUT_HOURS - 1))
    timeout_hours = _hours(this_hour - timedelta(hours=TIMEOUT_HOURS - 1), TIMEOUT_HOURS)

    return Dashboard(
        now=now,
        since=since,
        tables_by_phase=[(phase, n) for phase, n in phases],
        hands_per_hour=hands_per_hour,
        hands_total={name: sum(counts.values()) for name, counts in per_hour.items()},
        hands_in_play=Hand.objects.filter(status="in_play").count(),  # the partial index hand_in_play_idx
        net_per_day=net_per_day,
        net_total={name: sum(nets.values()) for name, nets in per_day.items()},
        open_disputes=Dispute.objects.filter(status=DisputeStatus.OPEN).count(),
        latest_disputes=list(
            Dispute.objects.filter(status=DisputeStatus.OPEN).select_related("user").order_by("-id")[:LATEST]
        ),
        chips=_chips(),
        timeouts_per_hour=[(h, timeouts.get(h, 0)) for h in timeout_hours],
        failures=list(VerificationFailure.objects.order_by("-at", "-id")[:LATEST]),
        failures_24h=VerificationFailure.objects.filter(at__gte=now - timedelta(hours=24)).count(),
        reconcile=ReconcileRun.objects.order_by("-at", "-id").first(),
        outside_rtp=len(house_tables_outside_limits()),
        days=days,
        hours=hours,
    )


def context(request: Any) -> dict[str, Any]:
    """The admin index's extra context: the dashboard and its charts, for staff who may read the game."""
    user = request.user
    if not (user.is_active and user.is_staff and user.has_perm("tables.view_hand")):
        return {}
    board = build()
    return {
        "dashboard": board,
        "hands_chart": line_chart(
            "chart-hands-per-hour",
            f"Hands opened per hour, last {DAYS} days, by preset and bank",
            board.hands_per_hour,
            board.since,
            board.now,
            unit="hands",
        ),
        "net_chart": bar_chart(
            "chart-house-net-per-day",
            f"The house's net per day (house-banked hands), last {DAYS} days, by preset",
            board.net_per_day,
            board.days,
            unit="chips",
        ),
        "timeouts_chart": bar_chart(
            "chart-timeouts-per-hour",
            f"Timeouts fired per hour, last {TIMEOUT_HOURS} hours",
            {"timeouts": board.timeouts_per_hour},
            [h for h, _ in board.timeouts_per_hour],
            unit="timeouts",
            tick_format="%H:%M",
        ),
    }
