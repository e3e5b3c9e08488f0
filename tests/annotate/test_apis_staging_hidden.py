"""An import writes its pairs into a hidden staging corpus, batch by batch, and hands them to
the corpus at the end, or deletes them all when it fails or is cancelled. Until then nothing of
it is reached by its address: a gold or an annotation saved on a staged pair (ids are
sequential) would be deleted with it, and the pair was not imported yet."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Corpus, GoldAlignment
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staged() -> tuple[int, int]:
    """A staged pair and an annotator's assignment on it, as an import in progress writes them:
    its pair id and the assignment id."""
    staging = Corpus.all_objects.create(
        name="importing 0123", importing=True, archived_at=timezone.now()
    )
    pair = make_pair(staging)
    assignment = make_assignment(pair, make_user("alice", roles.ANNOTATOR))
    return pair.pk, assignment.pk


def _api(username: str, role: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(username, role))
    return client


def test_an_adjudicator_neither_reads_nor_saves_the_gold_of_a_staged_pair(
    staged: tuple[int, int],
) -> None:
    pair_id, _ = staged
    carol = _api("carol", roles.ADJUDICATOR)
    assert carol.get(f"/api/pairs/{pair_id}/adjudication/").status_code == 404
    saved = carol.put(f"/api/pairs/{pair_id}/gold/", {"version": 0, "links": [[0, 0, "S"]]})
    assert saved.status_code == 404
    assert carol.get(f"/api/pairs/{pair_id}/gold/events/").status_code == 404
    assert not GoldAlignment.objects.exists()
    page = Client()
    page.force_login(make_user("dave", roles.ADJUDICATOR))
    assert page.get(f"/adjudicate/{pair_id}/").status_code == 404


def test_an_annotator_does_not_open_a_staged_assignment(staged: tuple[int, int]) -> None:
    _, assignment_id = staged
    alice = APIClient()
    alice.force_authenticate(get_user_model().objects.get(username="alice"))
    assert alice.post(f"/api/assignments/{assignment_id}/open/").status_code == 404
    assert alice.get("/api/queue/").json()["total"] == 0
