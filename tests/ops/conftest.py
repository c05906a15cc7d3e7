"""Fixtures of the operations tests: the admin tests' roles and the real headless browser."""

from tests.admin.conftest import (  # noqa: F401 - fixtures
    as_auditor,
    as_operator,
    as_superuser,
    auditor,
    make_staff,
    operator,
    roles,
    superuser,
)
from tests.admin.test_admin_browser import browser, page  # noqa: F401 - fixtures
from tests.timeouts.conftest import celery_env, queue  # noqa: F401 - fixtures
