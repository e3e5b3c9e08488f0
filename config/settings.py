"""Django settings, read from the environment only.

With no environment at all the project runs on its embedded defaults: SQLite for the data, and
a Celery broker and result store in SQLite files too (through SQLAlchemy), all under ``var/``.
Teams set ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis or RabbitMQ); see
README.md.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_str

django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# PRODUCTION=true turns on everything a server on the internet needs: a SECRET_KEY and
# ALLOWED_HOSTS from the environment, HTTPS only (redirect, HSTS, secure cookies). Each can be
# loosened by its own variable, e.g. SECURE_SSL_REDIRECT=false behind a proxy that redirects.
PRODUCTION = env_bool("PRODUCTION", False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG=true and PRODUCTION=true do not go together")
_secret = env_str("SECRET_KEY", "")
if not _secret:
    if PRODUCTION or (not DEBUG and env_bool("REQUIRE_SECRET_KEY", False)):
        raise ImproperlyConfigured("SECRET_KEY must be set in production")
    # A per-checkout key, generated once and kept out of the repository. Created exclusively,
    # so processes starting together (server and worker) all end up with the same key.
    from django.core.management.utils import get_random_secret_key

    _key_file = VAR_DIR / "secret_key"
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    try:
        with open(_key_file, "x", encoding="ascii", opener=lambda p, f: os.open(p, f, 0o600)) as f:
            f.write(get_random_secret_key())
    except FileExistsError:
        pass
    _secret = _key_file.read_text(encoding="ascii").strip()
SECRET_KEY = _secret

if PRODUCTION:
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("ALLOWED_HOSTS must name the server's host names in production")
else:
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# A form with a missing or stale token gets the site's page saying what to do.
CSRF_FAILURE_VIEW = "config.error_views.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "template_partials.apps.SimpleAppConfig",
    "annotate",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Before anything reads a body: an unreadable charset is a 400, not a server error.
    "config.middleware.CharsetMiddleware",
    # Before anything reads a body: one over its address's limit is a 413, not read at all.
    "config.middleware.BodySizeMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Below WhiteNoise (static files keep their caching): nothing else is kept by a cache.
    "config.middleware.NoStoreMiddleware",
    # Django's, answering 503 when the session's save finds the database locked.
    "annotate.middleware.SessionMiddleware",
    "annotate.middleware.SessionTimeoutMiddleware",
    # A page that finds the database locked answers 503 with Retry-After (the API: its handler).
    "annotate.middleware.DatabaseBusyMiddleware",
    # A Django admin list filtered by a number SQLite cannot hold: the list again, not a 500.
    "annotate.middleware.AdminNumberMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Gives back the job rate's count of a job start answered with an error.
    "annotate.middleware.JobStartSettleMiddleware",
    # Once the user is known, before any view (and the CSRF check) reads a body: an upload
    # over the ordinary limit only from a signed-in corpus admin.
    "config.middleware.UploadSenderMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a login refused by the lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# django-axes' backend comes first: every authenticate() asks the login lockout before a
# password is checked (see annotate/lockout.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "OPTIONS": {
            # Partials ("page.html#rows") over the cached app-directories loader.
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [
                        (
                            "django.template.loaders.cached.Loader",
                            ["django.template.loaders.app_directories.Loader"],
                        )
                    ],
                )
            ],
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context_processors.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the worker write job progress while the web process reads; the busy timeout
    # makes concurrent writers wait instead of failing with "database is locked". Reading the
    # file through a memory map (shared by every connection through the OS page cache) and a
    # larger page cache than SQLite's 2 MB: the dashboards' aggregates over 100,000 assignments
    # look up rows all over a file of hundreds of MB, and took half as long again without them.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            "PRAGMA mmap_size=268435456; PRAGMA cache_size=-32768;"
        ),
        "transaction_mode": "IMMEDIATE",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": env_int("PASSWORD_MIN_LENGTH", 10)},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing folder
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# HTTPS: on by default in production, off for the embedded demo on http://127.0.0.1.
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", PRODUCTION)
if env_bool("BEHIND_HTTPS_PROXY", False):
    # The proxy terminates TLS and says so in this header; trust it only when told to.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Content-Security-Policy on every response: scripts, styles, images and connections only from
# this site, no inline script or style (not even a style attribute), no plugins, no framing, and
# forms only posting here. A page that needs more says so with csp.decorators (the API docs).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}
SESSION_COOKIE_HTTPONLY = True
# A session ends after SESSION_IDLE_SECONDS without a request (a working day by default: lunch or
# a meeting keeps it, a night does not) and SESSION_MAX_AGE_SECONDS after its login, however
# busy (a stolen cookie is not good forever). See annotate/middleware.py. The cookie and the
# stored row outlive the idle limit by a little, so that the middleware decides.
SESSION_IDLE_SECONDS = env_int("SESSION_IDLE_SECONDS", 8 * 3600)
SESSION_MAX_AGE_SECONDS = env_int("SESSION_MAX_AGE_SECONDS", 24 * 3600)
if SESSION_IDLE_SECONDS < 300:
    raise ImproperlyConfigured(f"SESSION_IDLE_SECONDS={SESSION_IDLE_SECONDS} must be 300 or more")
if SESSION_MAX_AGE_SECONDS < SESSION_IDLE_SECONDS:
    raise ImproperlyConfigured(
        f"SESSION_MAX_AGE_SECONDS={SESSION_MAX_AGE_SECONDS} must be at least "
        f"SESSION_IDLE_SECONDS={SESSION_IDLE_SECONDS}"
    )
SESSION_COOKIE_AGE = SESSION_IDLE_SECONDS + 180
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SILENCED_SYSTEM_CHECKS = [] if PRODUCTION else ["security.W004", "security.W008"]

# Shared between the web processes and the workers: the API rate limits.
# A file cache under var/ serves one machine; a team on several machines sets CACHE_URL=redis://;
# CACHE_URL=locmem:// keeps it inside one process (the unit tests).
_cache_url = env_str("CACHE_URL", "")
_cache: dict[str, Any]
if _cache_url.startswith(("redis://", "rediss://")):
    _cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
elif _cache_url == "locmem://":
    _cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
elif _cache_url:
    raise ImproperlyConfigured(f"CACHE_URL={_cache_url!r}: use redis://… or locmem://")
else:
    _cache = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache"),
        # Its default (300 entries, then a third deleted at random) would drop live lockouts
        # and rate counts once a few hundred users and addresses are counted.
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    }
CACHES = {"default": _cache}

# Reverse proxies in front of the web processes that append the client's address to
# X-Forwarded-For (nginx with $proxy_add_x_forwarded_for: 1). With 0 the header is ignored,
# since a client can write anything in it; behind a proxy every client would then share the
# proxy's address for the login lockout and the per-address API rate.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES={TRUSTED_PROXIES} must be 0 or more")

# Failed logins per account from one address, and per address for all accounts, before every
# login path refuses further tries from that address for LOGIN_LOCKOUT_SECONDS (each failure
# also restarts that window): failing someone's login elsewhere does not lock them out. An
# address allows more: a team behind one office address shares it. Counted in the database
# (annotate/services/logins.py).
LOGIN_MAX_FAILURES = env_int("LOGIN_MAX_FAILURES", 5)
LOGIN_MAX_FAILURES_PER_ADDRESS = env_int("LOGIN_MAX_FAILURES_PER_ADDRESS", 50)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 15 * 60)
for _name, _value in (
    ("LOGIN_MAX_FAILURES", LOGIN_MAX_FAILURES),
    ("LOGIN_MAX_FAILURES_PER_ADDRESS", LOGIN_MAX_FAILURES_PER_ADDRESS),
    ("LOGIN_LOCKOUT_SECONDS", LOGIN_LOCKOUT_SECONDS),
):
    if _value < 1:
        raise ImproperlyConfigured(f"{_name}={_value} must be 1 or more")

# django-axes runs the lockout on every authentication path with our handler, which reads the
# LOGIN_* settings above; the AXES_* values below describe the same policy to axes itself.
AXES_HANDLER = "annotate.lockout.LoginLockoutHandler"
AXES_FAILURE_LIMIT = LOGIN_MAX_FAILURES
AXES_COOLOFF_TIME = timedelta(seconds=LOGIN_LOCKOUT_SECONDS)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_USERNAME_CALLABLE = "annotate.lockout.lockout_username"
AXES_CLIENT_IP_CALLABLE = "annotate.throttles.client_address"
AXES_LOCKOUT_CALLABLE = "frontend.login.lockout_response"
AXES_RESET_ON_SUCCESS = True
# Axes' own tables (attempts, access logs) stay empty with our handler: no admin pages for them.
AXES_ENABLE_ADMIN = False
AXES_VERBOSE = False

REST_FRAMEWORK = {
    # Token first: an anonymous API call is answered 401 with "WWW-Authenticate: Token", which
    # tells a client that logging in helps (a session-first order would answer 403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Per user and per address; a save every 2 s is 30 a minute, far below the user rate. The
    # address rate leaves room for a few hundred annotators behind one office address.
    "DEFAULT_THROTTLE_CLASSES": [
        "annotate.throttles.AnonymousRateThrottle",
        "annotate.throttles.UserRateThrottle",
        "annotate.throttles.AddressRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_RATE_ANONYMOUS", "60/min"),
        "user": env_str("API_RATE_USER", "600/min"),
        "address": env_str("API_RATE_ADDRESS", "30000/min"),
        "jobs": env_str("API_RATE_JOBS", "120/hour"),
        # Scoring inside the request (the API's and the scorers page's): each takes up to a
        # second of a web process, so one user's loop at the user rate would hold ten.
        "score": env_str("API_RATE_SCORE", "30/min"),
    },
    "DEFAULT_PERMISSION_CLASSES": ["annotate.permissions.IsSignedIn"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "annotate.renderers.BrowsableAPIRenderer",
    ],
    # JSON bodies nested deeper than annotate.parsers.MAX_JSON_DEPTH are refused with a 400.
    "DEFAULT_PARSER_CLASSES": [
        "annotate.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "annotate.exceptions.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Paraphrase alignment workbench API",
    "VERSION": "0.1.0",
    "DESCRIPTION": (
        "Send `Authorization: Token KEY`; an admin makes an account's key with `manage.py "
        "drf_create_token USERNAME` or in the Django admin (Tokens). Errors answer "
        '`{"error": {"code", "message", "field"}}`; paged lists link their `next` and '
        "`previous` pages."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["annotate.permissions.IsSignedIn"],
    # Swagger UI's scripts and styles are served by the app itself, so /api/docs/ works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotate.apis.schema.error_responses",
    ],
}

# --- Celery -------------------------------------------------------------------------------------
# The embedded broker: kombu's SQLAlchemy transport on a SQLite file, one row per message, safe
# with any number of web processes publishing and worker processes consuming at once.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}")
# How often a worker looks for new messages on the embedded broker, which it polls (seconds):
# while it has work and for BROKER_BUSY_SECONDS after, so that a chunked job hands each worker
# its next chunk as soon as it is free; and while idle, so that polling costs an idle worker well
# under 1 % of a core while a new job still starts within a second. The busy tail is short:
# beat's reaping task every 30 s makes a worker busy for a moment, and a 10 s tail would keep it
# polling fast a third of the time. The worker sets them on its connection (config/celery.py):
# kombu's SQLAlchemy transport hands every transport option to SQLAlchemy's create_engine, which
# refuses a polling_interval.
BROKER_POLLING_INTERVAL = env_float("BROKER_POLLING_INTERVAL", 0.1)
BROKER_IDLE_POLLING_INTERVAL = env_float("BROKER_IDLE_POLLING_INTERVAL", 1.0)
BROKER_BUSY_SECONDS = env_float("BROKER_BUSY_SECONDS", 3.0)
for _name in ("BROKER_POLLING_INTERVAL", "BROKER_IDLE_POLLING_INTERVAL"):
    if not 0.01 <= globals()[_name] <= 10:
        raise ImproperlyConfigured(
            f"{_name}={globals()[_name]} must be between 0.01 and 10 seconds"
        )
if CELERY_BROKER_URL.startswith("sqla+sqlite:///"):
    from config.embedded import engine_options

    _broker_file = Path(CELERY_BROKER_URL.removeprefix("sqla+sqlite:///"))
    _broker_file.parent.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = engine_options(_broker_file)
# Job results live in Job rows. Celery still needs a result backend shared by all workers for
# chords (the chunked Monte Carlo jobs): the broker's Redis when there is one, else a SQLite
# file under var/ through SQLAlchemy (one machine; a team on RabbitMQ with workers on several
# machines sets CELERY_RESULT_BACKEND=redis://... or db+postgresql://...).
_default_backend = f"db+sqlite:///{VAR_DIR / 'results.sqlite3'}"
if CELERY_BROKER_URL.startswith("redis://"):
    _default_backend = CELERY_BROKER_URL
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", _default_backend)
if CELERY_RESULT_BACKEND.startswith("db+sqlite:///"):
    from config.embedded import engine_options

    _results_file = Path(CELERY_RESULT_BACKEND.removeprefix("db+sqlite:///"))
    _results_file.parent.mkdir(parents=True, exist_ok=True)
    CELERY_DATABASE_ENGINE_OPTIONS = engine_options(_results_file)
if CELERY_RESULT_BACKEND.startswith(("db+", "file://")):
    if CELERY_RESULT_BACKEND.startswith("file://"):
        Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
    # Without native chord support Celery polls for a chord's end (every 1 s by default).
    CELERY_RESULT_CHORD_RETRY_INTERVAL = 0.25
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# Jobs of seconds whatever the corpus (planning and handing over assignments, statistics) go to
# a queue of their own, so that they never wait behind hours of prefill or agreement: a plain
# worker takes from every queue, and a worker of its own serves the quick one alone
# (``celery -A config worker -Q quick``; ``serve_demo`` runs one).
QUICK_QUEUE = "quick"
QUICK_JOB_KINDS = (
    "adjudication_accept",
    "adjudication_accept_undo",
    "assignments_plan",
    "assignments_hand_over",
    "assignments_release",
    "corpus_stats",
)
# The jobs any signed-in user may queue (an annotator's score jobs: hours of pPDA on long
# pairs) go to a lane of their own too, so that they never hold the slots the corpus admins'
# jobs run in: a plain worker (no -Q) takes from it like from any queue, and where the main
# workers leave it out (``-X users``) a worker of its own runs these jobs one at a time
# (``celery -A config worker -Q users -c 1``; ``serve_demo`` runs one).
USER_QUEUE = "users"
USER_JOB_KINDS = ("score_pairs",)
# The longest one score job may run (seconds): the users' own worker runs them one at a time,
# so without a bound one user's 10,000 long pairs would keep every other user's job waiting
# for hours. A job past it stops between two chunks and fails, saying how far it got.
SCORE_JOB_MAX_SECONDS = env_int("SCORE_JOB_MAX_SECONDS", 1800)
# The tasks a job hands its work to (an agreement report's Monte Carlo chunks and the chord's
# callback) wait in a queue of their own. In the default queue a report on a large corpus put
# some sixty chunks at once ahead of every job queued after it: an export or a corpus deletion
# of seconds waited the whole report (half an hour and more). A worker takes from its queues in
# turn (kombu's round robin), so with their own queue the chunks share the slots with the jobs
# queued meanwhile. Every worker that serves the default queue must serve this one too: a plain
# worker and the main ones (``-X users``) do.
CHUNK_QUEUE = "chunks"
# Pairs a prefill job's chunk task aligns and writes (the runner trains, the chunks align with
# the saved model): a supervised aligner takes about half a minute for 200 realistic pairs,
# long enough that loading the model and the task's overhead do not count. A smaller corpus
# is one chunk.
PREFILL_CHUNK_PAIRS = env_int("PREFILL_CHUNK_PAIRS", 200)
if PREFILL_CHUNK_PAIRS < 1:
    raise ImproperlyConfigured(f"PREFILL_CHUNK_PAIRS={PREFILL_CHUNK_PAIRS} must be 1 or more")
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = {
    name: {"routing_key": name}
    for name in (CELERY_TASK_DEFAULT_QUEUE, CHUNK_QUEUE, QUICK_QUEUE, USER_QUEUE)
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Workers lower their CPU priority to this niceness (0: leave it), so that on a machine shared
# with the web processes background jobs yield the CPU to the annotators' requests.
WORKER_NICE = env_int("WORKER_NICE", 10)
if not 0 <= WORKER_NICE <= 19:
    raise ImproperlyConfigured(f"WORKER_NICE={WORKER_NICE} must be between 0 and 19")
# A pool process keeps the memory of the largest job it ran: after a supervised prefill of a
# 22,659-pair corpus (2.9 GB at its peak) one stayed at 1.4 GB idle, and two such processes
# per worker stay so until the worker restarts. A pool process past this many MB after a task
# is replaced by a fresh one (Celery's worker_max_memory_per_child); 0: never. The bound is
# above what a corpus of about a thousand pairs leaves (1.4 GB after a supervised prefill of
# 800): such a process keeps the EM model and pair features its next retraining reuses, which
# halves that retraining.
WORKER_MAX_MEMORY_MB = env_int("WORKER_MAX_MEMORY_MB", 2048)
if WORKER_MAX_MEMORY_MB < 0:
    raise ImproperlyConfigured(
        f"WORKER_MAX_MEMORY_MB={WORKER_MAX_MEMORY_MB} must be 0 (no limit) or more"
    )
CELERY_WORKER_MAX_MEMORY_PER_CHILD = WORKER_MAX_MEMORY_MB * 1024 or None  # in KiB
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 3 * 3600)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3 * 3600 + 300)
# Redis hands a message nobody acknowledged to another worker once it has been out this long
# (an hour by default). Acknowledged late, a task's message is out for as long as it runs: the
# bound is past the longest run, so that no chunk of a report runs twice at once.
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# The largest upload the web import accepts (all files together); larger corpora are imported
# with `manage.py import_corpus`, which streams from disk.
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
# Where uploaded corpus files wait for their import job: storage every web process and worker
# shares (one machine: under var/; several: a shared mount). Uploads arrive in its incoming/
# folder, so storing one for its job is a rename, not a copy.
UPLOAD_DIR = Path(env_str("UPLOAD_DIR", str(VAR_DIR / "uploads")))
FILE_UPLOAD_TEMP_DIR = str(UPLOAD_DIR / "incoming")
Path(FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BODY_BYTES", 5 * 1024 * 1024)

# Where export jobs write their files for download: storage every worker and web process
# shares (one machine: under var/; several: a shared mount). Files older than EXPORT_KEEP_DAYS
# are removed by the periodic clean-up.
EXPORT_DIR = Path(env_str("EXPORT_DIR", str(VAR_DIR / "exports")))
EXPORT_KEEP_DAYS = env_int("EXPORT_KEEP_DAYS", 7)
# The supervised prefill's per-pair features, kept under EXPORT_DIR/feature-cache/ for every
# process that trains or aligns (scoring/aligners/feature_store.py), at most this many MB (its
# least recently used files go first); 0: not kept.
FEATURE_CACHE_MB = env_int("FEATURE_CACHE_MB", 1024)
if FEATURE_CACHE_MB < 0:
    raise ImproperlyConfigured(f"FEATURE_CACHE_MB={FEATURE_CACHE_MB} must be 0 (off) or more")

# Active time per assignment: a gap between two signs of activity longer than this is a pause.
ACTIVE_TIME_IDLE_SECONDS = env_int("ACTIVE_TIME_IDLE_SECONDS", 60)

# A running job whose worker has not written a heartbeat for this long is marked failed.
JOB_HEARTBEAT_TIMEOUT_SECONDS = env_int("JOB_HEARTBEAT_TIMEOUT_SECONDS", 120)
# A job handed to a Celery canvas (an agreement report's chunks) beats only while one of its
# tasks computes; while a worker of the chunks' queue is alive, it fails only after this long
# without a beat (counted from that worker's start at the latest): its tasks may queue behind
# other jobs, each stopped at its time limit. With none alive it waits, as a queued job does.
JOB_DEFERRED_TIMEOUT_SECONDS = env_int("JOB_DEFERRED_TIMEOUT_SECONDS", 2 * CELERY_TASK_TIME_LIMIT)
# How often such jobs are looked for: by Celery beat, and by the web process when the jobs are
# read (so a pool whose every worker died is still detected).
JOB_REAP_INTERVAL_SECONDS = env_int("JOB_REAP_INTERVAL_SECONDS", 30)

# A pending job whose message went to the broker this long ago (seconds) and that no worker has
# claimed while one is alive is sent again: its message was lost (a broker restarted without
# persistence) or no worker understood it (sent before an upgrade renamed the tasks). A job sent
# twice runs once. 0 turns this off.
JOB_RESEND_SECONDS = env_int("JOB_RESEND_SECONDS", 600)

# Every worker writes a sign of life this often (seconds); one not heard from for
# WORKER_ALIVE_SECONDS counts as gone, and the pages showing a queued job say that no worker is
# running (a worker that stops cleanly is gone at once). The pages poll every 1-2 s, so they say
# it within WORKER_ALIVE_SECONDS + 2 s of a worker being killed: 9 s, under the 10 s promised.
# A worker's beat may come up to WORKER_ALIVE_SECONDS - WORKER_HEARTBEAT_SECONDS late (a busy
# database) before it counts as gone.
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 2)
WORKER_ALIVE_SECONDS = env_int("WORKER_ALIVE_SECONDS", 7)
if not 1 <= WORKER_HEARTBEAT_SECONDS < WORKER_ALIVE_SECONDS:
    raise ImproperlyConfigured(
        f"WORKER_HEARTBEAT_SECONDS={WORKER_HEARTBEAT_SECONDS} must be at least 1 and below "
        f"WORKER_ALIVE_SECONDS={WORKER_ALIVE_SECONDS}"
    )

# Optional resources used by aligners and scorers (empty = feature reports it is unavailable).
PPDB_PATH = env_str("PPDB_PATH", "")
# A web process loads what scoring a pair needs (NLTK, WordNet, the tagger, the scorers' compiled
# kernels: seconds, and up to 400 MB) in a background thread: at start for the kinds of the
# stored models, and for the models the scorers page lists, so that no request waits for it.
# Off: the first score of each kind in each process loads it inside its request.
PRELOAD_SCORERS = env_bool("PRELOAD_SCORERS", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# How often beat looks for corpora whose learning prefill is due for retraining (the prefill
# tab says so once one is due).
PREFILL_RETRAIN_CHECK_SECONDS = env_int("PREFILL_RETRAIN_CHECK_SECONDS", 300)
# Beat's state file under var/, not in whatever directory beat was started from.
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    # In the quick lane: in the default queue it waited behind every queued export and prefill
    # while both slots were busy, and jobs of dead workers stayed "running" meanwhile.
    "reap-stale-jobs": {
        "task": "annotate.reap_stale_jobs",
        "schedule": float(JOB_REAP_INTERVAL_SECONDS),
        "options": {"queue": QUICK_QUEUE},
    },
    # Corpora with a learning prefill aligner: retrain once enough new pairs are finished.
    "retrain-prefills": {
        "task": "annotate.retrain_prefills",
        "schedule": float(PREFILL_RETRAIN_CHECK_SECONDS),
    },
    "clean-exports": {"task": "annotate.clean_exports", "schedule": 3600.0},
}
