"""The login page: throttled per account and address and per address, clear message, success
clears."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import F
from django.test import Client, override_settings

from annotate import roles
from annotate.models import LoginAttempts
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Password-1"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR, password=PASSWORD)


@pytest.fixture
def staff() -> Any:
    """A superuser, who can use the Django admin's login."""
    return get_user_model().objects.create_superuser("boss", password=PASSWORD)


def _login(client: Client, username: str, password: str, address: str = "10.0.0.1") -> Any:
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def _admin_login(client: Client, username: str, password: str, address: str = "10.0.0.1") -> Any:
    return client.post(
        "/admin/login/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


@override_settings(LOGIN_MAX_FAILURES=5)
def test_thirty_wrong_passwords_lock_the_account_even_for_the_right_one(alice: Any) -> None:
    client = Client()
    statuses = [_login(client, "alice", f"wrong-{n}").status_code for n in range(30)]
    assert statuses[:5] == [200] * 5  # the form again, with its error
    assert set(statuses[5:]) == {429}
    response = _login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session


@override_settings(LOGIN_MAX_FAILURES=5)
def test_failures_from_one_address_do_not_lock_the_account_out_from_another(alice: Any) -> None:
    for n in range(5):
        _login(Client(), "alice", f"wrong-{n}", address="203.0.113.66")
    assert _login(Client(), "alice", PASSWORD, address="203.0.113.66").status_code == 429
    assert _login(Client(), "alice", "wrong-again", address="203.0.113.66").status_code == 429
    client = Client()
    assert _login(client, "alice", PASSWORD, address="10.9.9.9").status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)
    assert _login(Client(), "alice", PASSWORD, address="203.0.113.66").status_code == 429


