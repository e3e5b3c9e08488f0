"""Browser-test fixtures: Debian's chromium through Playwright (no browser downloads)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "var" / "screenshots"

# The test database is in-memory SQLite, one connection shared by the test thread and the live
# server's request threads. Two requests interleaving on it (two pages, a save and a heartbeat)
# or a request still running while the test flushes the tables fails with "database table is
# locked". The live server therefore handles one request at a time, under this lock, and tests
# take it before touching the database while pages may be talking to the server.
SERVER_LOCK = threading.RLock()
# Cleared when a test's pages are closed: a request a closing page still sends (an autosave
# flushed on unload) is answered 503 instead of writing while the test's tables are flushed
# (seen as "FOREIGN KEY constraint failed" at teardown). Set again at the start of every test.
ACCEPTING = threading.Event()


def _serialised_server_class() -> type:
    from django.core.servers.basehttp import ThreadedWSGIServer

    class SerialisedWSGIServer(ThreadedWSGIServer):
        def set_app(self, application: Any) -> None:
            def serialised(environ: Any, start_response: Any) -> list[bytes]:
                with SERVER_LOCK:
                    if not ACCEPTING.is_set():
                        start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
                        return [b"the test is over"]
                    response = application(environ, start_response)
                    try:
                        return [bytes(chunk) for chunk in response]
                    finally:
                        close = getattr(response, "close", None)
                        if close is not None:
                            close()

            super().set_app(serialised)

    return SerialisedWSGIServer


@pytest.fixture(scope="session")
def live_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    """pytest-django's live server, handling one request at a time (see SERVER_LOCK)."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("localhost", start=False)
    server.thread.server_class = _serialised_server_class()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        raise FileNotFoundError(
            f"{CHROMIUM} is missing; install Debian's chromium (`make browsers`)"
        )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in the test thread for as long as the browser
    # lives, while the tests' own ORM calls (and pytest-django's flushes) stay synchronous;
    # Django's async-safety guard is relaxed from here to the end of the session.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield instance
            instance.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def eager_jobs(settings: Any) -> Any:
    """Jobs run inside the request that queues them (no worker in the unit suite)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# Reports every Content-Security-Policy violation of every document a page loads to the test.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} `
    + `at ${e.sourceFile || document.location.pathname}:${e.lineNumber}`);
});
"""


def watched_context(browser: Any, **options: Any) -> Any:
    """A browser context whose pages (opened with :func:`watched_page`) record script errors
    (``page.js_errors``) and Content-Security-Policy violations (``context.csp_violations``, from
    each document's ``securitypolicyviolation`` events and from the console, where Chromium
    reports them)."""
    context = browser.new_context(**options)
    violations: list[str] = []
    context.expose_function("__cspViolation", lambda text: violations.append(text))
    context.add_init_script(_CSP_LISTENER)
    context.csp_violations = violations
    return context


def watched_page(context: Any) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            context.csp_violations.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )
    page.js_errors = errors
    page.csp_violations = context.csp_violations
    return page


def stored_in_browser(page: Any, key: str) -> list[dict[str, Any]]:
    """The copies of unsent work that the tabs of the page's browser keep for the pair ``key``."""
    return page.evaluate(
        """key => Object.keys(localStorage)
            .filter((name) => name === key || name.startsWith(`${key}:`))
            .map((name) => JSON.parse(localStorage.getItem(name)))""",
        key,
    )


@pytest.fixture
def page_for(browser: Any, live_server: Any, fast_passwords: None) -> Iterator[Callable[..., Any]]:
    """``page_for(user)`` → a Playwright page logged in as ``user`` (a session cookie). At the
    end of the test no page may have broken the Content-Security-Policy."""
    from django.conf import settings
    from django.test import Client

    contexts = []

    def make(user: Any, viewport: tuple[int, int] = (1400, 1000)) -> Any:
        client = Client()
        client.force_login(user)
        context = watched_context(browser, viewport={"width": viewport[0], "height": viewport[1]})
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        contexts.append(context)
        page = watched_page(context)
        page.set_default_timeout(10_000)
        return page

    yield make
    violations = [v for context in contexts for v in context.csp_violations]
    for context in contexts:
        context.close()
    with SERVER_LOCK:  # a request in flight finishes; later ones are refused
        ACCEPTING.clear()
    assert violations == [], "Content-Security-Policy violations"


@pytest.fixture(autouse=True)
def _server_accepts_requests() -> None:
    ACCEPTING.set()
