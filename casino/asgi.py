"""The ASGI application (``uvicorn casino.asgi:application``): Django for HTTP, Channels for WebSockets.

The ASGI process serves the live endpoints: ``/ws/v1/tables/{id}`` and the events long-poll
``GET /api/v1/tables/{id}/events?wait=S`` (an async view: a wait holds no thread). It runs the whole Django
application, so every other URL answers there too; the REST API's main server stays gunicorn (docs/architecture.md,
"Live updates").
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()  # set Django up before importing anything that uses models

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from kit.body_limit import limit_request_body  # noqa: E402
from tables.live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": limit_request_body(django_application),  # bodies over the limit: 413 before Django reads them
        "websocket": SessionMiddlewareStack(URLRouter(websocket_urlpatterns)),
    }
)
