"""``make demo``'s loader: sample corpus, users of every role, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.test import RequestFactory

from annotate import roles
from annotate.models import Assignment, AutoAlignment, GoldAlignment, SentencePair
from annotate.services.demo import demo_setup

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _var(settings, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path


def test_it_loads_the_sample_corpus_in_three_subcorpora_with_a_prefill() -> None:
    report = demo_setup()
    pairs = SentencePair.objects.filter(corpus__name="sample")
    assert report.pairs == pairs.count() >= 30
    assert set(pairs.values_list("subcorpus", flat=True)) == {"news", "mtc", "novels"}
    assert AutoAlignment.objects.filter(pair__in=pairs).count() == pairs.count()
    trial = pairs.filter(split="trial")
    assert trial.exists()
    assert GoldAlignment.objects.filter(pair__in=trial).count() == trial.count()


def test_it_creates_a_user_of_every_role_who_can_log_in() -> None:
    report = demo_setup()
    for username, role in (("admin", "admin"), ("alice", "annotator"), ("carol", "adjudicator")):
        request = RequestFactory().post("/login/")
        user = authenticate(request, username=username, password=report.credentials[username])
        assert user is not None and roles.has_role(user, role)
    assert Assignment.objects.filter(annotator__username="alice").count() == report.pairs


def test_a_second_run_changes_nothing_and_keeps_the_passwords() -> None:
    first = demo_setup()
    counts = (SentencePair.objects.count(), Assignment.objects.count())
    second = demo_setup()
    assert not second.corpus_created
    assert second.credentials == first.credentials
    assert (SentencePair.objects.count(), Assignment.objects.count()) == counts
