"""A request that finds the database locked (another connection holds its write lock past the
busy timeout) answers 503 with Retry-After: JSON on the API, a page elsewhere; never a server
error, nor the 400 "session deleted" of a session that could not be saved."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.exceptions import SessionInterrupted
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError, connection, transaction
from django.test import Client
from rest_framework.test import APIClient

from annotate import roles
from annotate.exceptions import RETRY_AFTER_SECONDS, database_locked, exception_handler
from annotate.middleware import SEEN
from annotate.models import Corpus, Job
from tests.annotate.factories import make_assignment, make_user

LOCKED = "database is locked"


def _chained() -> SessionInterrupted:
    """What Django's session middleware raises when the session's save found the database
    locked: SessionInterrupted while handling UpdateError while handling the database's error."""
    update = UpdateError()
    update.__context__ = OperationalError(LOCKED)
    interrupted = SessionInterrupted("the session was deleted")
    interrupted.__context__ = update
    return interrupted


@pytest.mark.parametrize(
    ("error", "locked"),
    [
        (OperationalError(LOCKED), True),
        (OperationalError("database table is locked"), True),
        (_chained(), True),
        (OperationalError("no such table: annotate_corpus"), False),
        (SessionInterrupted("the session was deleted"), False),
        (ValueError(LOCKED), False),
    ],
)
def test_a_locked_database_is_told_from_other_errors(error: Exception, locked: bool) -> None:
    assert database_locked(error) is locked


def test_the_api_handler_answers_a_locked_database_503_with_retry_after() -> None:
    response = exception_handler(OperationalError(LOCKED), {})
    assert response is not None
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.data["error"]["code"] == "database_busy"
    assert "try again" in response.data["error"]["message"]


def test_the_api_handler_leaves_other_database_errors_alone() -> None:
    assert exception_handler(OperationalError("disk I/O error"), {}) is None


@contextmanager
def _write_lock_held() -> Iterator[threading.Event]:
    """Another connection holds the database's write lock until the event is set (the tests'
    SQLite shares its cache between connections, so the other writer is refused at once)."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Corpus.objects.create(name="held by another writer")
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    other = threading.Thread(target=hold)
    other.start()
    assert holding.wait(10), "the other connection did not take the lock"
    try:
        yield release
    finally:
        release.set()
        other.join(30)


@pytest.mark.django_db(transaction=True)
def test_an_annotation_save_that_finds_the_database_locked_answers_503_json() -> None:
    assignment = make_assignment()
    client = APIClient()
    client.force_authenticate(assignment.annotator)
    assert client.post(f"/api/assignments/{assignment.pk}/open/").status_code == 200
    url = f"/api/assignments/{assignment.pk}/annotation/"
    body = {"version": 1, "links": [[0, 0, "S"]]}
    with _write_lock_held():
        busy = client.put(url, body, format="json")
    assert busy.status_code == 503
    assert busy["Content-Type"] == "application/json"
    assert busy["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert busy.json()["error"]["code"] == "database_busy"
    assert client.put(url, body, format="json").status_code == 200, "sent again, it is saved"


@pytest.mark.django_db(transaction=True)
def test_a_page_post_that_finds_the_database_locked_answers_a_503_page(
    settings: Any, tmp_path: Any
) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    client = Client()
    client.force_login(make_user("root", roles.ADMIN))
    upload = SimpleUploadedFile("pairs.jsonl", b'{"id": "a", "source_tokens": ["x"]}')
    with _write_lock_held():
        response = client.post(
            "/corpora/import/", {"corpus": "c", "format": "jsonl", "files": [upload]}
        )
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response["Content-Type"].startswith("text/html")
    assert b"The database is busy" in response.content
    assert not Job.objects.exists()


def _locked_session_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Saving a session finds the database locked, as Django's database store reports it."""

    def save(self: SessionStore, must_create: bool = False) -> None:
        try:
            raise OperationalError(LOCKED)
        except OperationalError:
            if must_create:
                raise
            raise UpdateError from None

    monkeypatch.setattr(SessionStore, "save", save)


@pytest.mark.django_db
def test_a_session_whose_time_of_last_use_cannot_be_written_keeps_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the time of last use was to be written: the request's own work is done, so its
    answer goes out; the next request writes the time."""
    client = Client()
    client.force_login(make_user("alice", roles.ANNOTATOR))
    session = client.session
    session[SEEN] = int(time.time()) - 600
    session.save()
    _locked_session_saves(monkeypatch)
    response = client.get("/api/me/")
    assert response.status_code == 200
    assert response.json()["username"] == "alice"
    assert "Cookie" in response["Vary"]


@pytest.mark.django_db
def test_a_session_change_that_cannot_be_saved_answers_503(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the request put in the session is not stored: its answer would be a lie, so 503, to
    be sent again."""
    client = Client()
    client.force_login(make_user("alice", roles.ANNOTATOR))
    _locked_session_saves(monkeypatch)
    assert client.get("/api/me/").status_code == 200  # nothing to write: the time is fresh
    monkeypatch.setattr(
        "annotate.middleware.SessionTimeoutMiddleware.__call__",
        _changing_the_session,
    )
    busy = client.get("/api/me/")
    assert busy.status_code == 503
    assert busy["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert busy.json()["error"]["code"] == "database_busy"


def _changing_the_session(self: Any, request: Any) -> Any:
    request.session["something"] = "new"
    return self.get_response(request)
