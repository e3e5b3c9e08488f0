"""Migration 0027: pairs written before ``search_text`` get it, on SQLite and PostgreSQL, and
the link tables' checks on the pairs still run after SQLite rebuilt the pairs' table."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

BEFORE = [("annotate", "0026_pair_by_position_index")]
AFTER = [("annotate", "0028_assignment_by_annotator")]


def test_pairs_made_before_the_column_get_their_search_text_and_keep_their_checks() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    corpus = apps.get_model("annotate", "Corpus").objects.create(name="old")
    pair = apps.get_model("annotate", "SentencePair").objects.create(
        corpus=corpus,
        external_id="Old-1",
        source_text="Der Hund",
        target_text="the dog",
        source_tokens=["Der", "Hund"],
        target_tokens=["the", "dog"],
        n_source=2,
        n_target=2,
        position=0,
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    pairs = apps.get_model("annotate", "SentencePair").objects
    assert pairs.values_list("search_text", flat=True).get(pk=pair.pk) == "OLD-1\nDER HUND\nTHE DOG"
    # the pairs' own length check and the links' bounds check (triggers) are still there
    with pytest.raises(IntegrityError), transaction.atomic():
        pairs.filter(pk=pair.pk).update(n_source=5)
    auto = apps.get_model("annotate", "AutoAlignment").objects.create(pair_id=pair.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        apps.get_model("annotate", "AutoLink").objects.create(
            alignment=auto, i=7, j=0, sure=True, confidence=1.0
        )
    # and back, then forward again
    MigrationExecutor(connection).migrate(BEFORE)
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
