"""A test-only PostgreSQL backend: Django's test flush may TRUNCATE the append-only tables.

The event and ledger tables refuse TRUNCATE through triggers. Between transactional tests Django empties every
table with TRUNCATE; this backend runs that flush with ``session_replication_role = replica`` (which needs a
superuser, as the test database owner is) so the triggers stay in force for everything the tests do.
Production never uses this backend.
"""
