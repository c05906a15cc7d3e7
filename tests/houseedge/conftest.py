"""The admin tests' staff fixtures (tests/admin/conftest.py), for the lab's admin tests."""

from tests.admin.conftest import (  # noqa: F401 - fixtures
    as_auditor,
    as_operator,
    auditor,
    make_staff,
    operator,
    roles,
    superuser,
)
