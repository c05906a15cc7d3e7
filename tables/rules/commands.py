"""Commands: what the shell asks the core to do (imperative names, frozen dataclasses).

Every command carries a :class:`Context` with the data only the shell can supply: the clock
(``now_ms``), every seated player's available wallet balance (``wallets``; chips already reserved are out
of the wallet), fresh OS entropy (``entropy``, 64 lowercase hex chars: the first-banker draw) and the seeds
(see docs/fairness.md):

- ``next_seed``: a freshly drawn server seed for the next hand to be committed, as its commitment, its sealed
  form (opaque to the core) and its plain text. The core uses it only if the command commits a seed (table
  creation, the end of a hand).
- ``seed``: the plain text of the seed committed for the table's hand in play (or the next hand to open),
  unsealed by the shell. The core uses it only to deal and to reveal.

Both plain texts are secrets: :func:`without_secrets` is the form the shell records, and re-running a recorded
command puts back the seeds revealed since. Without ``next_seed`` (the pure core driven by tests or a
simulation) the core commits to ``entropy`` as the next seed and keeps it in plain text in the state.
A command serialised with :func:`tables.rules.codec.command_to_json` is enough to re-run ``decide``.

A little longer than the core's other modules: the catalogue of every command, with the mapping of API action
bodies to commands beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import invalid


@dataclass(frozen=True, slots=True, kw_only=True)
class NextSeed:
    """A server seed drawn for the next hand to be committed: ``commitment`` = sha256 of it (hex), ``sealed``
    its encrypted form (opaque to the core, stored in ``SeedCommitted``), ``seed`` its plain hex (never
    recorded)."""

    commitment: str
    sealed: str
    seed: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Shell-supplied data of one command: clock, wallets, entropy and seeds."""

    now_ms: int
    wallets: Mapping[str, int] = field(default_factory=dict)
    entropy: str = "0" * 64
    seed: str | None = None
    next_seed: NextSeed | None = None


def without_secrets(command: Command) -> Command:
    """``command`` as the shell records it: the plain texts of the seeds removed (commitments and sealed forms
    stay, so the recorded command re-runs once the seeds are revealed)."""
    ctx = command.ctx
    if ctx.seed is None and (ctx.next_seed is None or ctx.next_seed.seed is None):
        return command
    next_seed = None if ctx.next_seed is None else replace(ctx.next_seed, seed=None)
    return replace(command, ctx=replace(ctx, seed=None, next_seed=next_seed))


def with_seeds(command: Command, revealed: Mapping[str, str], pending: str | None) -> Command:
    """A recorded command with the seeds put back: ``revealed`` maps commitments to revealed seeds (hex);
    ``pending`` is the commitment of the seed that was pending when the command ran (None if none)."""
    ctx = command.ctx
    seed = revealed.get(pending) if pending is not None else None
    next_seed = ctx.next_seed
    if next_seed is not None:
        next_seed = replace(next_seed, seed=revealed.get(next_seed.commitment))
    return replace(command, ctx=replace(ctx, seed=seed, next_seed=next_seed))


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """Base of every command."""

    ctx: Context

    @property
    def actor(self) -> str | None:
        """The player id who sent the command, or None for the system."""
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCommand(Command):
    """A command sent by a player."""

    player_id: str

    @property
    def actor(self) -> str | None:
        return self.player_id


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTable(Command):
    """Create the table: the first command of every stream (validated; errors name the field)."""

    preset: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    min_bet: int = 1
    max_bet: int = 100
    max_seats: int = 8
    bank: str = "player"
    fixed_stake: int | None = None
    turn_timeout_s: int = 30
    betting_timeout_s: int = 30