@override_settings(LOGIN_MAX_FAILURES=5, LOGIN_MAX_FAILURES_PER_ADDRESS=12)
def test_a_guesser_gets_a_few_tries_per_account_and_the_address_limit_in_all(alice: Any) -> None:
    make_user("bob", roles.ANNOTATOR, password=PASSWORD)
    address = "203.0.113.67"
    statuses = [_login(Client(), "alice", f"a-{n}", address=address).status_code for n in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    statuses = [_login(Client(), "bob", f"b-{n}", address=address).status_code for n in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    assert _login(Client(), "carol", "guess", address=address).status_code == 200
    assert _login(Client(), "dave", "guess", address=address).status_code == 200  # 12 failures
    assert _login(Client(), "erin", "guess", address=address).status_code == 429
    assert _login(Client(), "bob", PASSWORD, address="10.0.0.5").status_code == 302


@override_settings(LOGIN_MAX_FAILURES=5, LOGIN_MAX_FAILURES_PER_ADDRESS=5)
def test_one_address_spraying_many_accounts_is_locked(alice: Any) -> None:
    for n in range(5):
        _login(Client(), f"user{n}", "guess", address="10.0.0.7")
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.7").status_code == 429
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.8").status_code == 302


@override_settings(LOGIN_MAX_FAILURES=5)
def test_a_success_clears_the_account_count(alice: Any) -> None:
    client = Client()
    for n in range(4):
        _login(client, "alice", f"wrong-{n}")
    assert _login(client, "alice", PASSWORD).status_code == 302
    for n in range(4):
        assert _login(Client(), "alice", f"wrong-{n}").status_code == 200


@override_settings(LOGIN_MAX_FAILURES=2, LOGIN_LOCKOUT_SECONDS=60)
def test_the_lock_ends_after_the_lockout(alice: Any) -> None:
    for n in range(2):
        _login(Client(), "alice", f"wrong-{n}")
    assert _login(Client(), "alice", PASSWORD).status_code == 429
    LoginAttempts.objects.update(last_attempt_at=F("last_attempt_at") - timedelta(seconds=61))
    assert _login(Client(), "alice", PASSWORD).status_code == 302


@override_settings(LOGIN_MAX_FAILURES=5, LOGIN_MAX_FAILURES_PER_ADDRESS=50)
def test_a_team_behind_one_address_does_not_lock_itself_out_with_typos(alice: Any) -> None:
    for n in range(12):  # twelve colleagues, one typo each
        make_user(f"colleague{n}", roles.ANNOTATOR, password=PASSWORD)
        assert _login(Client(), f"colleague{n}", "typo", address="192.0.2.1").status_code == 200
    assert _login(Client(), "alice", PASSWORD, address="192.0.2.1").status_code == 302


@override_settings(LOGIN_MAX_FAILURES=100, LOGIN_MAX_FAILURES_PER_ADDRESS=3, TRUSTED_PROXIES=0)
def test_a_forged_forwarded_for_header_does_not_escape_the_address_lock(alice: Any) -> None:
    for n in range(3):
        Client().post(
            "/login/",
            {"username": f"user{n}", "password": "guess"},
            REMOTE_ADDR="198.51.100.9",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
        )
    forged = Client().post(
        "/login/",
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="198.51.100.9",
        HTTP_X_FORWARDED_FOR="203.0.113.77",
    )
    assert forged.status_code == 429


@override_settings(LOGIN_MAX_FAILURES=100, LOGIN_MAX_FAILURES_PER_ADDRESS=3, TRUSTED_PROXIES=1)
def test_behind_a_trusted_proxy_each_client_address_counts_apart(alice: Any) -> None:
    def through_proxy(username: str, password: str, client_ip: str) -> Any:
        return Client().post(
            "/login/",
            {"username": username, "password": password},
            REMOTE_ADDR="10.0.0.254",  # the proxy
            HTTP_X_FORWARDED_FOR=f"198.18.0.1, {client_ip}",  # a forged entry, then the real one
        )

    for n in range(3):
        through_proxy(f"user{n}", "guess", "198.51.100.20")
    assert through_proxy("alice", PASSWORD, "198.51.100.20").status_code == 429
    assert through_proxy("alice", PASSWORD, "198.51.100.21").status_code == 302


@override_settings(LOGIN_MAX_FAILURES=5)
def test_an_account_locked_on_the_login_page_is_locked_on_the_admin_login_too(staff: Any) -> None:
    for n in range(5):
        _login(Client(), "boss", f"wrong-{n}")
    client = Client()
    response = _admin_login(client, "boss", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session


@override_settings(LOGIN_MAX_FAILURES=5)
def test_an_account_locked_on_the_admin_login_is_locked_on_the_login_page_too(staff: Any) -> None:
    statuses = [_admin_login(Client(), "boss", f"wrong-{n}").status_code for n in range(12)]
    assert statuses[:5] == [200] * 5
    assert set(statuses[5:]) == {429}
    assert _admin_login(Client(), "boss", PASSWORD).status_code == 429
    assert _login(Client(), "boss", PASSWORD).status_code == 429


@override_settings(LOGIN_MAX_FAILURES=100, LOGIN_MAX_FAILURES_PER_ADDRESS=50)
def test_the_admin_login_is_limited_per_address(staff: Any) -> None:
    statuses = [
        _admin_login(Client(), f"guess{n}", "guess", address="198.51.100.4").status_code
        for n in range(55)
    ]
    assert statuses[:50] == [200] * 50
    assert set(statuses[50:]) == {429}
    assert _admin_login(Client(), "boss", PASSWORD, address="198.51.100.4").status_code == 429
    assert _admin_login(Client(), "boss", PASSWORD, address="198.51.100.5").status_code == 302


def test_a_success_on_the_admin_login_clears_the_account_count(staff: Any) -> None:
    for n in range(4):
        _admin_login(Client(), "boss", f"wrong-{n}")
    assert _admin_login(Client(), "boss", PASSWORD).status_code == 302
    for n in range(4):
        assert _login(Client(), "boss", f"wrong-{n}").status_code == 200


@override_settings(LOGIN_MAX_FAILURES=5)
@pytest.mark.parametrize(
    "variant",
    ["ａｌｉｃｅ", "𝖺𝗅𝗂𝖼𝖾", "ALICE", "Ａlice", " alice"],
    ids=["fullwidth", "mathematical", "upper case", "mixed", "leading space"],
)
def test_look_alike_spellings_share_the_lock_of_the_account(alice: Any, variant: str) -> None:
    for n in range(5):
        _login(Client(), "alice", f"wrong-{n}")
    client = Client()
    assert _login(client, variant, PASSWORD).status_code == 429
    assert "_auth_user_id" not in client.session


@override_settings(LOGIN_MAX_FAILURES=5)
def test_failures_under_look_alike_spellings_add_up(alice: Any) -> None:
    for n, variant in enumerate(["ａｌｉｃｅ", "𝖺𝗅𝗂𝖼𝖾", "ALICE", "alice", "Alice"]):
        assert _login(Client(), variant, f"wrong-{n}").status_code == 200
    assert _login(Client(), "alice", PASSWORD).status_code == 429


@override_settings(LOGIN_MAX_FAILURES=5)
def test_the_fullwidth_spelling_still_logs_the_account_in_when_it_is_not_locked(
    alice: Any,
) -> None:
    """Django's login form reads ``ａｌｉｃｅ`` as ``alice`` (NFKC): the lockout counts it there."""
    client = Client()
    assert _login(client, "ａｌｉｃｅ", PASSWORD).status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


@override_settings(LOGIN_MAX_FAILURES=5)
def test_the_reset_command_lifts_the_lock_of_an_account_under_any_spelling(alice: Any) -> None:
    for address in ("10.0.0.1", "10.0.0.2"):
        for n in range(5):
            _login(Client(), "alice", f"wrong-{n}", address=address)
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.1").status_code == 429
    out = io.StringIO()
    call_command("axes_reset_username", "ＡＬＩＣＥ", stdout=out)
    assert "2 attempts removed" in out.getvalue()  # its count from each address
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.1").status_code == 302
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.2").status_code == 302


@override_settings(LOGIN_MAX_FAILURES=5, LOGIN_MAX_FAILURES_PER_ADDRESS=5)
def test_the_reset_command_lifts_the_lock_of_an_address(alice: Any) -> None:
    for n in range(5):
        _login(Client(), f"user{n}", "guess", address="10.0.0.7")
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.7").status_code == 429
    out = io.StringIO()
    call_command("axes_reset_ip", "10.0.0.7", stdout=out)
    assert "6 attempts removed" in out.getvalue()  # the address's count, each account's from it
    assert _login(Client(), "alice", PASSWORD, address="10.0.0.7").status_code == 302
