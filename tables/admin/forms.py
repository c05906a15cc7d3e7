"""Forms of the admin: create a table (validated exactly like ``POST /api/v1/tables``) and resolve a dispute."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from django import forms

from gamemath.ruleset import ENUM_TOGGLES, Rules
from kit.serializers import MAX_CHIP_AMOUNT
from ledger.accounts import BANKROLL, FEES
from rules import PRESETS
from tables.api.serializers import MAX_TABLE_BET, MAX_TIMEOUT_S, TableCreateInput
from tables.models import Dispute, Table
from tables.table_spec import TableSpec
from tables.worth import judge

RULE_PREFIX = "rule_"
PRESET_VALUE = ("", "— the preset's value —")
TABLE_FIELDS = (
    "name",
    "preset",
    "bank",
    "min_bet",
    "max_bet",
    "max_seats",
    "fixed_stake",
    "turn_timeout_s",
    "betting_timeout_s",
)


def _preset_values(toggle: str) -> str:
    return " · ".join(f"{name}: {getattr(rules, toggle)}" for name, rules in PRESETS.items())


def _toggle_field(toggle: str, kind: Any) -> forms.Field:
    help_text = f"Leave blank for the preset's value ({_preset_values(toggle)})."
    kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    if kind == "bool":
        return forms.TypedChoiceField(
            choices=[PRESET_VALUE, ("true", "yes"), ("false", "no")],
            coerce=lambda value: value == "true",
            empty_value=None,
            required=False,
            help_text=help_text,
        )
    if toggle in ENUM_TOGGLES:
        return forms.ChoiceField(
            choices=[PRESET_VALUE, *[(v, v) for v in ENUM_TOGGLES[toggle]]], required=False, help_text=help_text
        )
    if kind == "int":
        return forms.IntegerField(required=False, help_text=help_text)
    return forms.CharField(required=False, max_length=10, help_text=help_text + " 'none' or a card code such as 12O.")


RULE_TOGGLES: tuple[str, ...] = tuple(f.name for f in fields(Rules))


class TableCreateForm(forms.ModelForm):
    """A table body of API.md: preset, bank, limits, seats, fixed stake, timeouts and overrides of single
    toggles of the preset. ``clean`` runs the API's own input serializer (which runs the core's validation of
    the whole combination) and the casino's return-to-player limits (``tables.worth.judge``), so the form
    accepts exactly what ``POST /api/v1/tables`` accepts and names the same field when it refuses."""

    preset = forms.ChoiceField(choices=[(p, p) for p in PRESETS])
    bank = forms.ChoiceField(
        choices=[("player", "player: a seated player holds the bank"), ("house", "house: the casino banks")]
    )
    min_bet = forms.IntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_bet = forms.IntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_seats = forms.IntegerField(
        min_value=2, max_value=8, help_text="Every seated player, a player banker included (house bank: 2-7)."
    )
    fixed_stake = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_TABLE_BET, help_text="The stake S, only with stake_mode bank_fixed."
    )
    turn_timeout_s = forms.IntegerField(min_value=1, max_value=MAX_TIMEOUT_S, initial=30)
    betting_timeout_s = forms.IntegerField(min_value=1, max_value=MAX_TIMEOUT_S, initial=30)

    class Meta:
        model = Table
        fields = ("name",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for f in fields(Rules):
            self.fields[RULE_PREFIX + f.name] = _toggle_field(f.name, f.type)
        self.body: dict[str, Any] = {}  # the validated input, for the log line
        self.spec: TableSpec | None = None

    def overrides(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            toggle: data[RULE_PREFIX + toggle]
            for toggle in RULE_TOGGLES
            if data.get(RULE_PREFIX + toggle) not in (None, "")
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        body: dict[str, Any] = {name: data[name] for name in TABLE_FIELDS if data.get(name) is not None}
        body["name"] = data.get("name") or ""
        overrides = self.overrides()
        if overrides:
            body["rules"] = overrides
        serializer = TableCreateInput(data=body)
        if not serializer.is_valid():
            for field, problems in serializer.errors.items():
                if field == "rules" and isinstance(problems, dict):
                    for toggle, messages in problems.items():
                        target = RULE_PREFIX + toggle if RULE_PREFIX + toggle in self.fields else None
                        self.add_error(target, [str(m) for m in _flat(messages)])
                else:
                    self.add_error(field if field in self.fields else None, [str(m) for m in _flat(problems)])
            return data
        self.body = dict(serializer.validated_data)
        self.spec = TableSpec.from_data(self.body)
        # the casino's return-to-player limits, as tables.services.table_create will judge them (tables.worth)
        refusal = judge(self.spec.config())
        if refusal is not None:
            field = "max_bet" if refusal.max_bet_allowed is not None else None
            self.add_error(field, f"Refused (rules_refused, {refusal.reason}): {refusal.sentence()}.")
        return data


def _flat(problems: Any) -> list[Any]:
    if isinstance(problems, dict):
        return [m for value in problems.values() for m in _flat(value)]
    if isinstance(problems, list | tuple):
        return [m for value in problems for m in _flat(value)]
    return [problems]


class TableRenameForm(forms.ModelForm):
    """A table's rules are fixed by its first event: only its name (not part of any event) can change."""

    class Meta:
        model = Table
        fields = ("name",)


class DisputeResolveForm(forms.Form):
    """An operator's resolution of a dispute: a note and, when chips are owed, a compensating entry moving
    ``amount`` chips from one account to another (a new ledger transaction, never an edit)."""

    resolution = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), help_text="What was found and decided (required)."
    )
    amount = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_CHIP_AMOUNT,
        help_text="Chips owed. Leave blank when no chips are owed: then no ledger entry is made.",
    )
    credit = forms.ChoiceField(label="Pay to", help_text="The account that receives the chips.")
    debit = forms.ChoiceField(label="Paid from", help_text="The account the chips come from.")

    def __init__(self, *args: Any, dispute: Dispute, accounts: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(code, code) for code in [*accounts, BANKROLL, FEES]]
        self.fields["credit"].choices = choices
        self.fields["debit"].choices = choices
        self.fields["credit"].initial = f"player:{dispute.user.get_username()}"
        self.fields["debit"].initial = BANKROLL

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("amount") and data.get("credit") == data.get("debit"):
            self.add_error("debit", "The chips must come from another account than the one they are paid to.")
        return data

    def compensation(self) -> dict[str, int] | None:
        amount = self.cleaned_data.get("amount")
        if not amount:
            return None
        return {self.cleaned_data["credit"]: amount, self.cleaned_data["debit"]: -amount}
