"""``/play/tables/{id}/``: the reference table page (one HTML file, plain JavaScript, no build step).

The page signs in with a token (or a username and password, which it trades for one), shows the table as the
REST API shows it to that viewer, offers the viewer's legal actions as buttons, and re-reads the table view
whenever the WebSocket brings events. It never decides what to show: every card comes from the server's view.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    config = {
        "table": table_id,
        "api": "/api/v1",
        "ws_base": settings.LIVE_WS_URL.rstrip("/"),  # empty: the page's host on LIVE_PORT
        "live_port": settings.LIVE_PORT,
    }
    return render(request, "play/table.html", {"table_id": table_id, "config": config})