@dataclass(frozen=True, slots=True, kw_only=True)
class SitDown(PlayerCommand):
    """Take a seat (the lowest free one when ``seat`` is None); ``client_seed`` defaults to the player id."""

    username: str
    seat: int | None = None
    client_seed: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveSeat(PlayerCommand):
    """Leave: at once between hands, else after the current hand."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SitOut(PlayerCommand):
    """Skip hands from the next one on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SitIn(PlayerCommand):
    """Take part again (or, between hands, say "ready" so a waiting table tries to open a hand)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SetClientSeed(PlayerCommand):
    """Set the player's client seed (1-64 characters) for hands opened from now on."""

    client_seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceBet(PlayerCommand):
    """Bet ``amount`` chips (exactly S under ``bank_fixed``)."""

    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit(PlayerCommand):
    """A card face up (punter or player banker)."""

    hand: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HitFaceDown(PlayerCommand):
    """Turn the hidden card up, then take a new card face down (``hidden_card_swap``)."""

    hand: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(PlayerCommand):
    """End the turn on a hand (or a player banker's turn)."""

    hand: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Raise(PlayerCommand):
    """Add ``amount`` chips to the stake of the live hand (``raise_on_draw``)."""

    amount: int
    hand: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Split(PlayerCommand):
    """Split (Spanish) or make a new hand (Hungarian) with stake ``amount`` (default: the least allowed)."""

    amount: int | None = None
    hand: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Assign(PlayerCommand):
    """Hungarian: give the card just drawn to open hand ``hand``."""

    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SetStake(PlayerCommand):
    """Player banker under ``bank_fixed``: the stake S from the next hand on."""

    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RetireBank(PlayerCommand):
    """Player banker: offer the bank on (at once between hands, else after the current hand)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeout(Command):
    """System: the deadline of the wait at ``expected_version`` passed; a no-op if the table moved on."""

    expected_version: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseIdleSeat(Command):
    """System: the seat of ``player_id`` took part in no hand for as long as the shell's setting allows (API.md
    v1.2 seats); it is released between his hands. The shell decides idleness (the core keeps no clock of seats);
    the command is recorded like any other, so a replay releases the same seat."""

    player_id: str


#: API action name -> command class (RULES.md / API.md names; sit_down and leave model the seat endpoints).
ACTION_COMMANDS: dict[str, type[PlayerCommand]] = {
    "sit_down": SitDown,
    "leave": LeaveSeat,
    "bet": PlaceBet,
    "hit": Hit,
    "hit_face_down": HitFaceDown,
    "stand": Stand,
    "raise": Raise,
    "split": Split,
    "assign": Assign,
    "sit_out": SitOut,
    "sit_in": SitIn,
    "set_stake": SetStake,
    "retire_bank": RetireBank,
}
ACTION_NAMES: tuple[str, ...] = tuple(ACTION_COMMANDS)


def _int_arg(args: Mapping[str, Any], name: str, *, required: bool) -> int | None:
    value = args.get(name)
    if value is None:
        if required:
            raise invalid(name, f"{name} is required")
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise invalid(name, f"{name} must be an integer")
    return value


def command_for_action(action: str, ctx: Context, player_id: str, args: Mapping[str, Any]) -> PlayerCommand:
    """Build the command for an API action body (``{action, amount?, hand?}``); unknown actions are refused."""
    allowed = {
        "bet": {"amount"},
        "hit": {"hand"},
        "hit_face_down": {"hand"},
        "stand": {"hand"},
        "raise": {"amount", "hand"},
        "split": {"amount", "hand"},
        "assign": {"hand"},
        "set_stake": {"amount"},
    }
    if action not in ACTION_COMMANDS or action in ("sit_down", "leave"):
        raise invalid("action", f"unknown action {action!r}")
    extra = set(args) - allowed.get(action, set())
    if extra:
        name = sorted(extra)[0]
        raise invalid(name, f"action {action} takes no {name}")
    if action == "bet":
        return PlaceBet(ctx=ctx, player_id=player_id, amount=_int_arg(args, "amount", required=True) or 0)
    if action == "hit":
        return Hit(ctx=ctx, player_id=player_id, hand=_int_arg(args, "hand", required=False))
    if action == "hit_face_down":
        return HitFaceDown(ctx=ctx, player_id=player_id, hand=_int_arg(args, "hand", required=False))
    if action == "stand":
        return Stand(ctx=ctx, player_id=player_id, hand=_int_arg(args, "hand", required=False))
    if action == "raise":
        amount = _int_arg(args, "amount", required=True) or 0
        return Raise(ctx=ctx, player_id=player_id, amount=amount, hand=_int_arg(args, "hand", required=False))
    if action == "split":
        return Split(
            ctx=ctx,
            player_id=player_id,
            amount=_int_arg(args, "amount", required=False),
            hand=_int_arg(args, "hand", required=False),
        )
    if action == "assign":
        return Assign(ctx=ctx, player_id=player_id, hand=_int_arg(args, "hand", required=True) or 0)
    if action == "set_stake":
        return SetStake(ctx=ctx, player_id=player_id, amount=_int_arg(args, "amount", required=True) or 0)
    if action == "sit_out":
        return SitOut(ctx=ctx, player_id=player_id)
    if action == "sit_in":
        return SitIn(ctx=ctx, player_id=player_id)
    return RetireBank(ctx=ctx, player_id=player_id)
