"""The REST API v1 (spec/API.md): infrastructure (errors, idempotency, auth) and the endpoints."""
