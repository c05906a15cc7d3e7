"""The project's wiring: settings, URLs, the Celery app, the WSGI/ASGI entry points, gunicorn's configuration and
the database pool. No app lives here (docs/architecture.md, "Packages")."""

from casino.celery import app as celery_app

__all__ = ["celery_app"]
