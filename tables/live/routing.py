"""WebSocket URLs of the ASGI application (``casino.asgi``)."""

from __future__ import annotations

from django.urls import re_path

from tables.live.consumers import TableEventsConsumer

websocket_urlpatterns = [
    re_path(r"^ws/v1/tables/(?P<table_id>[0-9]{1,18})/?$", TableEventsConsumer.as_asgi()),
]
