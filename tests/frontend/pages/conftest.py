"""Fixtures of the page tests."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate import roles
from tests.annotate.factories import make_user


@pytest.fixture
def admin_client() -> Client:
    """A client signed in as a corpus admin (this project's role, not a Django superuser)."""
    client = Client()
    client.force_login(make_user("admin", roles.ADMIN))
    return client
