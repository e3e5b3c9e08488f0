"""API rate limits per user and per address; anonymous calls are told to authenticate."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache, caches
from django.test import RequestFactory, override_settings
from rest_framework.test import APIClient

from annotate import roles, throttles
from annotate.models import Job
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


def test_an_anonymous_api_call_is_401_with_a_token_challenge() -> None:
    response = APIClient().get("/api/queue/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_user_over_the_rate_gets_429_with_retry_after(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "5/min", "anon": "100/min", "address": "100/min", "jobs": "100/min"},
    )
    client = APIClient()
    client.force_authenticate(make_user("alice", roles.ANNOTATOR))
    statuses = [client.get("/api/queue/").status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    response = client.get("/api/queue/")
    assert int(response["Retry-After"]) > 0
    other = APIClient()
    other.force_authenticate(make_user("bob", roles.ANNOTATOR))
    assert other.get("/api/queue/").status_code == 200  # per user


@pytest.mark.parametrize("forged", [False, True], ids=["plain", "forged X-Forwarded-For"])
def test_one_address_is_limited_across_accounts(monkeypatch: Any, forged: bool) -> None:
    """Without trusted proxies a client's own X-Forwarded-For does not start a fresh count."""
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "address": "4/min", "jobs": "100/min"},
    )
    statuses = []
    for n in range(6):
        headers = {"HTTP_X_FORWARDED_FOR": f"203.0.113.{n}"} if forged else {}
        client = APIClient(REMOTE_ADDR="10.1.1.1", **headers)
        client.force_authenticate(make_user(f"user{n}", roles.ANNOTATOR))
        statuses.append(client.get("/api/queue/").status_code)
    assert statuses == [200] * 4 + [429] * 2


def test_starting_jobs_has_its_own_rate_and_reads_are_not_counted(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "address": "100/min", "jobs": "3/min"},
    )
    from tests.annotate.factories import make_pair

    corpus_id = make_pair().corpus_id
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    for _ in range(5):
        assert client.get(f"/api/corpora/{corpus_id}/export/").status_code == 200
    statuses = []
    for k in range(5):
        response = client.post(
            f"/api/corpora/{corpus_id}/prefill/",
            {"aligner": "identity", "options": {"max_length": 100 + k}},
            format="json",
        )
        statuses.append(response.status_code)
        Job.objects.filter(kind="prefill").update(status=Job.Status.SUCCEEDED)  # one at a time
    assert statuses == [201, 201, 201, 429, 429]
    again = client.get(f"/api/corpora/{corpus_id}/export/")
    assert again.status_code == 200, "reads of a job-starting view are not counted"


def test_only_accepted_job_starts_count_against_the_job_rate(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "address": "100/min", "jobs": "3/min"},
    )
    from tests.annotate.factories import make_pair

    corpus_id = make_pair().corpus_id
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    path = f"/api/corpora/{corpus_id}/prefill/"
    for _ in range(5):
        refused = client.post(path, {"aligner": "no-such-aligner"}, format="json")
        assert refused.status_code == 400
        bad_option = {"aligner": "identity", "options": {"max_length": -1}}
        assert client.post(path, bad_option, format="json").status_code == 400
    make_user("alice", roles.ANNOTATOR)
    plan = {"annotators": ["alice"], "min_length": 500}  # no pair that long: refused
    for _ in range(5):
        assert (
            client.post(f"/api/corpora/{corpus_id}/assignments/", plan, format="json").status_code
            == 400
        )
    statuses = []
    for k in range(4):
        body = {"aligner": "identity", "options": {"max_length": 100 + k}}
        statuses.append(client.post(path, body, format="json").status_code)
        Job.objects.filter(kind="prefill").update(status=Job.Status.SUCCEEDED)
    assert statuses == [201, 201, 201, 429]


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.5", "10.0.0.9"),  # the header is ignored without trusted proxies
        (1, "198.18.0.1, 203.0.113.5", "203.0.113.5"),  # what the one proxy saw
        (2, "198.18.0.1, 203.0.113.5, 10.0.0.3", "203.0.113.5"),
        (3, "203.0.113.5", "203.0.113.5"),  # fewer entries than proxies: the first
        (1, "", "10.0.0.9"),  # not through the proxy
    ],
)
def test_the_client_address_trusts_only_the_configured_proxies(
    proxies: int, forwarded: str, expected: str
) -> None:
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(TRUSTED_PROXIES=proxies):
        assert throttles.client_address(request) == expected


def test_a_rate_window_is_one_small_entry_and_opens_again_when_it_ends(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "1000/min", "anon": "100/min", "address": "3/min", "jobs": "100/min"},
    )
    now = [1_000_000.0]
    monkeypatch.setattr(throttles.SimpleRateThrottle, "timer", lambda self: now[0])
    client = APIClient(REMOTE_ADDR="10.1.1.3")
    client.force_authenticate(make_user("carol", roles.ANNOTATOR))
    assert [client.get("/api/queue/").status_code for _ in range(4)] == [200, 200, 200, 429]
    assert cache.get("throttle-window:address:10.1.1.3") == (1_000_000.0, 3)
    now[0] += 59
    assert client.get("/api/queue/").status_code == 429
    now[0] += 1
    assert client.get("/api/queue/").status_code == 200


