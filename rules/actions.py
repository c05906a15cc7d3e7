"""The body of ``POST /tables/{id}/actions``: one schema, one ``msgspec.Struct`` per action with its bounds.

Each action's body is a tagged record (``action`` is the tag) that names exactly the arguments the action takes
(API.md "Actions"), with their bounds as ``Meta`` constraints, and builds its command (:meth:`ActionBody.command`).
The same records give the API its validation (:func:`action_body`), its refusals (``invalid_request`` naming the
field) and its OpenAPI schema (``tables.api.openapi``): nothing else checks an action body.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from gamemath.errors import InvalidRequest, invalid
from rules.commands import (
    Assign,
    Hit,
    HitFaceDown,
    PlaceBet,
    PlayerCommand,
    Raise,
    RetireBank,
    SetStake,
    SitIn,
    SitOut,
    Split,
    Stand,
)

Chips = Annotated[int, Meta(ge=1, le=10**12, description="Chips (bet, raise, ...).")]
HandIndex = Annotated[int, Meta(ge=0, le=15, description="Hand index (0 = first); default: the hand in turn.")]
Version = Annotated[int, Meta(ge=0, le=2**31 - 1, description="409 stale_version if the table moved on.")]


class ActionBody(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="action"):
    """An action (``action``), its arguments, and ``expected_version``, which every action accepts."""

    expected_version: Version | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        """The command this body asks for, sent by ``player_id``."""
        raise NotImplementedError


class BetBody(ActionBody, frozen=True, kw_only=True, tag="bet"):
    """Stake ``amount`` on the hand (exactly S under ``bank_fixed``)."""

    amount: Chips

    def command(self, player_id: str) -> PlayerCommand:
        return PlaceBet(player_id=player_id, amount=self.amount)


class HitBody(ActionBody, frozen=True, kw_only=True, tag="hit"):
    """A card face up."""

    hand: HandIndex | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        return Hit(player_id=player_id, hand=_given(self.hand))


class HitFaceDownBody(ActionBody, frozen=True, kw_only=True, tag="hit_face_down"):
    """``hidden_card_swap``: the hidden card turned up, a new card face down."""

    hand: HandIndex | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        return HitFaceDown(player_id=player_id, hand=_given(self.hand))


class StandBody(ActionBody, frozen=True, kw_only=True, tag="stand"):
    """Stand on the hand."""

    hand: HandIndex | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        return Stand(player_id=player_id, hand=_given(self.hand))


class RaiseBody(ActionBody, frozen=True, kw_only=True, tag="raise"):
    """``raise_on_draw``: add ``amount`` to the hand's stake."""

    amount: Chips
    hand: HandIndex | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        return Raise(player_id=player_id, amount=self.amount, hand=_given(self.hand))


class SplitBody(ActionBody, frozen=True, kw_only=True, tag="split"):
    """Split; ``amount`` is the new hand's stake (default: the least allowed)."""

    amount: Chips | UnsetType = UNSET
    hand: HandIndex | UnsetType = UNSET

    def command(self, player_id: str) -> PlayerCommand:
        return Split(player_id=player_id, amount=_given(self.amount), hand=_given(self.hand))


class AssignBody(ActionBody, frozen=True, kw_only=True, tag="assign"):
    """Hungarian split: give the card just drawn to ``hand`` (``target`` names it too, once)."""

    hand: HandIndex | UnsetType = UNSET
    target: HandIndex | UnsetType = UNSET

    def __post_init__(self) -> None:
        if self.hand is UNSET and self.target is UNSET:
            raise ValueError("field `hand` is required")
        if self.hand is not UNSET and self.target is not UNSET and self.hand != self.target:
            raise ValueError("field `target` names another hand than `hand`: give the hand to assign to once")

    def command(self, player_id: str) -> PlayerCommand:
        hand = self.hand if self.hand is not UNSET else self.target
        assert not isinstance(hand, UnsetType)  # __post_init__
        return Assign(player_id=player_id, hand=hand)


class SitOutBody(ActionBody, frozen=True, kw_only=True, tag="sit_out"):
    """Skip hands from the next one on."""

    def command(self, player_id: str) -> PlayerCommand:
        return SitOut(player_id=player_id)


class SitInBody(ActionBody, frozen=True, kw_only=True, tag="sit_in"):
    """Take part again."""

    def command(self, player_id: str) -> PlayerCommand:
        return SitIn(player_id=player_id)


class SetStakeBody(ActionBody, frozen=True, kw_only=True, tag="set_stake"):
    """Player banker under ``bank_fixed``: the stake S from the next hand on."""

    amount: Chips

    def command(self, player_id: str) -> PlayerCommand:
        return SetStake(player_id=player_id, amount=self.amount)


class RetireBankBody(ActionBody, frozen=True, kw_only=True, tag="retire_bank"):
    """Player banker, between hands: offer the bank on."""

    def command(self, player_id: str) -> PlayerCommand:
        return RetireBank(player_id=player_id)


ActionRequest = (
    BetBody
    | HitBody
    | HitFaceDownBody
    | StandBody
    | RaiseBody
    | SplitBody
    | AssignBody
    | SitOutBody
    | SitInBody
    | SetStakeBody
    | RetireBankBody
)
#: Every action a player sends to ``/actions``, by name (the bodies' tags), in the contract's order.
BODIES: dict[str, type[ActionBody]] = {kind.__struct_config__.tag: kind for kind in ActionRequest.__args__}
API_ACTIONS: tuple[str, ...] = tuple(BODIES)

_PATH = re.compile(r" - at `\$\.?([^`]*)`$")
_NAMED = re.compile(r"field `([^`]+)`")


def action_body(data: Any) -> ActionBody:
    """The action body ``data`` (decoded JSON) is, or ``invalid_request`` naming what is wrong with it."""
    action = data.get("action") if isinstance(data, dict) else None
    kind = BODIES.get(action) if isinstance(action, str) else None
    if isinstance(data, dict) and kind is not None:
        extra = sorted(set(data) - set(kind.__struct_fields__) - {"action"})
        if extra:
            raise invalid(extra[0], f"action {action} takes no {extra[0]}")
    try:
        body: ActionBody = msgspec.convert(data, ActionRequest)
    except msgspec.ValidationError as error:
        raise _refusal(str(error), action) from None
    return body


def command_for_action(action: str, player_id: str, args: Mapping[str, Any]) -> PlayerCommand:
    """The command of the action body ``{"action": action, **args}`` sent by ``player_id`` (:func:`action_body`)."""
    return action_body({**args, "action": action}).command(player_id)


def _refusal(message: str, action: Any) -> InvalidRequest:
    """msgspec's refusal as the contract's: the field it names (its path, or the field its sentence quotes)."""
    at = _PATH.search(message)
    path = at.group(1).split(".")[0] if at else ""
    text = message[: at.start()] if at else message
    named = _NAMED.search(text)
    field = path or (named.group(1) if named else "")
    if field == "action":
        return invalid("action", "action is required" if action is None else f"unknown action {action!r}")
    if not field:
        return invalid("non_field_errors", "the body must be a JSON object" if "`object`" in text else text)
    if text.startswith("Object missing required field"):
        return invalid(field, f"{field} is required")
    if path:
        return invalid(field, f"{field}: {text[0].lower()}{text[1:]}")
    return invalid(field, text)


def _given(value: int | UnsetType) -> int | None:
    return None if isinstance(value, UnsetType) else value
