"""``manage.py soak``: the soak under faults of bench/soak.py (issue 16, docs/reliability.md).

It never touches the database and Redis of this process's settings: the soak starts private ones of its own
(a fresh PostgreSQL cluster and a Redis on free ports) so that it may kill and restart them.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import soak


class Command(BaseCommand):
    help = (
        "Play the whole stack (gunicorn, Celery worker and beat) on private PostgreSQL and Redis while killing "
        "processes and restarting services; check every invariant afterwards. Exits 1 on any violation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        soak.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        keys = (
            "seconds",
            "faults",
            "seed",
            "bots_per_table",
            "web_workers",
            "threads",
            "pace",
            "idle",
            "keep",
            "database_url",
            "pgdata",
            "kinds",
            "presets",
        )
        namespace = argparse.Namespace(**{key: options[key] for key in (*keys, "json", "progress")})
        problem = soak.check_arguments(namespace)
        if problem:
            raise CommandError(problem)
        if soak.report(soak.soak(namespace), as_json=namespace.json):
            raise CommandError("the soak found violations", returncode=1)
