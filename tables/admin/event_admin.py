"""The event store in the Django admin, read-only for everybody, superusers included (the database refuses
UPDATE and DELETE anyway). What an event shows goes through ``tables.admin.present`` (the core's hiding rule).
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from kit.admin_lookups import ViewOnlyAdmin
from kit.paginator import EstimatedCountAdminMixin
from rules import DomainError, acted_by
from tables import loader
from tables.admin.filters import EventTypeFilter, StreamFilter
from tables.admin.present import visible_event_data
from tables.errors import TableMissing
from tables.models import Event
from tables.public_metadata import public_metadata
from tables.store import StoredEvent


@admin.register(Event)
class EventAdmin(EstimatedCountAdminMixin, ViewOnlyAdmin):
    """The event store, read-only. Data and metadata are shown through the hiding rule (a face-down card or
    the seed of a hand in play is hidden, the command's context never shown), never as stored. Estimated
    counts (kit/paginator.py); one table's events are read through ``UNIQUE (stream_id, version)``."""

    list_display = ("position", "table_id", "version", "type", "recorded_at", "who")
    list_filter = (StreamFilter, EventTypeFilter)
    ordering = ("-position",)
    list_per_page = 100
    fields = (
        "position",
        "table",
        "version",
        "type",
        "recorded_at",
        "who",
        "visible_data",
        "visible_metadata",
        "tx_id",
        "prev_hash",
        "hash",
    )
    readonly_fields = fields

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        # one table's events newest first, in the order of its (stream_id, version) index (the same order as
        # position within a stream); walking the position index backwards would skip every other table's rows
        if (request.GET.get(StreamFilter.parameter_name) or "").strip().isdigit():
            return ("-table", "-version")
        return ("-position",)

    @admin.display(description="who")
    def who(self, event: Event) -> str:
        try:
            decoded = loader.decode(_stored(event))
        except DomainError as error:  # a row the core cannot read: the list still shows it, and says so
            return f"(cannot be read: {error.message})"
        return acted_by(decoded, event.metadata or {}).label

    @admin.display(description="data (as an auditor may see it now)")
    def visible_data(self, event: Event) -> SafeString:
        try:
            state = loader.load_table(event.table_id).state
        except TableMissing:
            return SafeString("—")
        decoded = loader.decode(_stored(event))
        data = visible_event_data(decoded, state)
        return format_html("<pre>{}</pre>", json.dumps(data, indent=2, sort_keys=True))

    @admin.display(description="metadata (the command without its context)")
    def visible_metadata(self, event: Event) -> SafeString:
        shown = public_metadata(event.metadata or {})
        return format_html("<pre>{}</pre>", json.dumps(shown, indent=2, sort_keys=True))


def _stored(event: Event) -> StoredEvent:
    return StoredEvent(
        position=event.position,
        stream_id=event.table_id,
        version=event.version,
        type=event.type,
        data=event.data,
        metadata=event.metadata,
        recorded_at=event.recorded_at,
        prev_hash=event.prev_hash,
        hash=event.hash,
    )
