"""Test settings: the real PostgreSQL and Redis of DATABASE_URL / REDIS_URL (set by `make test`)."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
# The tests of the rules core and the game's maths need no service (`pytest tests/rules tests/gamemath`): without
# DATABASE_URL / REDIS_URL the settings name addresses where nothing listens, so a test that does ask for the
# database fails saying it cannot connect. `make test` always passes real ones.
os.environ.setdefault("DATABASE_URL", "postgres://nobody@127.0.0.1:9/no_database_url_given")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:9/0")
if not any(os.environ.get(name) for name in ("SEED_SEALING_KEYS", "SEED_SEALING_KEY_FILE")):
    from devtools.devkeys import ensure_dev_keys

    for _name, _value in ensure_dev_keys().items():  # .local/keys, as `make test` passes them
        os.environ.setdefault(_name, _value)

# The parallel suite (pytest-xdist, devtools/devenv.py): each worker has a database of its own (pytest-django's
# ``_gw<n>`` suffix) and its own Redis keys and channels on the shared Redis database. The processes a test starts
# inherit the prefix through the environment.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("REDIS_KEY_PREFIX", f"test.{os.environ['PYTEST_XDIST_WORKER']}.")

from casino.settings import *  # noqa: F403
from casino.settings import DATABASE_APP_ROLE, DATABASE_CASHIER_ROLE, DATABASES
from kit import dburl

DEBUG = False
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
# One plain connection per thread in tests: the pool does not mix with test-database creation, and the
# concurrency tests open their own connections from threads.
DATABASES["default"].get("OPTIONS", {}).pop("pool", None)
DATABASES["default"]["CONN_MAX_AGE"] = 0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Django's flush between transactional tests empties the append-only tables as the owner role (casino/testing_db).
DATABASES["default"]["ENGINE"] = "devtools.testing_db"
# The cashier's writes (ledger/cashier_role.py) share the test's transaction: the tests log in as the suite's own role
# (TESTS_DATABASE_URL, made by `make test`: a member of the application's and the cashier's roles), which becomes the
# application's role on connecting (devtools/testing_db) and the cashier's for a cashier entry; no "cashier" alias.
DATABASES.pop("cashier", None)
DATABASE_TESTS_ROLE = ""
if os.environ.get("TESTS_DATABASE_URL") and DATABASE_CASHIER_ROLE and DATABASE_APP_ROLE.endswith("_app"):
    _tests = dburl.parse(os.environ["TESTS_DATABASE_URL"])
    DATABASES["default"].update(USER=_tests["USER"], PASSWORD=_tests["PASSWORD"])
    DATABASE_TESTS_ROLE = str(_tests["USER"])
    DATABASE_CASHIER_SET_ROLE = (DATABASE_CASHIER_ROLE, DATABASE_APP_ROLE)
# ... and its `flush` command skips post_migrate while the content types and permissions it keeps are all there
INSTALLED_APPS = ["devtools.testing_db", *INSTALLED_APPS]  # noqa: F405
# Throttling is exercised by its own tests (they set their rates); the rest of the suite must not trip it.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {  # noqa: F405
    scope: None for scope in ("auth_burst", "auth_sustained", "user_burst", "user_sustained")
}
TABLE_TIMERS = env_bool("TABLE_TIMERS", False)  # noqa: F405 - timer tests turn them on (and their worker)
# the test clients and servers speak plain HTTP (tests/casino/test_deploy_check.py checks it on; the edge proxy's
# test of a TLS balancer turns it on in its server)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)  # noqa: F405
# The casino's limits on what a table returns (tables/worth.py) would refuse most house-banked tables the suite plays
# at (classic, house standing at 5: flat 0.827 < MIN_RTP 0.85; Italian and Spanish bet after the peek at 1:10).
# Those tests are about other things, so the suite runs with the limits open; the guard's own tests
# (tests/tables/api/test_api_rtp.py and the surfaces' tests) set the production limits, and the environment
# (MIN_RTP, MAX_RTP) sets others for a whole run.
MIN_RTP = os.environ.get("MIN_RTP", "0")
MAX_RTP = os.environ.get("MAX_RTP", "1000")
HOUSE_EDGE_TASKS = env_bool("HOUSE_EDGE_TASKS", False)  # noqa: F405 - the lab's admin test turns it on (and its worker)
# WhiteNoise finds a static file when it is asked for instead of indexing every app's static files when the
# middleware is built: a test client builds it anew (20 ms of the 36 each client costs), and the suite builds
# over a thousand; what is served is the same.
WHITENOISE_AUTOREFRESH = True