def test_sixty_six_anonymous_calls_get_429_once_the_anonymous_rate_is_spent() -> None:
    """DRF checks permissions before throttles; refused anonymous calls must count anyway."""
    client = APIClient(REMOTE_ADDR="10.2.2.2")
    responses = [client.get("/api/queue/") for _ in range(66)]
    assert [r.status_code for r in responses] == [401] * 60 + [429] * 6  # the default 60/min
    assert int(responses[-1]["Retry-After"]) > 0
    other = APIClient(REMOTE_ADDR="10.2.2.3")
    assert other.get("/api/queue/").status_code == 401  # per address


def test_calls_refused_for_want_of_a_role_are_counted_once_each(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "3/min", "anon": "100/min", "address": "100/min", "jobs": "100/min"},
    )
    client = APIClient()
    client.force_authenticate(make_user("alice", roles.ANNOTATOR))
    statuses = [client.get("/api/users/").status_code for _ in range(5)]
    assert statuses == [403, 403, 403, 429, 429]


class _SlowCache:
    """The default cache, each read taking a moment: the time between a count's read and its
    write in which requests sent together used to read the same count."""

    def __getattr__(self, name: str) -> Any:
        return getattr(caches["default"], name)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        value = caches["default"].get(*args, **kwargs)
        time.sleep(0.02)
        return value


@pytest.mark.parametrize("backend", ["locmem", "file"])
def test_requests_sent_together_are_counted_one_after_another(
    monkeypatch: Any, tmp_path: Path, backend: str
) -> None:
    """Each count read the window, then wrote it one higher: requests sent at once all read
    the same count (90 of 90 scoring requests, 60 at a time, passed a limit of 30 a minute)."""
    locations = {
        "locmem": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "file": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "cache"),
        },
    }
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "address": "100/min", "score": "5/min"},
    )
    monkeypatch.setattr(throttles.SimpleRateThrottle, "cache", _SlowCache())
    user = SimpleNamespace(pk=7, is_authenticated=True)
    start = threading.Barrier(20)

    def one(_: int) -> bool:
        request = SimpleNamespace(user=user, META={"REMOTE_ADDR": "10.3.3.3"}, method="POST")
        start.wait()
        return throttles.ScoreRateThrottle().allow_request(request, None)

    with override_settings(CACHES={"default": locations[backend]}):
        with ThreadPoolExecutor(20) as pool:
            allowed = list(pool.map(one, range(20)))
        assert sum(allowed) == 5
        key = "throttle-window:score:7"
        assert caches["default"].get(key)[1] == 5


def test_on_redis_a_count_holds_a_redis_lock_of_its_key(monkeypatch: Any) -> None:
    from django.core.cache.backends.redis import RedisCache

    events: list[str] = []

    class Lock:
        def __init__(self, name: str, **options: Any) -> None:
            events.append(f"lock {name} {options['timeout']}")

        def acquire(self) -> bool:
            events.append("acquire")
            return True

        def release(self) -> None:
            events.append("release")

    backend = RedisCache("redis://127.0.0.1:1/0", {"KEY_PREFIX": "wb"})
    monkeypatch.setattr(backend._cache, "get_client", lambda *a, **k: SimpleNamespace(lock=Lock))
    with throttles.counting(backend, "throttle-window:score:7"):
        events.append("count")
    assert events == [
        f"lock wb:1:throttle-window:score:7:count-lock {throttles.REDIS_LOCK_SECONDS}",
        "acquire",
        "count",
        "release",
    ]


def test_job_starts_sent_together_never_pass_the_rate_when_some_are_refused(
    monkeypatch: Any,
) -> None:
    """Each start is counted when let in and given back when its answer is an error, both
    under the count's lock: whatever the interleaving, at most the rate are accepted and the
    count is the accepted starts."""
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "address": "100/min", "jobs": "5/min"},
    )
    monkeypatch.setattr(throttles.SimpleRateThrottle, "cache", _SlowCache())
    user = SimpleNamespace(pk=8, is_authenticated=True)
    start = threading.Barrier(30)

    def one(k: int) -> bool:
        request = SimpleNamespace(user=user, META={"REMOTE_ADDR": "10.3.3.4"}, method="POST")
        start.wait()
        if not throttles.JobRateThrottle().allow_request(request, None):
            return False
        accepted = k % 3 != 0  # every third start is refused by the view
        throttles.job_start_settle(request, accepted=accepted)
        throttles.job_start_settle(request, accepted=accepted)  # once only
        return accepted

    with ThreadPoolExecutor(30) as pool:
        accepted = sum(pool.map(one, range(30)))
    count = cache.get("throttle-window:jobs:8")[1]
    assert count == accepted and 1 <= accepted <= 5
