"""Filters of the dashboard: chip amounts with thousands separators, and signed nets."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def chips(value: int) -> str:
    return f"{int(value):,}"


@register.filter
def signed(value: int) -> str:
    return f"{int(value):+,}" if value else "0"
