"""Django settings: the catalogue of every setting of the project, all from the environment, with safe
production defaults, each beside why it is what it is.

A catalogue, kept whole on purpose: Django reads its settings as one namespace; an operator looks a variable up in
one place (tests/casino/test_readme_production.py checks that every variable read here is documented); and the
sections build on each other in order (DEBUG sets the security defaults, REDIS_KEY_PREFIX the names of channels and
heartbeats, later sections add their tasks to beat's schedule), which a package of modules joined by star imports
would hide. Its sections, in order: secret key and fairness keys; hosts, apps, middleware, URLs and templates;
PostgreSQL; Redis and Celery; seats; retention and periodic checks; responsible gaming; admin lists; health and
readiness; metrics; live updates; the house-edge lab; cache; auth and API; security; languages and time; static
files; logging.

Required in production: SECRET_KEY, DATABASE_URL, REDIS_URL, ALLOWED_HOSTS. `make run` supplies local values
(embedded services and a per-checkout secret) and sets DEBUG=1; nothing secret is committed.
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from casino import dbpool
from kit import dburl

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_rate(name: str, default: str) -> str | None:
    """A DRF throttle rate from the environment (``"30/minute"``; ``"off"`` disables the scope)."""
    value = os.environ.get(name, "").strip() or default
    if value.lower() in {"off", "none"}:
        return None
    count, _, period = value.partition("/")
    if not count.isdigit() or not period or period[0].lower() not in "smhd":
        raise ImproperlyConfigured(f"{name} must look like 30/minute (or off), not {value!r}")
    return value


# --- Secret key and fairness keys ---------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = "insecure-development-only-key"
    else:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")

# Fairness keys, never in the database (docs/security.md): each a list of `<key id>:<base64 of 32 bytes>`
# (comma- or newline-separated, the first is the current key), given inline or as a file. `make run` and
# `make test` generate development keys under .local/keys/.
SEED_SEALING_KEYS = os.environ.get("SEED_SEALING_KEYS", "")  # AES-256-GCM keys sealing the seed of each hand
SEED_SEALING_KEY_FILE = os.environ.get("SEED_SEALING_KEY_FILE", "")
CHECKPOINT_SIGNING_KEYS = os.environ.get("CHECKPOINT_SIGNING_KEYS", "")  # Ed25519 private keys (raw 32 bytes)
CHECKPOINT_SIGNING_KEY_FILE = os.environ.get("CHECKPOINT_SIGNING_KEY_FILE", "")
# The public halves (`<key id>:<base64 of the 32-byte public key>`), for the processes that verify and publish
# checkpoints but do not sign; unset, they are derived from the signing keys.
CHECKPOINT_PUBLIC_KEYS = os.environ.get("CHECKPOINT_PUBLIC_KEYS", "")
CHECKPOINT_PUBLIC_KEY_FILE = os.environ.get("CHECKPOINT_PUBLIC_KEY_FILE", "")
# Who signs checkpoints (docs/security.md, "Checkpoints"): "signer", the signer process alone (its own Celery
# queue, database role and key: it replays every hand settled since the previous checkpoint before it signs), or
# "inline", the command that ends a hand (one statement; the test settings and single-process setups).
CHECKPOINT_SIGNER = os.environ.get("CHECKPOINT_SIGNER", "inline")
if CHECKPOINT_SIGNER not in {"signer", "inline"}:
    raise ImproperlyConfigured(f"CHECKPOINT_SIGNER must be signer or inline, not {CHECKPOINT_SIGNER!r}")
CHECKPOINT_SIGNER_QUEUE = os.environ.get("CHECKPOINT_SIGNER_QUEUE", "signer")
CHECKPOINT_SWEEP_INTERVAL_S = float(os.environ.get("CHECKPOINT_SWEEP_INTERVAL_S", "10"))

# --- Hosts, apps, middleware, URLs, templates ---------------------------------------------------------------
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc as static files of our own: the docs work offline
    "backoffice",  # app label "casino" (backoffice/apps.py)
    "ledger",
    "tables",
    "lab",
    "responsible",
    "certify",  # the RNG battery and the game-output audit (docs/certification.md)
    "devtools",  # management commands: seed_demo, soak (no models)
]

MIDDLEWARE = [
    "kit.proxy.trusted_proxy_middleware",  # first: the client's address from the proxy (kit/proxy.py)
    "kit.requestlog.RequestLogMiddleware",  # request id, one log line per request
    "kit.metrics.RequestMetricsMiddleware",  # requests by route, method and status, their duration
    "kit.health.ProbeMiddleware",  # /healthz, /readyz: before the host check and the HTTPS redirect
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files (admin, API docs) without a CDN or a web server
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # Accept-Language (it, es, hu, en) picks the language (API.md)
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked sign-in into accounts.login_lockout's 429
]

# The buffering proxy's addresses (docker/nginx/; kit/proxy.py): X-Real-IP is believed from these only.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")

ROOT_URLCONF = "casino.urls"
# Error pages and reports (DEBUG on too) show no settings, environment, cookies, POST values or local variables
# (kit/error_reports.py, docs/security.md "Error pages and logs").
DEFAULT_EXCEPTION_REPORTER = "kit.error_reports.NoSecretsReporter"
DEFAULT_EXCEPTION_REPORTER_FILTER = "kit.error_reports.NoSecretsFilter"
WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- PostgreSQL through psycopg 3 -------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    raise ImproperlyConfigured(
        "DATABASE_URL is not set. Use `make run` / `make test` (they start an embedded PostgreSQL) "
        "or export DATABASE_URL=postgres://user@host:5432/dbname"
    )
_db = dburl.parse(DATABASE_URL, engine="django.db.backends.postgresql")
# A dead server is noticed by the client, not waited for (docs/reliability.md, "Failover"): a connection attempt
# gives up after DB_CONNECT_TIMEOUT_S (per host of a multi-host URL, kit/dburl.py), and a connection whose server
# vanished without a word (a dead machine sends no reset) is dropped once TCP keepalives go unanswered (after about
# 5 + 3 x 2 s idle) or data it sent stays unacknowledged for DB_TCP_USER_TIMEOUT_S. The URL's query overrides each.
for _option, _value in {
    "connect_timeout": env_int("DB_CONNECT_TIMEOUT_S", 5),
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": env_int("DB_TCP_USER_TIMEOUT_S", 10) * 1000,
}.items():
    _db.setdefault("OPTIONS", {}).setdefault(_option, _value)
# Keep connections: psycopg's pool per process (DB_POOL=1, default) or persistent connections.
if env_bool("DB_POOL", True):
    _db["CONN_MAX_AGE"] = 0
    # DB_POOL_MIN, DB_POOL_MAX, DB_POOL_TIMEOUT, and a pool that gives up on an unreachable server within
    # DB_POOL_RECONNECT_TIMEOUT_S, answering the requests waiting for it at once (casino/dbpool.py)
    _db.setdefault("OPTIONS", {})["pool"] = dbpool.pool_options()
    # The pool checks a connection before lending it, so a connection the server dropped while it sat idle (a
    # restarted server, pg_terminate_backend, a proxy's idle timeout) is replaced, never handed to a request that
    # would then fail (docs/reliability.md); without a round trip unless its socket has something to read
    # (casino/dbpool.check_borrowed).
    _db["CONN_HEALTH_CHECKS"] = env_bool("CONN_HEALTH_CHECKS", True)
    if _db["CONN_HEALTH_CHECKS"]:
        _db["OPTIONS"]["pool"]["check"] = dbpool.check_borrowed
else:
    _db["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 600)
    _db["CONN_HEALTH_CHECKS"] = True
DATABASES = {"default": _db}
DATABASE_APP_ROLE = str(_db.get("USER") or "")
# The owner role (docs/architecture.md, "Database roles"): `manage.py migrate` connects as it (casino's migrate
# command) and then grants the application role, DATABASE_URL's user, its privileges. Only its credentials are
# used, and only when it names the same server and database as DATABASE_URL (a process pointed at another
# database, like a test's child process or a private soak cluster, ignores an inherited one). Unset: migrate
# runs as DATABASE_URL's user.
MIGRATE_DATABASE_URL = os.environ.get("MIGRATE_DATABASE_URL", "")
_owner = dburl.parse(MIGRATE_DATABASE_URL) if MIGRATE_DATABASE_URL else None
MIGRATE_DATABASE = (
    {"USER": _owner["USER"], "PASSWORD": _owner["PASSWORD"]}
    if _owner and all(_owner.get(k) == _db.get(k) for k in ("HOST", "PORT", "NAME"))
    else None
)
# The signer's role (its own process connects as it; `migrate` grants it its privileges): only its name here.
SIGNER_DATABASE_URL = os.environ.get("SIGNER_DATABASE_URL", "")
DATABASE_SIGNER_ROLE = os.environ.get("DATABASE_SIGNER_ROLE") or (
    str(dburl.parse(SIGNER_DATABASE_URL).get("USER") or "") if SIGNER_DATABASE_URL else ""
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis and Celery ----------------------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if not REDIS_URL:
    raise ImproperlyConfigured("REDIS_URL is not set (for example redis://127.0.0.1:6379/0)")
# Prepended to every Redis key and channel of this casino (cache, Celery's queues, the live layer's channels, the
# latest-version keys, the open-wait counters): empty by default. Two casinos sharing one Redis database, or the
# parallel test suite's workers (casino/settings_test.py: one prefix per xdist worker), never see each other's.
REDIS_KEY_PREFIX = os.environ.get("REDIS_KEY_PREFIX", "")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
if REDIS_KEY_PREFIX:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": REDIS_KEY_PREFIX}
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_EXPIRES = 3600
CELERY_TIMEZONE = "UTC"
# The worker's consumer survives a lost broker connection (a Celery 5.7 bug; casino/worker.py).
CELERY_WORKER_CONSUMER = "casino.worker:Consumer"
# Table timers (DESIGN.md principle 9): a task per wait, scheduled after commit for its deadline, plus a
# sweeper on beat that fires any deadline missed by more than the grace period (lost message, dead worker).
TABLE_TIMERS = env_bool("TABLE_TIMERS", True)
# The API's stored idempotent answers (kit/idempotency.py): a model of the game app, named as AUTH_USER_MODEL is
IDEMPOTENCY_RECORD_MODEL = "tables.IdempotencyRecord"
TABLE_TIMER_QUEUE = os.environ.get("TABLE_TIMER_QUEUE", "celery")
# A table's timers go to one of this many queues, "<TABLE_TIMER_QUEUE>.<table id mod N>" (casino/celery.py): a worker
# consuming TABLE_TIMER_QUEUE consumes them all; one started with -Q <queue>.<n> serves that share of the tables.
TABLE_QUEUE_SHARDS = env_int("TABLE_QUEUE_SHARDS", 4)
TIMEOUT_SWEEP_INTERVAL_S = float(os.environ.get("TIMEOUT_SWEEP_INTERVAL_S", "5"))
TIMEOUT_SWEEP_GRACE_S = float(os.environ.get("TIMEOUT_SWEEP_GRACE_S", "2"))
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-overdue-table-timeouts": {
        "task": "tables.sweep_timeouts",
        "schedule": TIMEOUT_SWEEP_INTERVAL_S,
        "options": {"queue": TABLE_TIMER_QUEUE, "expires": TIMEOUT_SWEEP_INTERVAL_S},
    },
}
if CHECKPOINT_SIGNER == "signer":  # hands whose end the signer has not signed yet (a lost message, a restart)
    CELERY_BEAT_SCHEDULE["sign-pending-checkpoints"] = {
        "task": "tables.sign_pending_checkpoints",
        "schedule": CHECKPOINT_SWEEP_INTERVAL_S,
        "options": {"queue": CHECKPOINT_SIGNER_QUEUE, "expires": CHECKPOINT_SWEEP_INTERVAL_S},
    }

# --- Seats -------------------------------------------------------------------------------------------------
# Seats (API.md v1.2 "Actions"): one account holds at most this many seats over all tables (409 seat_limit); a seat
# that took part in no hand for SEAT_IDLE_HANDS hands and SEAT_IDLE_MINUTES minutes (whichever is later) is
# released by the server (tables/idle_seats.py, swept by beat).
SEATS_PER_ACCOUNT = env_int("SEATS_PER_ACCOUNT", 4)
SEAT_IDLE_HANDS = env_int("SEAT_IDLE_HANDS", 3)
SEAT_IDLE_MINUTES = float(os.environ.get("SEAT_IDLE_MINUTES", "10"))
SEAT_IDLE_SWEEP_INTERVAL_S = float(os.environ.get("SEAT_IDLE_SWEEP_INTERVAL_S", "60"))
if SEAT_IDLE_SWEEP_INTERVAL_S > 0:  # idle seats released (tables/idle_seats.py)
    CELERY_BEAT_SCHEDULE["release-idle-seats"] = {
        "task": "tables.release_idle_seats",
        "schedule": SEAT_IDLE_SWEEP_INTERVAL_S,
        "options": {"queue": TABLE_TIMER_QUEUE, "expires": SEAT_IDLE_SWEEP_INTERVAL_S},
    }

# --- Retention and periodic checks (docs/operations.md) -------------------------------------------------------
# The API's stored answers to Idempotency-Key requests are purged after this many hours (a client retries a
# request within minutes; a week covers any reasonable retry, and the events keep their own keys forever).
IDEMPOTENCY_RETENTION_HOURS = env_int("IDEMPOTENCY_RETENTION_HOURS", 7 * 24)
IDEMPOTENCY_PURGE_INTERVAL_S = env_int("IDEMPOTENCY_PURGE_INTERVAL_S", 3600)  # 0: never purge
# The ledger is reconciled on beat this often (its outcome feeds the dashboard and casino_ledger_reconcile_*).
LEDGER_RECONCILE_INTERVAL_S = env_int("LEDGER_RECONCILE_INTERVAL_S", 3600)  # 0: only by `manage.py reconcile`
# Each table's house bankroll (house:bankroll:table:<id>) is swept into house:bankroll this often (ledger/sweeps.py).
LEDGER_SWEEP_INTERVAL_S = env_int("LEDGER_SWEEP_INTERVAL_S", 300)  # 0: never swept
if LEDGER_SWEEP_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["sweep-table-bankrolls"] = {
        "task": "ledger.sweep_table_bankrolls",
        "schedule": float(LEDGER_SWEEP_INTERVAL_S),
        "options": {"expires": float(LEDGER_SWEEP_INTERVAL_S)},
    }
if IDEMPOTENCY_PURGE_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["purge-idempotency-records"] = {
        "task": "casino.purge_idempotency_records",
        "schedule": float(IDEMPOTENCY_PURGE_INTERVAL_S),
        "options": {"expires": float(IDEMPOTENCY_PURGE_INTERVAL_S)},
    }
if LEDGER_RECONCILE_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["reconcile-ledger"] = {
        "task": "casino.reconcile_ledger",
        "schedule": float(LEDGER_RECONCILE_INTERVAL_S),
        "options": {"expires": float(LEDGER_RECONCILE_INTERVAL_S)},
    }

# --- Responsible gaming (docs/responsible-gaming.md) ------------------------------------------------------------
RG_COOLING_OFF_HOURS = env_int("RG_COOLING_OFF_HOURS", 24)  # a raised (or removed) limit waits this long
RG_REQUEST_EXPIRY_DAYS = env_int("RG_REQUEST_EXPIRY_DAYS", 7)  # an unconfirmed raise lapses after this
RG_SWEEP_INTERVAL_S = env_int("RG_SWEEP_INTERVAL_S", 30)  # seats released after session limits and exclusions
if RG_SWEEP_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["responsible-gaming-sweep"] = {
        "task": "responsible.sweep",
        "schedule": float(RG_SWEEP_INTERVAL_S),
        "options": {"expires": float(RG_SWEEP_INTERVAL_S)},
    }

# --- Admin lists (kit/paginator.py): exact counts up to this many rows (a bounded COUNT), PostgreSQL's estimate
# ("about N") above
ADMIN_EXACT_COUNT_UP_TO = env_int("ADMIN_EXACT_COUNT_UP_TO", 10_000)

# --- Health and readiness (kit/health.py, kit/heartbeat.py; docs/operations.md) ---------------------------
# /healthz: this process reaches PostgreSQL and Redis (liveness). /readyz: the casino as a whole can deal, i.e. also
# a process of each kind named here wrote its heartbeat within HEARTBEAT_STALE_S.
# Compose sets READINESS_REQUIRES=worker,beat,signer (the signer worker beats as "signer").
READINESS_REQUIRES = env_list("READINESS_REQUIRES", "worker,beat")
HEARTBEAT_PREFIX = os.environ.get("HEARTBEAT_PREFIX", f"{REDIS_KEY_PREFIX}casino:alive:")
HEARTBEAT_INTERVAL_S = float(os.environ.get("HEARTBEAT_INTERVAL_S", "5"))
HEARTBEAT_STALE_S = float(os.environ.get("HEARTBEAT_STALE_S", "30"))

# --- Metrics (GET /metrics, backoffice/metrics.py; kit/metrics.py, tables/metrics.py) -------------------------
# prometheus-client's multiprocess mode: each process writes its values there, created before any metric exists
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
# Off unless one is set: a bearer token Prometheus sends, and/or the addresses (or networks) allowed to scrape.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOW_IPS = env_list("METRICS_ALLOW_IPS")

# --- live updates (tables/live): the ASGI process serves /ws/v1/tables/{id} and the events long-poll ---------
# One channel-layer channel per ASGI process, joined to the group of each table its sockets and long-polls watch;
# commands publish to the table's group after commit (tables/notify.py). Redis pub/sub ignores the database
# number of REDIS_URL, so the channel names carry it: two casinos on one Redis never wake each other.
_redis_db = (REDIS_URL.rsplit("/", 1)[-1].split("?")[0] or "0") if REDIS_URL.count("/") >= 3 else "0"
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": os.environ.get("LIVE_CHANNEL_PREFIX", f"{REDIS_KEY_PREFIX}casino.db{_redis_db}."),
        },
    }
}
LIVE_MAX_OPEN_WAITS = env_int("LIVE_MAX_OPEN_WAITS", 8)  # per user: long-polls plus sockets, across processes
LIVE_AUTH_TIMEOUT_S = float(os.environ.get("LIVE_AUTH_TIMEOUT_S", "10"))
LIVE_RETRY_AFTER_S = env_int("LIVE_RETRY_AFTER_S", 5)  # Retry-After of a long-poll over the cap
LIVE_SLOT_TTL_S = env_int("LIVE_SLOT_TTL_S", 60)  # a socket's slot expires unless refreshed (a killed process)
LIVE_RECHECK_S = float(os.environ.get("LIVE_RECHECK_S", "30"))  # a quiet socket checks Redis for a lost wake-up
# Hostile clients (API.md v1.2 "Live updates"; docs/security.md, "Hostile clients"): a client frame over this many
# bytes closes 1009 (uvicorn's --ws-max-size says the same before the frame is read whole); at most this many sockets
# not yet authenticated per process (beyond: closed 1013 at once); every socket's credentials are checked again this
# often (a revoked or expired token, a logout, a deactivated account: closed 4401); what one user's sockets are sent,
# per process, at most this many bytes a second after a burst of LIVE_SEND_BURST_BYTES (a resume storm is paced).
LIVE_MAX_FRAME_BYTES = env_int("LIVE_MAX_FRAME_BYTES", 4096)
LIVE_MAX_UNAUTHENTICATED = env_int("LIVE_MAX_UNAUTHENTICATED", 1000)
LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS = env_int("LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS", 20)  # its share (guard.py)
LIVE_REVALIDATE_S = float(os.environ.get("LIVE_REVALIDATE_S", "2"))
LIVE_SEND_BYTES_PER_S = env_int("LIVE_SEND_BYTES_PER_S", 256 * 1024)
LIVE_SEND_BURST_BYTES = env_int("LIVE_SEND_BURST_BYTES", 1024 * 1024)
# Where the table page opens its WebSocket: an origin such as wss://live.example.com (behind a proxy), or empty
# for the page's own host on LIVE_PORT (make run: PORT + 1)
LIVE_WS_URL = os.environ.get("LIVE_WS_URL", "")
LIVE_PORT = env_int("LIVE_PORT", env_int("PORT", 8000) + 1)

# --- The house-edge lab (lab/) -----------------------------------------------------------------------------
# Rounds simulated per rule set for the admin's figure, the queue of that task, and
# after how long a figure still "computing" is asked for again (its task was lost). HOUSE_EDGE_TASKS off: the
# figure is never asked for (the test suite, which starts its own worker where it needs one).
HOUSE_EDGE_TASKS = env_bool("HOUSE_EDGE_TASKS", True)
HOUSE_EDGE_HANDS = env_int("HOUSE_EDGE_HANDS", 0)  # 0: the published table's size (lab.report.published_spec)
HOUSE_EDGE_QUEUE = os.environ.get("HOUSE_EDGE_QUEUE", "lab")  # its own worker (Procfile, compose): not the timers'
HOUSE_EDGE_RETRY_S = float(os.environ.get("HOUSE_EDGE_RETRY_S", "900"))

# --- The monthly game-output audit (certify/, docs/certification.md) ---------------------------------------------
# Beat asks this often whether last month (UTC) has been audited, and audits it once on the lab's worker (a long
# computation, away from the timers); 0: only by `manage.py game_audit`.
AUDIT_CHECK_INTERVAL_S = env_int("AUDIT_CHECK_INTERVAL_S", 6 * 3600)
if AUDIT_CHECK_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["audit-last-month"] = {
        "task": "certify.audit_last_month",
        "schedule": float(AUDIT_CHECK_INTERVAL_S),
        "options": {"queue": HOUSE_EDGE_QUEUE, "expires": float(AUDIT_CHECK_INTERVAL_S)},
    }

# --- What a table returns to players (tables/worth.py, docs/house-edge.md "The casino's limits") -----------------
# The operator's choice, as decimal strings: a house-banked table whose best-play return to player is above
# MAX_RTP (a punter playing perfectly within its limits would beat the casino, or come too close) or whose flat
# return is below MIN_RTP (the jurisdiction's minimum) is refused with 400 rules_refused; tables already open
# outside them are flagged (admin, metric casino_tables_outside_rtp_limits).
MAX_RTP = os.environ.get("MAX_RTP", "0.985")
MIN_RTP = os.environ.get("MIN_RTP", "0.85")

# --- Cache ---------------------------------------------------------------------------------------------------
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": REDIS_KEY_PREFIX,
    }
}

# --- Auth, API -----------------------------------------------------------------------------------------------
# Password hashing (kit/hashing.py): Django's PBKDF2, at most PASSWORD_HASH_CONCURRENCY hashes at once per
# process; a hash that waits PASSWORD_HASH_WAIT_S for a slot is 429 throttled. The same algorithm name as Django's:
# stored hashes need no change.
PASSWORD_HASHERS = [
    "kit.hashing.BoundedPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
]
PASSWORD_HASH_CONCURRENCY = env_int("PASSWORD_HASH_CONCURRENCY", 2)
PASSWORD_HASH_WAIT_S = float(os.environ.get("PASSWORD_HASH_WAIT_S", "5"))
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Sign-in lockout (accounts/login_lockout.py, django-axes with its own handler; API.md v1.2): failures counted per
# account and address pair (LOGIN_FAILURE_LIMIT locks that account from that address), per account
# (LOGIN_ACCOUNT_FAILURE_LIMIT locks it from every address it never signed in from) and per address
# (LOGIN_ADDRESS_FAILURE_LIMIT locks that address out of every account never signed in from there), over
# LOGIN_FAILURE_WINDOW_S; a lock lasts LOGIN_LOCKOUT_BASE_S, doubled by each further failure up to
# LOGIN_LOCKOUT_MAX_S. A success clears its own pair and makes its address known to the account.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "accounts.backends.PasswordBackend",  # ModelBackend without the hash upgrade the app role may not write
]
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20)
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 100)
LOGIN_LOCKOUT_BASE_S = env_int("LOGIN_LOCKOUT_BASE_S", 60)
LOGIN_LOCKOUT_MAX_S = env_int("LOGIN_LOCKOUT_MAX_S", 3600)
LOGIN_FAILURE_WINDOW_S = env_int("LOGIN_FAILURE_WINDOW_S", 24 * 3600)
AXES_HANDLER = "accounts.login_lockout.PairLockoutHandler"
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LOGIN_FAILURE_WINDOW_S)  # failures older than the window are forgotten
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # refused while locked: not counted, the lock does not grow
AXES_CLIENT_IP_CALLABLE = "accounts.login_lockout.client_ip"
AXES_USERNAME_CALLABLE = "accounts.login_lockout.login_username"
AXES_LOCKOUT_CALLABLE = "accounts.login_lockout.lockout_response"
AXES_VERBOSE = False
# The reference pages (/play/) keep their player's token in this HttpOnly cookie, set by /play/session
# (accounts/views/page_auth.py), never in storage a script can read (docs/client.md, docs/security.md).
PLAY_TOKEN_COOKIE = "casino_play_token"
# API tokens (kit/tokens.py): stored hashed (django-rest-knox), valid this long after issue.
API_TOKEN_TTL = timedelta(seconds=env_int("API_TOKEN_TTL_S", 24 * 3600))
REST_KNOX = {
    "TOKEN_TTL": API_TOKEN_TTL,
    "AUTH_HEADER_PREFIX": "Token",
    "AUTH_TOKEN_CHARACTER_LENGTH": 64,
}
# Anyone may register through the API unless this is off (then POST /api/v1/auth/register is 403).
REGISTRATION_OPEN = env_bool("REGISTRATION_OPEN", True)

# Throttle rates (kit/throttling.py): per client IP on register/token, per user everywhere else.
API_THROTTLE_RATES = {
    "auth_burst": env_rate("THROTTLE_AUTH_BURST", "5/second"),
    "auth_sustained": env_rate("THROTTLE_AUTH_SUSTAINED", "30/minute"),
    "user_burst": env_rate("THROTTLE_USER_BURST", "30/second"),
    "user_sustained": env_rate("THROTTLE_USER_SUSTAINED", "900/minute"),
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "kit.authentication.TokenAuthentication",
        "kit.authentication.CookieTokenAuthentication",  # the /play/ pages' HttpOnly cookie (docs/client.md)
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "kit.schema.ApiAutoSchema",
    "DEFAULT_PARSER_CLASSES": ["kit.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "kit.api_errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "kit.pagination.ApiPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "kit.throttling.UserBurstThrottle",
        "kit.throttling.UserSustainedThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": API_THROTTLE_RATES,
    # Proxies in front of the app whose X-Forwarded-For is trusted for the client IP of the throttles.
    "NUM_PROXIES": env_int("THROTTLE_NUM_PROXIES", 1 if env_bool("BEHIND_TLS_PROXY") else 0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Seven and a Half casino API",
    "DESCRIPTION": "Tables, actions, hand histories and verification of the provably fair shuffle.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc from drf-spectacular-sidecar's static files, never from a CDN (a back office often
    # has no internet access)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Security defaults (production) ----------------------------------------------------------------------------
# In production the site is HTTPS only (`manage.py check --deploy` reports nothing; tests/casino/test_deploy_check.py).
# Behind a TLS-terminating proxy (a load balancer speaking plain HTTP to the app) set BEHIND_TLS_PROXY=1: the
# proxy's X-Forwarded-Proto then tells whether the client used HTTPS (the proxy must set it, never pass it on).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# probes and scrapes over plain HTTP inside the deployment
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
# database sessions whose stored key is a keyed hash of the cookie's: a database reader replays none (kit/sessions.py)
SESSION_ENGINE = "kit.sessions"
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY") else None
X_FRAME_OPTIONS = "DENY"

# --- Languages and time --------------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
# The languages of pages, error messages and the table card (API.md "Languages"); catalogues in locale/.
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("es", "Español"), ("hu", "Magyar")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files --------------------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# WhiteNoise serves STATIC_ROOT (filled by `collectstatic`, as the Dockerfile does) and, where it was never
# collected (make run, the tests), the apps' own static directories; its warning about a missing STATIC_ROOT
# would otherwise be printed by every process start.
WHITENOISE_USE_FINDERS = True
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")

# --- Logging -------------------------------------------------------------------------------------------------
# LOG_FORMAT=json: one JSON object per line (python-json-logger), the request/task fields as keys; text otherwise.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text").strip().lower()
LOG_CELERY_TASK_LINES = env_bool("LOG_CELERY_TASK_LINES", False)
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # times in ISO 8601, UTC, to the millisecond: 2026-12-01T21:55:43.990Z (kit/requestlog.py)
        "text": {"()": "kit.requestlog.UTCFormatter", "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {
            "()": "kit.requestlog.JsonUTCFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "filters": {
        "routine_celery": {"()": "kit.requestlog.RoutineCeleryLines"},
        "suspicious_request": {"()": "kit.requestlog.SuspiciousRequest"},
    },
    # (a logger's filter does not see its children's records: the handler's does)
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["suspicious_request"]}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # one line per request and per task comes from casino.request / casino.task; these repeat them
        # runserver's access lines (its 4xx and 5xx ones too: casino.request has them)
        "django.server": {"level": "CRITICAL"},
        # "Not Found: /x", "Bad Request: /y": casino.request's line says it; a 500's traceback still comes
        "django.request": {"level": "ERROR"},
        # "AXES: Successful login by ...": the request's line says it (the admin's access log keeps every sign-in);
        # lockouts are still logged, at WARNING
        "axes": {"level": "WARNING"},
        # Celery's own "Task ... received" / "succeeded in ..." lines and beat's "Sending due task" every 5 s;
        # LOG_CELERY_TASK_LINES=1 keeps them (debugging a worker)
        "celery.app.trace": {"level": "INFO" if LOG_CELERY_TASK_LINES else "WARNING"},
        "celery.worker.strategy": {"level": "INFO" if LOG_CELERY_TASK_LINES else "WARNING"},
        "celery.beat": {"filters": [] if LOG_CELERY_TASK_LINES else ["routine_celery"]},  # keeps "beat: Starting..."
        "celery.worker.request": {"filters": [] if LOG_CELERY_TASK_LINES else ["routine_celery"]},
    },
}
