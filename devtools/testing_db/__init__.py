"""A test-only PostgreSQL backend: Django's flush between transactional tests empties every table, the
append-only ones included, as the owner role with the tables' triggers off for that transaction only
(devtools/testing_db/base.py). Production never uses this backend.
"""
