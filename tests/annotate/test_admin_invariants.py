"""The Django admin changes nothing the services keep consistent: a superuser's form posts that
moved work between accounts and pairs, hid a corpus as an import's staging corpus (for the
clean-up of dead imports to delete), or made a job the workers would run, change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotate import roles
from annotate.models import (
    Annotation,
    Assignment,
    AutoAlignment,
    Corpus,
    Job,
    ScorerModel,
    SentencePair,
)
from annotate.services.annotations import annotation_open, annotation_save
from annotate.services.corpora import corpus_imports_abandoned_clean
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def root() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "x"))
    return client


def _url(model: str, action: str, *args: int) -> str:
    return reverse(f"admin:annotate_{model}_{action}", args=args)


def _deleted(client: Client, model: str, pk: int) -> int:
    """The status of the confirmed deletion of row ``pk`` on its delete page."""
    return client.post(_url(model, "delete", pk), {"post": "yes"}).status_code


def test_ticking_importing_on_a_corpus_neither_hides_it_nor_lets_the_clean_up_delete_it(
    root: Client,
) -> None:
    corpus = make_corpus("kept")
    assignment = make_assignment(make_pair(corpus))
    archived = timezone.now() - timedelta(days=2)
    Corpus.objects.filter(pk=corpus.pk).update(archived_at=archived)
    response = root.post(
        _url("corpus", "change", corpus.pk),
        {
            "name": "kept",
            "description": "",
            "importing": "on",
            "archived_at_0": "",
            "archived_at_1": "",
            "prefill_aligner": "",
            "prefill_retrain_every": "3",
            "queue_order": "least_sure",
        },
    )
    assert response.status_code == 302
    assert corpus_imports_abandoned_clean() == 0
    kept = Corpus.objects.get(pk=corpus.pk)
    assert (kept.importing, kept.archived_at) == (False, archived)
    assert (kept.prefill_retrain_every, kept.queue_order) == (25, "position")
    assert Assignment.objects.filter(pk=assignment.pk).exists()


def test_a_corpus_renamed_in_the_admin_gets_the_corpus_name_rule(root: Client) -> None:
    corpus = make_corpus("plain")
    response = root.post(
        _url("corpus", "change", corpus.pk), {"name": "evil\u202ename", "description": ""}
    )
    assert response.status_code == 200
    assert "U+202E" in response.content.decode()
    assert Corpus.objects.get(pk=corpus.pk).name == "plain"


def test_a_pair_keeps_its_corpus_split_and_sub_corpus_and_is_neither_added_nor_deleted(
    root: Client,
) -> None:
    pair = make_pair(split="train")
    assignment = make_assignment(pair)
    corpus_id = pair.corpus_id
    other = make_corpus("other")
    response = root.post(
        _url("sentencepair", "change", pair.pk),
        {
            "corpus": other.pk,
            "external_id": "renamed",
            "subcorpus": "news",
            "split": "test",
            "source_text": pair.source_text,
            "target_text": pair.target_text,
            "gold_score": "",
            "gold_label": "",
            "metadata": "{}",
        },
    )
    assert response.status_code == 302
    pair.refresh_from_db()
    assert (pair.corpus_id, pair.split, pair.subcorpus) == (corpus_id, "train", "")
    assert pair.external_id == "renamed"
    assert root.get(_url("sentencepair", "add")).status_code == 403
    assert _deleted(root, "sentencepair", pair.pk) == 403
    assert Assignment.objects.filter(pk=assignment.pk).exists()


def test_an_assignment_is_neither_moved_added_nor_deleted_in_the_admin(root: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    outsider = make_user("outsider")
    assignment = make_assignment(make_pair(), alice)
    annotation_open(assignment=assignment, actor=alice)
    other_pair = make_pair(source="a b", target="c d", prefill=None)
    moved = root.post(
        _url("assignment", "change", assignment.pk),
        {
            "pair": other_pair.pk,
            "annotator": outsider.pk,
            "started_at_0": "",
            "started_at_1": "",
            "last_activity_at_0": "",
            "last_activity_at_1": "",
            "active_seconds": "0",
        },
    )
    assert moved.status_code == 403
    assert root.get(_url("assignment", "add")).status_code == 403
    assert _deleted(root, "assignment", assignment.pk) == 403
    bulk = root.post(
        _url("assignment", "changelist"),
        {"action": "delete_selected", "_selected_action": [assignment.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    pair_id = assignment.pair_id
    assignment.refresh_from_db()
    assert (assignment.pair_id, assignment.annotator_id) == (pair_id, alice.pk)
    assert Annotation.objects.filter(assignment=assignment).exists()


def test_an_annotation_is_only_viewed_in_the_admin(root: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(prefill=None), alice)
    annotation_open(assignment=assignment, actor=alice)
    annotation_save(assignment=assignment, actor=alice, base_version=1, links={(0, 0): True})
    annotation = Annotation.objects.get(assignment=assignment)
    assert root.get(_url("annotation", "change", annotation.pk)).status_code == 200
    edited = root.post(
        _url("annotation", "change", annotation.pk),
        {
            "assignment": make_assignment().pk,
            "flags": "[]",
            "rating": "",
            "comment": "changed behind the log",
            "link_count": "900",
        },
    )
    assert edited.status_code == 403
    assert _deleted(root, "annotation", annotation.pk) == 403
    annotation.refresh_from_db()
    assert (annotation.comment, annotation.link_count, annotation.version) == ("", 1, 2)


def test_a_prefill_is_only_viewed_in_the_admin(root: Client) -> None:
    pair = make_pair()
    prefill = AutoAlignment.objects.get(pair=pair)
    assert root.get(_url("autoalignment", "add")).status_code == 403
    moved = root.post(
        _url("autoalignment", "change", prefill.pk),
        {"pair": make_pair(source="a", target="b", prefill=None).pk, "aligner": "x"},
    )
    assert moved.status_code == 403
    assert _deleted(root, "autoalignment", prefill.pk) == 403
    assert AutoAlignment.objects.get(pk=prefill.pk).pair_id == pair.pk


def test_a_job_is_neither_added_changed_nor_deleted_in_the_admin(root: Client) -> None:
    corpus = make_corpus("precious")
    alice = make_user("alice", roles.ANNOTATOR)
    job = Job.objects.create(kind="corpus_stats", corpus=corpus, status=Job.Status.RUNNING)
    added = root.post(
        _url("job", "add"),
        {"kind": "corpus_delete", "parameters": f'{{"corpus_id": {corpus.pk}}}', "seed": ""},
    )
    assert added.status_code == 403
    changed = root.post(
        _url("job", "change", job.pk),
        {"kind": "corpus_delete", "parameters": "{}", "owner": alice.pk, "corpus": corpus.pk},
    )
    assert changed.status_code == 403
    assert _deleted(root, "job", job.pk) == 403
    assert list(Job.objects.values_list("kind", "owner", "status")) == [
        ("corpus_stats", None, "running")
    ]
    assert root.get(_url("job", "change", job.pk)).status_code == 200


def test_a_scorer_keeps_what_training_made_and_its_name_gets_the_name_rule(root: Client) -> None:
    scorer = ScorerModel.objects.create(kind="perp", name="mine", weights={"w": [1.0]})
    edited = root.post(
        _url("scorermodel", "change", scorer.pk),
        {
            "name": "renamed",
            "kind": "ppda",
            "training": "{}",
            "parameters": "{}",
            "weights": '{"w": "garbage"}',
            "evaluation": "{}",
        },
    )
    assert edited.status_code == 302
    scorer.refresh_from_db()
    assert (scorer.name, scorer.kind, scorer.weights) == ("renamed", "perp", {"w": [1.0]})
    digits = root.post(_url("scorermodel", "change", scorer.pk), {"name": "7"})
    assert digits.status_code == 200
    assert ScorerModel.objects.get(pk=scorer.pk).name == "renamed"
    assert root.get(_url("scorermodel", "add")).status_code == 403


def test_the_pages_of_every_row_still_open(root: Client) -> None:
    pair = make_pair()
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(pair, alice)
    annotation_open(assignment=assignment, actor=alice)
    job = Job.objects.create(kind="corpus_stats")
    for model, pk in (
        ("corpus", pair.corpus_id),
        ("sentencepair", pair.pk),
        ("assignment", assignment.pk),
        ("autoalignment", AutoAlignment.objects.get(pair=pair).pk),
        ("job", job.pk),
    ):
        assert root.get(_url(model, "change", pk)).status_code == 200, model
        assert root.get(_url(model, "changelist")).status_code == 200, model
    assert SentencePair.objects.filter(pk=pair.pk).exists()


def test_an_account_renamed_or_added_in_the_admin_gets_the_username_rule(root: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    bob = make_user("bob", roles.ANNOTATOR)
    url = reverse("admin:auth_user_change", args=[bob.pk])
    for name in ("ALICE", "bob\u200b", "b" * 151):
        response = root.post(
            url,
            {
                "username": name,
                "email": "",
                "is_active": "on",
                "date_joined_0": "2026-01-01",
                "date_joined_1": "00:00:00",
            },
        )
        assert response.status_code == 200, name
    bob.refresh_from_db()
    assert bob.username == "bob"
    added = root.post(
        reverse("admin:auth_user_add"),
        {"username": "Alice", "usable_password": "false"},
    )
    assert added.status_code == 200
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1
    assert alice.username == "alice"
    renamed = root.post(
        url,
        {
            "username": "robert",
            "email": "",
            "is_active": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )
    assert renamed.status_code == 302
    bob.refresh_from_db()
    assert bob.username == "robert"


def test_an_account_with_work_is_not_deleted_in_the_admin_and_one_without_is(
    root: Client,
) -> None:
    from annotate.models import GoldAlignment
    from annotate.services.adjudication import gold_save

    carol = make_user("carol", roles.ADJUDICATOR)
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    delete = reverse("admin:auth_user_delete", args=[carol.pk])
    assert root.get(delete).status_code == 403
    assert root.post(delete, {"post": "yes"}).status_code == 403
    listing = root.get(reverse("admin:auth_user_changelist")).content.decode()
    assert 'value="delete_selected"' not in listing
    assert GoldAlignment.objects.get(pair=pair).adjudicator_id == carol.pk
    typo = make_user("typo")
    gone = root.post(reverse("admin:auth_user_delete", args=[typo.pk]), {"post": "yes"})
    assert gone.status_code == 302
    assert not get_user_model().objects.filter(pk=typo.pk).exists()
