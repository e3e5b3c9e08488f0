"""Migrations: one line of history per app, and the stored link and edit counts are filled in
for existing annotations."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

# Run on PostgreSQL too (the integration suite): its deferred constraint checks refuse what
# SQLite accepts (an ALTER TABLE after a data migration's updates, in one transaction).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

BEFORE = [("annotate", "0005_job_snapshot")]
AFTER = [("annotate", "0006_annotation_prefill_edits")]


def test_no_app_has_two_latest_migrations() -> None:
    # Two leaves (say two branches each adding the next number) stop `manage.py migrate`.
    assert MigrationLoader(connection, ignore_no_migrations=True).detect_conflicts() == {}


def test_link_and_edit_counts_are_computed_for_annotations_made_before_them() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair_model = apps.get_model("annotate", "SentencePair")
    common = {"corpus": corpus, "source_tokens": ["a", "b"], "target_tokens": ["a", "b"]}
    pair = pair_model.objects.create(external_id="p", position=0, n_source=2, n_target=2, **common)
    bare = pair_model.objects.create(external_id="q", position=1, n_source=2, n_target=2, **common)
    auto = apps.get_model("annotate", "AutoAlignment")
    older = auto.objects.create(pair=pair, aligner="identity")
    newer = auto.objects.create(pair=pair, aligner="em")
    auto_link = apps.get_model("annotate", "AutoLink")
    auto_link.objects.create(alignment=older, i=1, j=1, sure=True, confidence=1.0)
    auto_link.objects.create(alignment=newer, i=0, j=0, sure=True, confidence=1.0)
    user = apps.get_model("auth", "User").objects.create(username="ann")
    assignment = apps.get_model("annotate", "Assignment")
    annotation = apps.get_model("annotate", "Annotation")
    link = apps.get_model("annotate", "AnnotationLink")
    edited = annotation.objects.create(
        assignment=assignment.objects.create(pair=pair, annotator=user)
    )
    link.objects.create(annotation=edited, i=0, j=0, sure=False)
    link.objects.create(annotation=edited, i=1, j=0, sure=True)
    unprefilled = annotation.objects.create(
        assignment=assignment.objects.create(pair=bare, annotator=user)
    )
    link.objects.create(annotation=unprefilled, i=1, j=1, sure=True)
    other = apps.get_model("auth", "User").objects.create(username="other")
    empty = annotation.objects.create(  # no link: the prefill's one link is its only edit
        assignment=assignment.objects.create(pair=pair, annotator=other)
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    rows = apps.get_model("annotate", "Annotation").objects.in_bulk()
    assert rows[edited.pk].link_count == 2
    assert rows[edited.pk].prefill_edits == 1, "against the newest prefill: 1-0 is extra"
    assert rows[unprefilled.pk].link_count == 1
    assert rows[unprefilled.pk].prefill_edits is None
    assert rows[empty.pk].link_count == 0 and rows[empty.pk].prefill_edits == 1
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def test_gold_made_before_versions_gets_version_one_and_its_first_event() -> None:
    before = [("annotate", "0007_link_bounds_per_statement")]
    after = [("annotate", "0009_gold_version")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair_model = apps.get_model("annotate", "SentencePair")
    common = {"corpus": corpus, "source_tokens": ["a", "b"], "target_tokens": ["a", "b"]}
    pairs = [
        pair_model.objects.create(external_id=k, position=n, n_source=2, n_target=2, **common)
        for n, k in enumerate(("p", "q"))
    ]
    user = apps.get_model("auth", "User").objects.create(username="carol")
    gold_model = apps.get_model("annotate", "GoldAlignment")
    adjudicated = gold_model.objects.create(pair=pairs[0], adjudicator=user, source="adjudicated")
    imported = gold_model.objects.create(pair=pairs[1], source="imported")
    link = apps.get_model("annotate", "GoldLink")
    link.objects.create(gold=adjudicated, i=1, j=0, sure=False)
    link.objects.create(gold=adjudicated, i=0, j=0, sure=True)

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    golds = apps.get_model("annotate", "GoldAlignment").objects.in_bulk()
    assert {gold.version for gold in golds.values()} == {1}
    events = {
        e.gold_id: (e.version, e.kind, e.actor_id, e.added)
        for e in apps.get_model("annotate", "GoldEvent").objects.all()
    }
    assert events == {
        adjudicated.pk: (1, "adjudicated", user.pk, [[0, 0, "S"], [1, 0, "P"]]),
        imported.pk: (1, "imported", None, []),
    }
    with pytest.raises(IntegrityError, match="outside the sentence pair"):  # its trigger is back
        apps.get_model("annotate", "GoldLink").objects.create(
            gold_id=adjudicated.pk, i=2, j=0, sure=True
        )
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def test_pairs_annotated_before_the_disagreement_figure_get_theirs() -> None:
    before = [("annotate", "0012_corpus_archived_at")]
    after = [("annotate", "0013_pair_disagreement")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair_model = apps.get_model("annotate", "SentencePair")
    common = {"corpus": corpus, "source_tokens": ["a", "b"], "target_tokens": ["a", "b"]}
    ready, single = (
        pair_model.objects.create(external_id=k, position=n, n_source=2, n_target=2, **common)
        for n, k in enumerate(("ready", "single"))
    )
    assignment = apps.get_model("annotate", "Assignment")
    annotation = apps.get_model("annotate", "Annotation")
    link = apps.get_model("annotate", "AnnotationLink")
    for name, pair, status, links in (
        ("a", ready, "submitted", [(0, 0, True), (1, 1, True)]),
        ("b", ready, "submitted", [(0, 0, False)]),
        ("c", ready, "in_progress", []),
        ("a", single, "submitted", [(0, 0, True)]),
    ):
        user, _ = apps.get_model("auth", "User").objects.get_or_create(username=name)
        work = annotation.objects.create(
            assignment=assignment.objects.create(pair=pair, annotator=user, status=status)
        )
        for i, j, sure in links:
            link.objects.create(annotation=work, i=i, j=j, sure=sure)
    apps.get_model("annotate", "GoldAlignment").objects.create(pair=ready, source="imported")

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    rows = {
        row.pair_id: (row.submitted, row.lowest_f1, row.corpus_id, row.position, row.gold_source)
        for row in apps.get_model("annotate", "PairDisagreement").objects.all()
    }
    # one cell in common of 2 + 1
    assert rows == {ready.pk: (2, pytest.approx(2 / 3), corpus.pk, 0, "imported")}
    users = dict(apps.get_model("auth", "User").objects.values_list("username", "pk"))
    row = apps.get_model("annotate", "PairDisagreement").objects.get()
    assert row.annotators == f" {users['a']} {users['b']} "
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def test_gold_events_move_to_their_pair_and_stay_append_only() -> None:
    before = [("annotate", "0019_workerheartbeat_broker")]
    after = [("annotate", "0020_gold_event_pair")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair_model = apps.get_model("annotate", "SentencePair")
    common = {"corpus": corpus, "source_tokens": ["a", "b"], "target_tokens": ["a", "b"]}
    pairs = [
        pair_model.objects.create(external_id=k, position=n, n_source=2, n_target=2, **common)
        for n, k in enumerate(("p", "q"))
    ]
    gold_model = apps.get_model("annotate", "GoldAlignment")
    event_model = apps.get_model("annotate", "GoldEvent")
    for pair in pairs:
        gold = gold_model.objects.create(pair=pair, source="adjudicated", version=2)
        for version in (1, 2):
            event_model.objects.create(gold=gold, version=version, kind="adjudicated")

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    event_model = apps.get_model("annotate", "GoldEvent")
    assert sorted(event_model.objects.values_list("pair_id", "version")) == [
        (pairs[0].pk, 1),
        (pairs[0].pk, 2),
        (pairs[1].pk, 1),
        (pairs[1].pk, 2),
    ]
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        event_model.objects.update(added=[])  # its trigger is back
    with pytest.raises(IntegrityError), transaction.atomic():
        event_model.objects.create(pair_id=pairs[0].pk, version=2, kind="cleared")
    # q is sent back to waiting: no gold row, its events stay
    apps.get_model("annotate", "GoldAlignment").objects.filter(pair_id=pairs[1].pk).delete()
    event_model.objects.create(pair_id=pairs[1].pk, version=3, kind="cleared")

    executor = MigrationExecutor(connection)
    executor.migrate(before)  # back: p's events hang on its gold again; q's cannot, and go
    apps = executor.loader.project_state(before).apps
    events = apps.get_model("annotate", "GoldEvent").objects.values_list("gold__pair_id", "version")
    assert sorted(events) == [(pairs[0].pk, 1), (pairs[0].pk, 2)]
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def test_pairs_whose_annotators_agreed_before_the_flag_get_it_and_the_log_stays_append_only() -> (
    None
):
    before = [("annotate", "0022_login_attempts_per_address")]
    after = [("annotate", "0023_bulk_accept")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair_model = apps.get_model("annotate", "SentencePair")
    common = {"corpus": corpus, "source_tokens": ["a", "b"], "target_tokens": ["a", "b"]}
    same, kind, other = (
        pair_model.objects.create(external_id=k, position=n, n_source=2, n_target=2, **common)
        for n, k in enumerate(("same", "kind", "other"))
    )
    assignment = apps.get_model("annotate", "Assignment")
    annotation = apps.get_model("annotate", "Annotation")
    link = apps.get_model("annotate", "AnnotationLink")
    for name, pair, status, links in (
        ("a", same, "submitted", [(0, 0, True), (1, 1, False)]),
        ("b", same, "submitted", [(0, 0, True), (1, 1, False)]),
        ("c", same, "in_progress", [(0, 1, True)]),  # not counted
        ("a", kind, "submitted", [(0, 0, True)]),
        ("b", kind, "submitted", [(0, 0, False)]),  # same cell, not the same kind
        ("a", other, "submitted", [(0, 0, True)]),
        ("b", other, "submitted", [(1, 1, True)]),
    ):
        user, _ = apps.get_model("auth", "User").objects.get_or_create(username=name)
        work = annotation.objects.create(
            assignment=assignment.objects.create(pair=pair, annotator=user, status=status)
        )
        for i, j, sure in links:
            link.objects.create(annotation=work, i=i, j=j, sure=sure)
    disagreement = apps.get_model("annotate", "PairDisagreement")
    for pair, f1 in ((same, 1.0), (kind, 1.0), (other, 0.0)):
        disagreement.objects.create(
            pair=pair,
            corpus=corpus,
            position=pair.position,
            submitted=2,
            annotators="",
            lowest_f1=f1,
        )
    event = apps.get_model("annotate", "GoldEvent").objects.create(
        pair=same, version=1, kind="cleared"
    )

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    flags = dict(
        apps.get_model("annotate", "PairDisagreement").objects.values_list("pair_id", "unanimous")
    )
    assert flags == {same.pk: True, kind.pk: False, other.pk: False}
    with pytest.raises((DatabaseError, IntegrityError)), transaction.atomic():
        apps.get_model("annotate", "GoldEvent").objects.filter(pk=event.pk).update(job_id=3)
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
