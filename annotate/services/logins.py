"""Login throttling: after ``LOGIN_MAX_FAILURES`` wrong passwords for one account, or
``LOGIN_MAX_FAILURES_PER_ADDRESS`` from one address, further tries are refused for
``LOGIN_LOCKOUT_SECONDS``.

Counting both keys stops a password guesser on one account from any address and a sprayer trying
many accounts from one address. The address allows more failures than an account: a team behind
one office address shares it, and their typos must not lock each other out. Counts live in the
shared cache; each failure restarts the window, a success clears the account's count (not the
address's).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache


def _keys(username: str, address: str) -> list[str]:
    # Hash both: cache keys must be short and free of control characters.
    account = hashlib.sha256(username.strip().lower().encode("utf-8")).hexdigest()[:32]
    where = hashlib.sha256(address.encode("utf-8")).hexdigest()[:32]
    return [f"login-fail:user:{account}", f"login-fail:addr:{where}"]


def login_seconds_locked(*, username: str, address: str) -> int:
    """Seconds until the next try is allowed; 0 when it is allowed now."""
    now = time.time()
    limits = (settings.LOGIN_MAX_FAILURES, settings.LOGIN_MAX_FAILURES_PER_ADDRESS)
    waits = []
    for key, limit in zip(_keys(username, address), limits, strict=True):
        entry = cache.get(key)
        if entry and entry[0] >= limit:
            waits.append(int(entry[1] + settings.LOGIN_LOCKOUT_SECONDS - now) + 1)
    return max([0, *waits])


def login_failed(*, username: str, address: str) -> None:
    now = time.time()
    for key in _keys(username, address):
        count = (cache.get(key) or (0, now))[0]
        cache.set(key, (count + 1, now), timeout=settings.LOGIN_LOCKOUT_SECONDS)


def login_succeeded(*, username: str, address: str) -> None:
    cache.delete(_keys(username, address)[0])
