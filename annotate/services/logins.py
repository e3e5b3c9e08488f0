"""The login lockout: after ``LOGIN_MAX_FAILURES`` failed logins for one account from one
address, or ``LOGIN_MAX_FAILURES_PER_ADDRESS`` from one address to any accounts, further tries
from that address are refused until ``LOGIN_LOCKOUT_SECONDS`` have passed since the last
counted one.

The account's count is kept per address, so someone failing an annotator's login elsewhere does
not lock the annotator out; a guesser is still held to a few tries per account and address,
and a sprayer trying many accounts from one address to the address's limit. The address allows
more failures than an account: a team behind one office address shares it, and their typos must
not lock each other out. (A guesser with many addresses gets that many times the account's
limit: the price of nobody being able to lock a user out from afar.)

Every way into an account goes through here: django-axes' authentication backend calls
:func:`login_try_begin` inside ``django.contrib.auth.authenticate`` (our login page, the Django
admin's, anything else that authenticates), see :mod:`annotate.lockout`.

A try is counted *before* its password is checked, in one transaction that locks the account's
and the address's rows, so of any number of tries sent in parallel at most the limit reach the
password check. A success takes its try back (:func:`login_try_succeeded`): it clears the
account's count from that address and removes its one from the address's. So a count is the
window's failures plus the tries whose password is being checked. The counts live in the
database, which every web process shares and whose row locks make the count exact on SQLite and
PostgreSQL alike.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotate.models import LoginAttempts


def login_username_key(username: str) -> str:
    """The form of a username that its failures are counted under: NFKC-normalised (as Django's
    login form normalises the username it authenticates), case-folded and stripped, so that
    ``ALICE``, ``ａｌｉｃｅ`` (fullwidth) and ``𝖺𝗅𝗂𝖼𝖾`` (mathematical) share alice's count."""
    folded = unicodedata.normalize("NFKC", username).casefold()
    return unicodedata.normalize("NFKC", folded).strip()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _account_key(username: str) -> str:
    return _digest(f"user:{login_username_key(username)}")


def _address_key(address: str) -> str:
    return _digest(f"address:{address}")


def _pair_key(username: str, address: str) -> str:
    return _digest(f"user:{login_username_key(username)}\naddress:{address}")


def _rows(username: str, address: str, now: datetime) -> dict[str, LoginAttempts]:
    """The two counts a try adds to, by key, as new rows: the account's from this address and
    the address's."""
    where = _address_key(address)
    return {
        _pair_key(username, address): LoginAttempts(
            key=_pair_key(username, address),
            account=_account_key(username),
            address=where,
            count=0,
            last_attempt_at=now,
        ),
        where: LoginAttempts(key=where, address=where, count=0, last_attempt_at=now),
    }


def _limits(username: str, address: str) -> dict[str, int]:
    return {
        _pair_key(username, address): settings.LOGIN_MAX_FAILURES,
        _address_key(address): settings.LOGIN_MAX_FAILURES_PER_ADDRESS,
    }


def _window() -> timedelta:
    return timedelta(seconds=settings.LOGIN_LOCKOUT_SECONDS)


def _expired_delete(before: datetime) -> None:
    """Remove counts whose window has ended. Rows another transaction holds are skipped, not
    waited for, so this never takes part in a lock wait (and never in a deadlock)."""
    with transaction.atomic():
        stale = list(
            LoginAttempts.objects.select_for_update(skip_locked=True)
            .filter(last_attempt_at__lte=before)
            .values_list("pk", flat=True)[:1000]
        )
        if stale:
            LoginAttempts.objects.filter(pk__in=stale).delete()


def login_try_begin(*, username: str, address: str) -> int:
    """Count a login try of ``username`` from ``address`` before its password is checked, or
    refuse it: the seconds until a try is allowed again, 0 when this one was counted.

    A refused try is not counted: it does not move the end of the lockout."""
    now = timezone.now()
    start = now - _window()
    _expired_delete(start)
    limits = _limits(username, address)
    with transaction.atomic():
        # Create missing rows first so that two first tries lock the same row.
        fresh = _rows(username, address, now)
        LoginAttempts.objects.bulk_create(
            [fresh[key] for key in sorted(limits)], ignore_conflicts=True
        )
        rows = list(
            LoginAttempts.objects.select_for_update().filter(key__in=limits).order_by("key")
        )
        waits = []
        for row in rows:
            if row.last_attempt_at <= start:
                row.count = 0
            if row.count >= limits[row.key]:
                waits.append((row.last_attempt_at - start).total_seconds())
        if waits:
            LoginAttempts.objects.filter(key__in=limits, count=0).delete()
            return max(1, math.ceil(max(waits)))
        for row in rows:
            row.count += 1
            row.last_attempt_at = now
        LoginAttempts.objects.bulk_update(rows, ["count", "last_attempt_at"])
    return 0


@transaction.atomic
def login_try_succeeded(*, username: str, address: str) -> None:
    """A try counted by :func:`login_try_begin` logged in: the account's count from this
    address is cleared and the address's loses this try (a success is not a failure)."""
    LoginAttempts.objects.filter(key=_pair_key(username, address)).delete()
    LoginAttempts.objects.filter(key=_address_key(address), count__gt=0).update(
        count=F("count") - 1
    )


def login_failures(*, username: str, address: str) -> int:
    """The larger of the account's count from the address and the address's count in the
    current window."""
    start = timezone.now() - _window()
    counts = LoginAttempts.objects.filter(
        key__in=_limits(username, address), last_attempt_at__gt=start
    ).values_list("count", flat=True)
    return max(counts, default=0)


@transaction.atomic
def login_attempts_clear(*, username: str | None = None, address: str | None = None) -> int:
    """Lift the lockout of an account (from every address), of an address (for every
    account) or both; returns how many counts were removed (``manage.py axes_reset_username
    NAME`` and ``axes_reset_ip ADDRESS`` call this)."""
    rows = LoginAttempts.objects.none()
    if username is not None:
        rows |= LoginAttempts.objects.filter(account=_account_key(username))
    if address is not None:
        rows |= LoginAttempts.objects.filter(address=_address_key(address))
    removed, _ = rows.delete()
    return removed
