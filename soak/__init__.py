"""Soak under faults (issue 16, DESIGN.md principle 12): real load while processes die and services restart.

Starts the whole stack on PRIVATE services it may restart: PostgreSQL of its own (where it can run, three members
under Patroni in network namespaces, devtools/ha.py; else one ``initdb`` cluster in a temporary directory), and a
Redis of its own (``redis-server`` on a free port); never the machine's shared servers. On them: gunicorn (several
workers), a Celery worker, Celery beat (and the ASGI server when the Procfile names one). Bots sit at a table of
every preset with both bank modes and play over HTTP; every POST carries an ``Idempotency-Key`` and is retried with
the same key until it gets an answer.

Meanwhile a seeded fault injector, round-robin over the kinds in a shuffled order, repeatedly:
``kill -9`` a web worker; ``kill -9`` the Celery worker and starts it again later; kills beat and starts it
again; restarts Redis; ``pg_terminate_backend`` random backends of the app; drops client connections
mid-request; crashes PostgreSQL once per run; and, on the Patroni set, once per run kills the primary's machine and
once cuts the primary off the network (Patroni promotes the synchronous standby); and restores a backup to a
moment of the run (pgBackRest: soak/restore.py).

Afterwards (the run fails on any violation): every accepted action was applied exactly once and every refused
one not at all; every answer to a retried request equals the first answer (the stored one); no table stayed
past its deadline longer than the sweep interval plus grace (plus slack for a loaded machine) once the timer
services were back; every closed hand verifies (``verify_hands --all``); ``reconcile`` is clean; the read
models equal ``rebuild_projections``; no command was applied twice; no 5xx other than 503 with ``Retry-After``
while a service was down, and ``/healthz`` answered 503 exactly then.

The modules: ``cli`` (the options, ``python -m soak``), ``run`` (the run, step by step), ``stack`` (the casino's
processes on the private services of ``services``), ``seating`` (players and tables), ``bots`` and their HTTP
``client``, ``faults`` (the injector), ``monitors`` (health and the timers' watchdog), ``record`` (what happened),
``checks`` (the invariants), ``report`` (the summary), ``timing`` and ``log``.

Usage:
    python -m devtools.devenv bench -m soak --seconds 600 --faults 120 --seed 1
    python -m soak --seconds 60 --faults 14      # with DATABASE_URL / REDIS_URL of your own
    options: --json (a JSON summary on stdout), --keep (keep the temporary directory and its logs)
"""
