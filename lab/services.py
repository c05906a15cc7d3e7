"""The admin's house-edge figure: which simulation a table's rule set needs, asking for it, computing it."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from datetime import timedelta

from celery import current_app as celery_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from lab.models import COMPUTING, DONE, FAILED, HouseEdge
from lab.report import published_spec
from lab.runner import run
from lab.sim import ENGINE_VERSION, Spec
from rules import PRESETS, TableConfig

COMPUTE_HOUSE_EDGE = "lab.compute_house_edge"  # the task's name (lab.tasks.compute_house_edge): (key,)

log = logging.getLogger(__name__)


def table_spec(config: TableConfig) -> Spec:
    """The simulation of a table's rule set: the published table's (lab.report.published_spec: the same
    strategies, punters, rounds and seed as docs/house-edge.md, so a table with a published rule set shows the
    published figure). Stakes do not change an edge per unit staked, so only the rules and the bank count.
    ``HOUSE_EDGE_HANDS`` (0: the published size) makes it smaller for the tests."""
    preset = PRESETS[config.preset].to_dict()
    overrides = {k: v for k, v in config.rules.to_dict().items() if preset[k] != v}
    return published_spec(config.preset, overrides, config.bank, hands=settings.HOUSE_EDGE_HANDS)


def spec_key(config: TableConfig, spec: Spec) -> str:
    """One key per rule set: the resolved toggles (whatever preset they came from), bank, strategies, size."""
    data = {
        "rules": config.rules.to_dict(),
        "bank": spec.bank,
        "punters": spec.seats,
        "punter": spec.punter,
        "banker": spec.banker if spec.bank == "player" else None,
        "hands": spec.hands,
        "seed": spec.seed,
        "chunk": spec.chunk,
        "engine": ENGINE_VERSION,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def house_edge_key(config: TableConfig) -> str:
    """The key of the row holding this table card's figure (its rule set and bank: the limits do not count)."""
    return spec_key(config, table_spec(config))


def request_house_edge(config: TableConfig) -> HouseEdge:
    """The figure of this rule set; the first request (or one left computing too long) enqueues the task."""
    return next(iter(request_house_edges([config]).values()))


def request_house_edges(configs: Iterable[TableConfig]) -> dict[str, HouseEdge]:
    """The figures of these rule sets by key, read together; a rule set asked for the first time (or one left
    computing too long) is created and its task enqueued after commit."""
    specs = {}
    for config in configs:
        spec = table_spec(config)
        specs.setdefault(spec_key(config, spec), (config, spec))
    rows = {row.key: row for row in HouseEdge.objects.filter(key__in=list(specs))}
    now = timezone.now()
    stale = now - timedelta(seconds=settings.HOUSE_EDGE_RETRY_S)
    for key, (config, spec) in specs.items():
        row = rows.get(key)
        if row is None:
            row, created = HouseEdge.objects.get_or_create(
                key=key,
                defaults={
                    "preset": config.preset,
                    "bank": config.bank,
                    "rules": config.rules.to_dict(),
                    "spec": spec.to_json(),
                    "requested_at": now,
                },
            )
            rows[key] = row
        else:
            created = False
            if row.status == COMPUTING and row.requested_at < stale:
                # the task was lost (a worker died, Redis restarted): ask again, once per retry period
                created = (
                    HouseEdge.objects.filter(pk=row.pk, status=COMPUTING, requested_at__lt=stale).update(
                        requested_at=now
                    )
                    == 1
                )
        if created and settings.HOUSE_EDGE_TASKS:
            _enqueue(key)
    return rows


def _enqueue(key: str) -> None:
    transaction.on_commit(lambda: celery_app.send_task(COMPUTE_HOUSE_EDGE, args=[key], queue=settings.HOUSE_EDGE_QUEUE))


def compute(key: str) -> None:
    """Run the simulation of ``key`` (on one core: a worker's children may not fork) and store the figure."""
    row = HouseEdge.objects.filter(key=key).first()
    if row is None or row.status == DONE:
        return
    data = row.spec
    spec = Spec(
        preset=data["preset"],
        overrides=data["overrides"],
        bank=data["bank"],
        punters=data["punters"],
        punter=data["punter"],
        banker=data["banker"],
        hands=data["hands"],
        seed=data["seed"],
        chunk=data["chunk"],
    )
    try:
        result = run(spec, processes=1)
    except Exception as error:  # a rule set the simulator cannot play is shown as failed, never retried blindly
        log.exception("house edge %s failed", key)
        HouseEdge.objects.filter(pk=row.pk).update(status=FAILED, error=f"{type(error).__name__}: {error}")
        return
    HouseEdge.objects.filter(pk=row.pk).update(
        status=DONE,
        edge=result.edge,
        half_width=result.half_width,
        rounds=result.tally.rounds,
        result=result.to_json(),
        error="",
        computed_at=timezone.now(),
    )
