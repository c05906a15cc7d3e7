"""Commands: what the shell asks the core to do (imperative names, frozen keyword-only ``msgspec.Struct``s).

The shell's data travels beside each command, as its :class:`Context` (``decide(command, state, context)``): the
clock (``now_ms``), every seated player's available wallet balance (``wallets``; chips already reserved are out
of the wallet), fresh OS entropy (``entropy``, 64 lowercase hex chars: the first-banker draw) and the seeds
(see docs/fairness.md):

- ``next_seeds``: freshly drawn server seeds, one for each hand this command may commit (``NextSeed.number``),
  each as its commitment, its sealed form (opaque to the core) and its plain text. The core uses one only if the
  command commits that hand's seed (table creation commits hands 1 and 2; hand N's opening commits hand N+2).
- ``seeds``: plain texts of seeds, unsealed by the shell (or revealed since, for a verifier re-running a recorded
  command). The core matches each to a commitment (of the table's pledges or of ``next_seeds``) and uses it only
  to deal and to reveal.

Plain seeds are secrets: the recorded form of a context (``rules.codec.context_to_json``) never holds one.
Commands recorded under contract v1.1 carry ``next_seed`` (one seed, committed at a hand's end) and ``seed``; they
re-run as they ran then. Without any of them (the pure core driven by tests or a simulation) the core commits to
seeds derived from ``entropy`` and keeps them in plain text (``plain:``), a form that only such a command accepts:
a command from the shell never deals from it. A command and its context, each as its codec writes it, are enough
to re-run ``decide``.

The API's action bodies, each with the command it asks for, are :mod:`rules.actions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field


class NextSeed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A server seed drawn for hand ``number`` (None: the next hand to be committed, contract v1.1):
    ``commitment`` = sha256 of it (hex), ``sealed`` its encrypted form (opaque to the core, stored in
    ``SeedCommitted``), ``seed`` its plain hex (never recorded)."""

    commitment: str
    sealed: str
    seed: str | None = None
    number: int | None = None


class Context(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Shell-supplied data of one command: clock, wallets, entropy and seeds.

    ``loss_room``: for players with a responsible-gaming loss limit, the most chips each may still put at risk
    (docs/responsible-gaming.md); a player not listed has no such limit. A stake whose reserve would pass it is
    refused with ``limit_reached``, and a banker is covered only as far as it reaches (so the bank passes).
    ``loss_ceiling`` (contract v1.3): for a player listed there, ``loss_room`` is his headroom under the limits
    with his periods' net results not clamped at zero, and ``loss_ceiling`` his lowest loss limit minus his chips
    at risk; his room is the smaller of the two, and a hand this command settles counts: what it pays him comes
    back to the headroom, his released reserve to the ceiling (so the next hand opens for him when the result
    allows it). A command recorded without it decides as it did then.
    """

    now_ms: int
    wallets: Mapping[str, int] = field(default_factory=dict)
    entropy: str = "0" * 64
    seed: str | None = None  # contract v1.1: the plain seed of the one pending commitment
    next_seed: NextSeed | None = None  # contract v1.1: the seed a hand's end commits for the next hand
    seeds: tuple[str, ...] = ()
    next_seeds: tuple[NextSeed, ...] = ()
    loss_room: Mapping[str, int] = field(default_factory=dict)
    loss_ceiling: Mapping[str, int] = field(default_factory=dict)

    @property
    def from_simulation(self) -> bool:
        """No seed offered by a shell: the pure core driven by the tests' and the simulator's own entry points, the
        only commands that commit to (and deal from) seeds kept in plain text."""
        return self.next_seed is None and not self.next_seeds

    @property
    def schedule_v11(self) -> bool:
        """A command recorded under contract v1.1 (one ``next_seed``, committed at a hand's end): it re-runs as it
        ran then."""
        return self.next_seed is not None and not self.next_seeds


class Command(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag=True):
    """Base of every command (its context travels beside it: ``decide(command, state, context)``)."""

    @property
    def actor(self) -> str | None:
        """The player id who sent the command, or None for the system."""
        return None


class PlayerCommand(Command, frozen=True, kw_only=True):
    """A command sent by a player."""

    player_id: str

    @property
    def actor(self) -> str | None:
        return self.player_id


class CreateTable(Command, frozen=True, kw_only=True):
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


class SitDown(PlayerCommand, frozen=True, kw_only=True):
    """Take a seat (the lowest free one when ``seat`` is None); ``client_seed`` defaults to the player id."""

    username: str
    seat: int | None = None
    client_seed: str | None = None


class LeaveSeat(PlayerCommand, frozen=True, kw_only=True):
    """Leave: at once between hands, else after the current hand."""


class SitOut(PlayerCommand, frozen=True, kw_only=True):
    """Skip hands from the next one on."""


class SitIn(PlayerCommand, frozen=True, kw_only=True):
    """Take part again (or, between hands, say "ready" so a waiting table tries to open a hand)."""


class SetClientSeed(PlayerCommand, frozen=True, kw_only=True):
    """Set the player's client seed (1-64 characters) for hands opened from now on."""

    client_seed: str


class PlaceBet(PlayerCommand, frozen=True, kw_only=True):
    """Bet ``amount`` chips (exactly S under ``bank_fixed``)."""

    amount: int


class Hit(PlayerCommand, frozen=True, kw_only=True):
    """A card face up (punter or player banker)."""

    hand: int | None = None


class HitFaceDown(PlayerCommand, frozen=True, kw_only=True):
    """Turn the hidden card up, then take a new card face down (``hidden_card_swap``)."""

    hand: int | None = None


class Stand(PlayerCommand, frozen=True, kw_only=True):
    """End the turn on a hand (or a player banker's turn)."""

    hand: int | None = None


class Raise(PlayerCommand, frozen=True, kw_only=True):
    """Add ``amount`` chips to the stake of the live hand (``raise_on_draw``)."""

    amount: int
    hand: int | None = None


class Split(PlayerCommand, frozen=True, kw_only=True):
    """Split (Spanish) or make a new hand (Hungarian) with stake ``amount`` (default: the least allowed)."""

    amount: int | None = None
    hand: int | None = None


class Assign(PlayerCommand, frozen=True, kw_only=True):
    """Hungarian: give the card just drawn to open hand ``hand``."""

    hand: int


class SetStake(PlayerCommand, frozen=True, kw_only=True):
    """Player banker under ``bank_fixed``: the stake S from the next hand on."""

    amount: int


class RetireBank(PlayerCommand, frozen=True, kw_only=True):
    """Player banker: offer the bank on (at once between hands, else after the current hand)."""


class Timeout(Command, frozen=True, kw_only=True):
    """System: the deadline of the wait at ``expected_version`` passed; a no-op if the table moved on."""

    expected_version: int


class ReleaseIdleSeat(Command, frozen=True, kw_only=True):
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
