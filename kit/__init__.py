"""The shared kit every app builds on, and which imports no app: the API's errors and their messages,
idempotency, pagination, parsers, permissions, the schema helpers, strict serializers, throttling, API tokens and
their authentication, the request log, the metrics registry, health probes and heartbeats, the progress of long
commands, the admin's guarded lookups and estimated counts, the audit log, database URLs, error reports."""
