"""Drive real tables through the services with random legal play (shared by the store, API and bench)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from ledger import selectors as ledger_selectors
from ledger import services as ledger
from rules import DomainError, TableState, legal_actions
from tables import loader, services
from tables.models import Table
from tables.table_spec import TableSpec
from tests.support.staff import staff_user

PRESET_TABLES: dict[str, dict[str, object]] = {
    "classic": {"preset": "classic", "min_bet": 5, "max_bet": 50},
    "italian": {"preset": "italian", "min_bet": 5, "max_bet": 50},
    "spanish": {"preset": "spanish", "min_bet": 5, "max_bet": 50},
    "hungarian": {"preset": "hungarian", "min_bet": 10, "max_bet": 10, "fixed_stake": 10},
}
GAME_ACTIONS = ("bet", "hit", "hit_face_down", "stand", "raise", "split", "assign")


def make_players(n: int, *, chips: int = 5000, prefix: str = "p") -> list[AbstractBaseUser]:
    User = get_user_model()
    operator = staff_user(f"{prefix}-cashier", "operator", password="x" * 12)
    players = []
    for i in range(n):
        user = User.objects.create_user(username=f"{prefix}{i}-{random.randrange(10**9)}", password="x" * 12)
        if chips:
            ledger.deposit(user=user, amount=chips, reference="test", operator=operator, cause=f"test-dep:{user.pk}")
        players.append(user)
    return players


def make_table(preset: str, *, bank: str = "player", max_seats: int | None = None, **extra: object) -> Table:
    spec = {**PRESET_TABLES[preset], **extra}
    return services.table_create(
        operator=None,
        name=f"{preset} {bank}",
        spec=TableSpec.from_data({**spec, "max_seats": max_seats or (8 if bank == "player" else 7), "bank": bank}),
    )


def state_of(table_id: int) -> TableState:
    return loader.load_table(table_id).state


def _args(action: str, state: TableState, rng: random.Random) -> list[dict[str, object]]:
    config = state.config
    assert config is not None
    if action == "bet":
        if state.stake is not None and config.rules.stake_mode == "bank_fixed":
            return [{"amount": state.stake}]
        return [{"amount": rng.randint(config.min_bet, config.max_bet)}, {"amount": config.min_bet}]
    if action == "raise":
        return [{"amount": config.min_bet}, {"amount": 1}]
    if action == "split":
        return [{}]
    if action == "assign":
        return [{"hand": i} for i in rng.sample(range(4), 4)]
    return [{}]


def step(table: Table, players: Sequence[AbstractBaseUser], rng: random.Random, prefer: str | None = None) -> bool:
    """Make one random legal move at the table (or fire its timeout when nobody can move); False if stuck.
    ``prefer`` names an action tried first whenever it is legal (to make a rare move, such as a split, common)."""
    state = state_of(table.pk)
    by_id = {str(p.pk): p for p in players}
    wallets = {str(k): v for k, v in ledger_selectors.wallet_balances([p.pk for p in players]).items()}
    options: list[tuple[AbstractBaseUser, str]] = []
    for seat in state.seats:
        if seat.player_id in by_id:
            for action in legal_actions(state, seat.player_id, wallets):
                if action in GAME_ACTIONS:
                    options.append((by_id[seat.player_id], action))
    rng.shuffle(options)
    options.sort(key=lambda option: option[1] != prefer)  # stable: the preferred action first, else as shuffled
    for user, action in options:
        if action == "hit" and rng.random() < 0.4 and any(a == "stand" for u, a in options if u == user):
            continue  # stand more often than never
        for args in _args(action, state, rng):
            try:
                services.table_act(table_id=table.pk, user=user, action=action, args=args)
                return True
            except DomainError:
                continue
    if state.awaiting is not None:
        # the player did nothing until the deadline: play the clock forward to it
        deadline = state.awaiting.deadline_ms
        return services.table_timeout(table_id=table.pk, version=state.version, now_ms=deadline) > 0
    return False


def play_hands(
    table: Table, players: Sequence[AbstractBaseUser], hands: int, rng: random.Random, max_steps: int = 2000
) -> TableState:
    """Seat the players (if not seated) and play until ``hands`` more hands are settled."""
    state = state_of(table.pk)
    for user in players:
        if state.seat_of(str(user.pk)) is None:
            services.table_sit(table_id=table.pk, user=user)
    target = state_of(table.pk).settled_through + hands
    for _ in range(max_steps):
        state = state_of(table.pk)
        if state.settled_through >= target:
            return state
        if not step(table, players, rng):
            raise AssertionError(f"table {table.pk} is stuck at version {state.version}: {state.phase}")
    raise AssertionError(f"table {table.pk} did not finish {hands} hands in {max_steps} steps")
