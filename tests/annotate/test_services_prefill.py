"""The prefill job: trains on the corpus, prefills only pairs nobody started, and is retrained
as finished work accumulates."""

from __future__ import annotations

import io
import logging
import random
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from pytest_django.fixtures import Settings

from annotate import job_chunks, jobs_runtime, tasks
from annotate.models import (
    Annotation,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    Job,
    SentencePair,
)
from annotate.selectors.corpora import corpus_finished_pair_count
from annotate.services import prefill_chunks
from annotate.services.annotations import annotation_open, annotation_save, annotation_submit
from annotate.services.corpora import corpus_import_records
from annotate.services.prefill import (
    PrefillError,
    _aligner_options,
    _finished_work,
    corpus_prefill_configure,
    prefill_job_create,
    prefill_queue,
    prefill_run,
    prefills_retrain_due,
)
from scoring.alignment.links import Alignment
from scoring.errors import OptionsError
from tests.annotate.factories import (
    make_assignment,
    make_corpus,
    make_learnable_pair,
    make_pair,
)
from tests.annotate.records import make_record
from tests.scoring.alignment.majority_reference import reference_majority

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgres,
    pytest.mark.usefixtures("eager_chunks"),  # the chunks run in the runner, as a worker would
]


def run_prefill(aligner: str) -> Job:
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": aligner}
    )
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    return job


@pytest.fixture
def corpus() -> Corpus:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("fresh", "The cat sat", "the cat was sitting", prefill=None),
            make_record("started", "a dog ran", "the dog runs", prefill="1-1"),
        ],
    )
    started = SentencePair.objects.get(external_id="started")
    annotator = get_user_model().objects.create(username="ann")
    assignment = Assignment.objects.create(pair=started, annotator=annotator)
    annotation_open(assignment=assignment, actor=annotator)  # from the prefill it has now
    return Corpus.objects.get(name="c")


def test_it_prefills_the_pairs_nobody_started(corpus: Corpus) -> None:
    job = run_prefill("identity")
    assert job.status == "succeeded", job.error
    assert job.result["prefilled_pairs"] == 1
    assert job.result["skipped_started_pairs"] == 1
    fresh = AutoAlignment.objects.get(pair__external_id="fresh")
    assert fresh.aligner == "identity"
    assert {(link.i, link.j) for link in fresh.links.all()} == {(0, 0), (1, 1)}
    assert all(0 <= link.confidence <= 1 for link in fresh.links.all())
    started = AutoAlignment.objects.filter(pair__external_id="started")
    assert [a.aligner for a in started] == ["identity"], "the started pair keeps its prefill"
    assert list(started[0].links.values_list("i", "j")) == [(1, 1)]


def test_it_prefills_pairs_whose_annotations_were_imported_and_keeps_their_links() -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record(
                "imported",
                "The cat sat",
                "the cat was sitting",
                prefill=None,
                annotations={"A": "0-0 2?3", "B": "1-1"},
            )
        ],
    )
    job = run_prefill("identity")
    assert job.status == "succeeded", job.error
    assert job.result["prefilled_pairs"] == 1 and job.result["skipped_started_pairs"] == 0
    prefill = AutoAlignment.objects.get(pair__external_id="imported")
    assert set(prefill.links.values_list("i", "j")) == {(0, 0), (1, 1)}
    kept = {
        a.annotator.username: set(a.annotation.links.values_list("i", "j", "sure"))
        for a in Assignment.objects.select_related("annotator", "annotation")
    }
    assert kept == {"A": {(0, 0, True), (2, 3, False)}, "B": {(1, 1, True)}}


def test_imported_work_in_progress_does_not_keep_a_pair_from_its_prefill() -> None:
    record = make_record("p", "a dog ran", "the dog runs", prefill=None, annotations={"A": "1-1"})
    record.annotations["A"].status = "in_progress"
    corpus_import_records(corpus_name="c", records=[record])
    job = run_prefill("identity")
    assert job.result["prefilled_pairs"] == 1
    assert Assignment.objects.get().status == Assignment.Status.IN_PROGRESS


def test_a_pair_opened_by_an_annotator_is_not_prefilled_again_even_once_submitted() -> None:
    corpus_import_records(
        corpus_name="c", records=[make_record("p", "a dog ran", "the dog runs", prefill="1-1")]
    )
    user = get_user_model().objects.create(username="ann")
    assignment = Assignment.objects.create(pair=SentencePair.objects.get(), annotator=user)
    annotation = annotation_open(assignment=assignment, actor=user)
    annotation_submit(assignment=assignment, actor=user, base_version=annotation.version)
    job = run_prefill("identity")
    assert job.result["prefilled_pairs"] == 0 and job.result["skipped_started_pairs"] == 1


def test_a_pair_opened_while_the_job_aligns_keeps_the_prefill_it_was_opened_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The job chooses its pairs before it trains and aligns (minutes on a large corpus); an
    annotator who opens one of them meanwhile keeps the prefill the annotation was made from,
    and its edits stay counted against that prefill."""
    from annotate.services import prefill

    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p", "a dog ran", "the dog runs", prefill="0-0"),
            make_record("q", "The cat sat", "the cat was sitting", prefill=None),
        ],
    )
    user = get_user_model().objects.create(username="ann")
    assignment = Assignment.objects.create(
        pair=SentencePair.objects.get(external_id="p"), annotator=user
    )
    check = prefill.job_check_running

    def opened_meanwhile(**kwargs: int) -> None:
        if not Annotation.objects.exists():
            annotation_open(assignment=assignment, actor=user)
        check(**kwargs)

    monkeypatch.setattr(prefill, "job_check_running", opened_meanwhile)
    job = run_prefill("identity")
    assert job.status == "succeeded", job.error
    assert job.result["prefilled_pairs"] == 1 and job.result["skipped_started_pairs"] == 1
    kept = AutoAlignment.objects.get(pair__external_id="p")
    assert list(kept.links.values_list("i", "j")) == [(0, 0)], "the prefill it was opened with"
    assert AutoAlignment.objects.get(pair__external_id="q").aligner == "identity"
    assert Annotation.objects.get().prefill_edits == 0


def test_the_result_scores_the_new_prefill_against_the_gold_where_there_is_gold() -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            # identity links 0-0 1-1 (two identical words: "the" and "cat")
            make_record(
                "g", "the cat sat", "the cat was sitting", prefill=None, gold="0-0 1-1 2-2"
            ),
            make_record("no-gold", "a dog", "a dog", prefill=None),
        ],
    )
    job = run_prefill("identity")
    evaluation = job.result["evaluation"]
    assert evaluation["pairs"] == 1 and evaluation["reference"] == "adjudicated gold"
    assert evaluation["all_links"]["precision"] == 1.0
    assert evaluation["all_links"]["recall"] == pytest.approx(2 / 3)
    assert evaluation["non_identical"]["precision"] is None, "no non-identical link predicted"
    assert evaluation["non_identical"]["undefined"] == ["precision", "f1"]


def test_without_gold_the_result_has_no_evaluation(corpus: Corpus) -> None:
    assert run_prefill("identity").result["evaluation"] is None


def test_an_unknown_aligner_fails_the_job_with_the_known_names(corpus: Corpus) -> None:
    job = run_prefill("giza")
    assert job.status == "failed"
    assert "unknown aligner 'giza'" in job.error and "identity" in job.error


def test_a_prefill_job_stores_its_options_and_the_aligner_runs_with_them(corpus: Corpus) -> None:
    job = prefill_job_create(corpus=corpus, aligner="lexical", options={"wordnet": False})
    assert job.parameters["options"] == {"wordnet": False}
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["options"]["wordnet"] is False
    assert job.result["options"]["stem"] is True, "the other options keep their defaults"


def test_a_prefill_job_without_options_stores_none_and_an_old_job_without_the_key_runs(
    corpus: Corpus,
) -> None:
    assert prefill_job_create(corpus=corpus, aligner="identity").parameters["options"] == {}
    old = run_prefill("lexical")  # parameters hold no "options"
    assert old.status == "succeeded", old.error
    assert old.result["options"]["wordnet"] is True


@pytest.mark.parametrize(
    ("aligner", "options", "error", "message"),
    [
        (
            "lexical",
            {"colour": True},
            OptionsError,
            "unknown option 'colour' for aligner 'lexical'",
        ),
        (
            "lexical",
            {"wordnet": "no"},
            OptionsError,
            "option 'wordnet' of aligner 'lexical' must be a bool",
        ),
        ("supervised", {"fine_tune_epochs": "5"}, OptionsError, "'fine_tune_epochs' .* an int"),
        (
            "supervised",
            {"fine_tune_epochs": -1},
            OptionsError,
            r"'fine_tune_epochs' .* in \[0, 10\], got -1",
        ),
        ("supervised", {"learning_rate": float("inf")}, OptionsError, "'learning_rate' .* finite"),
        ("supervised", {"ppdb": "/etc/passwd"}, PrefillError, "'ppdb' names a file .* PPDB_PATH"),
        ("em", {"ppdb": None}, PrefillError, "option 'ppdb' names a file"),
    ],
)
def test_bad_prefill_options_are_refused_naming_the_option_and_change_nothing(
    growing: Corpus,
    aligner: str,
    options: dict[str, object],
    error: type[Exception],
    message: str,
) -> None:
    growing = corpus_prefill_configure(
        corpus=growing, aligner="supervised", retrain_every=30, options={"trees": 50}
    )
    every = 5 if aligner == "supervised" else None
    with pytest.raises(error, match=message):
        prefill_queue(corpus=growing, aligner=aligner, retrain_every=every, options=options)
    growing.refresh_from_db()
    assert (growing.prefill_retrain_every, growing.prefill_options) == (30, {"trees": 50})
    assert not Job.objects.exists()


def test_the_servers_ppdb_goes_to_every_aligner_with_a_ppdb_option_but_identity(
    corpus: Corpus, settings: Settings, tmp_path: Path
) -> None:
    ppdb = tmp_path / "ppdb.tsv"
    ppdb.write_text("sat\tsitting\n", encoding="utf-8")
    settings.PPDB_PATH = str(ppdb)
    for name in ("supervised", "em", "lexical"):
        assert _aligner_options(name, {})["ppdb"] == str(ppdb)
    assert "ppdb" not in _aligner_options("identity", {})
    assert _aligner_options("lexical", {"wordnet": False}) == {"ppdb": str(ppdb), "wordnet": False}

    job = prefill_job_create(corpus=corpus, aligner="lexical", options={"wordnet": False})
    assert job.parameters["options"] == {"wordnet": False}, "the setting is not stored"
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    fresh = AutoAlignment.objects.get(pair__external_id="fresh", aligner="lexical")
    assert (2, 3, False) in set(fresh.links.values_list("i", "j", "sure")), "sat ~ sitting"
    assert run_prefill("identity").status == "succeeded"
    baseline = AutoAlignment.objects.get(pair__external_id="fresh", aligner="identity")
    assert set(baseline.links.values_list("i", "j")) == {(0, 0), (1, 1)}


def test_finished_work_prefers_gold_over_submitted_annotations() -> None:
    corpus_import_records(
        corpus_name="g",
        records=[
            make_record("with-gold", annotations={"x": "0-0"}, gold="1-1"),
            make_record("annotated", annotations={"x": "0-0 1-1", "y": "0-0"}),
            make_record("bare", prefill=None),
        ],
    )
    work = {
        SentencePair.objects.get(pk=pid).external_id: alignment
        for pid, alignment in _finished_work(Corpus.objects.get(name="g")).items()
    }
    assert set(work) == {"with-gold", "annotated"}
    assert work["with-gold"].sure == {(1, 1)}
    assert work["annotated"].sure == {(0, 0)}


def test_a_trial_pairs_gold_is_no_finished_work_a_prefill_learns_from() -> None:
    """A trial pair's gold is the key its annotators' feedback is scored against: a supervised
    prefill trained on it prefilled the unopened trial pairs with nearly that key."""
    corpus_import_records(
        corpus_name="g",
        records=[
            make_record("trial-key", split="trial", gold="1-1 2-2", prefill=None),
            make_record(
                "trial-done", split="trial", gold="1-1", annotations={"x": "0-0"}, prefill=None
            ),
            make_record("train-gold", gold="3-4", prefill=None),
        ],
    )
    corpus = Corpus.objects.get(name="g")
    work = {
        SentencePair.objects.get(pk=pid).external_id: alignment
        for pid, alignment in _finished_work(corpus).items()
    }
    assert set(work) == {"trial-done", "train-gold"}, "a trial key is learnt from"
    assert work["trial-done"].sure == {(0, 0)}, "its annotators' majority, not its key"
    assert work["train-gold"].sure == {(3, 4)}
    assert corpus_finished_pair_count(corpus) == 2


def test_a_supervised_prefill_where_only_trial_keys_are_finished_queues_nothing() -> None:
    corpus_import_records(
        corpus_name="keys",
        records=[
            make_record(f"t{k}", split="trial", gold="0-0 1-1 2-2", prefill=None) for k in range(4)
        ]
        + [make_record(f"p{k}", prefill=None) for k in range(4)],
    )
    with pytest.raises(PrefillError, match="has none yet"):
        prefill_job_create(corpus=Corpus.objects.get(name="keys"), aligner="supervised")
    assert not Job.objects.exists()


def test_the_gold_is_read_as_values_without_an_object_per_link(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A prefill reads every gold link of the corpus twice (training, evaluation), the second
    time after its progress says 100 %: an object per link costs seconds on 20,000 gold
    alignments."""
    from annotate.models import GoldLink

    corpus_import_records(
        corpus_name="g",
        records=[
            make_record(
                "sure-and-possible", "the cat sat", "a cat sat", prefill=None, gold="0-0 1-1 2?2"
            ),
            make_record("empty-gold", "a dog", "a dog", prefill=None, gold=""),
            make_record("bare", prefill=None),
        ],
    )
    built: list[object] = []
    original = GoldLink.from_db.__func__  # type: ignore[attr-defined]

    def counting(cls: type, *args: object) -> object:
        built.append(args)
        return original(cls, *args)

    monkeypatch.setattr(GoldLink, "from_db", classmethod(counting))
    work = {
        SentencePair.objects.get(pk=pid).external_id: alignment
        for pid, alignment in _finished_work(Corpus.objects.get(name="g")).items()
    }
    assert built == []
    assert set(work) == {"sure-and-possible", "empty-gold"}
    assert work["sure-and-possible"].sure == {(0, 0), (1, 1)}
    assert work["sure-and-possible"].possible == {(0, 0), (1, 1), (2, 2)}
    assert work["empty-gold"].possible == set()


def test_the_gold_a_prefill_learns_from_is_the_majority_by_the_one_rule() -> None:
    rng = random.Random(7)
    source, target = "a b c d", "a b c"
    expected = {}
    records = []
    for index in range(30):
        found = {}
        for name in (f"ann{k}" for k in range(rng.randint(2, 5))):
            cells = [(i, j) for i in range(4) for j in range(3) if rng.random() < 0.4]
            found[name] = " ".join(f"{i}{rng.choice('-?')}{j}" for i, j in cells)
        records.append(make_record(f"p{index}", source, target, prefill=None, annotations=found))
        sure, linked, _, _ = reference_majority(
            [Alignment.from_pharaoh(links, 4, 3) for links in found.values()]
        )
        expected[f"p{index}"] = (sure, linked)
    corpus_import_records(corpus_name="votes", records=records)
    work = {
        SentencePair.objects.get(pk=pid).external_id: (alignment.sure, alignment.possible)
        for pid, alignment in _finished_work(Corpus.objects.get(name="votes")).items()
    }
    assert work == expected


# --- retraining as annotations accumulate ---------------------------------------------------

VOCABULARY = (
    "the a cat dog man woman car house tree river city road ran sat saw took made read "
    "old new big small green red quickly slowly near far on in at with"
).split()


@pytest.fixture
def growing(monkeypatch: pytest.MonkeyPatch) -> Corpus:
    """40 pairs, no finished work yet, automatic retraining of `supervised` every 30 pairs.

    Each target is its source with two words replaced, so identical words are the links.
    """
    monkeypatch.setattr(jobs_runtime, "HEARTBEAT_INTERVAL", 3600.0)  # SQLite's test transaction
    rng = random.Random(7)
    corpus = make_corpus("growing")
    for _ in range(40):
        source = rng.sample(VOCABULARY, 7)
        target = list(source)
        for k in rng.sample(range(7), 2):
            target[k] = rng.choice([w for w in VOCABULARY if w not in source])
        make_pair(corpus, " ".join(source), " ".join(target), prefill=None)
    return corpus_prefill_configure(corpus=corpus, aligner="supervised", retrain_every=30)


def finish(pairs: list[SentencePair], annotator: str = "ann") -> None:
    """An annotator links identical words as sure and submits each pair."""
    user = get_user_model().objects.get_or_create(username=annotator)[0]
    for pair in pairs:
        assignment = make_assignment(pair, user)
        annotation_open(assignment=assignment, actor=user)
        links = {
            (i, j): True
            for i, word in enumerate(pair.source_tokens)
            for j, other in enumerate(pair.target_tokens)
            if word == other
        }
        annotation_save(assignment=assignment, actor=user, base_version=1, links=links)
        annotation_submit(assignment=assignment, actor=user, base_version=2)


def pairs_of(corpus: Corpus) -> list[SentencePair]:
    return list(SentencePair.objects.filter(corpus=corpus).order_by("position"))


def test_retraining_waits_until_enough_pairs_are_finished(growing: Corpus) -> None:
    finish(pairs_of(growing)[:29])
    assert prefills_retrain_due() == []
    assert not Job.objects.filter(kind="prefill").exists()


def test_retraining_retrains_and_prefills_only_the_pairs_nobody_started(growing: Corpus) -> None:
    pairs = pairs_of(growing)
    finish(pairs[:30])
    [job] = prefills_retrain_due()
    assert job.parameters == {
        "aligner": "supervised",
        "trigger": "retrain",
        "finished_pairs": 30,
        "options": {},
    }
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["trained_on_gold"] == 30
    assert job.result["prefilled_pairs"] == 10
    prefills = AutoAlignment.objects.filter(aligner="supervised")
    assert {a.pair_id for a in prefills} == {pair.pk for pair in pairs[30:]}
    for pair in pairs[30:]:
        identical = {
            (i, j)
            for i, word in enumerate(pair.source_tokens)
            for j, other in enumerate(pair.target_tokens)
            if word == other
        }
        links = set(prefills.get(pair=pair).links.filter(sure=True).values_list("i", "j"))
        assert links == identical, "it learnt what the annotators did"
    # each prefill keeps how unsure it is, for the least-sure-first queue order
    assert all(0.0 <= a.expected_corrections < 1.0 for a in prefills)


def test_the_next_retraining_counts_from_the_last_prefill(growing: Corpus) -> None:
    pairs = pairs_of(growing)
    finish(pairs[:30])
    [job] = prefills_retrain_due()
    assert prefills_retrain_due() == [], "not while the first one is queued"
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
    finish(pairs[30:35])
    corpus_prefill_configure(corpus=growing, aligner="supervised", retrain_every=6)
    assert prefills_retrain_due() == [], "5 new pairs < 6"
    finish(pairs[35:36], annotator="other")
    [second] = prefills_retrain_due()
    assert second.parameters["finished_pairs"] == 36


def test_a_failed_retraining_waits_for_more_work_before_trying_again(growing: Corpus) -> None:
    pairs = pairs_of(growing)
    corpus_prefill_configure(corpus=growing, aligner="supervised", retrain_every=10)
    finish(pairs[:10])
    [job] = prefills_retrain_due()
    Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, error="worker lost")
    assert prefills_retrain_due() == []
    finish(pairs[10:20])
    assert len(prefills_retrain_due()) == 1


def test_retraining_reuses_the_corpus_options_and_switching_it_off_clears_them(
    growing: Corpus,
) -> None:
    growing = corpus_prefill_configure(
        corpus=growing, aligner="supervised", retrain_every=10, options={"fine_tune_epochs": 5}
    )
    assert growing.prefill_options == {"fine_tune_epochs": 5}
    finish(pairs_of(growing)[:10])
    [job] = prefills_retrain_due()
    assert job.parameters["options"] == {"fine_tune_epochs": 5}
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
    prefill_queue(corpus=growing, aligner="lexical", retrain_every=0)
    growing.refresh_from_db()
    assert (growing.prefill_aligner, growing.prefill_options) == ("", {})


@pytest.mark.parametrize("status", [Job.Status.PENDING, Job.Status.RUNNING])
def test_a_prefill_is_refused_while_another_of_the_corpus_is_queued_or_running(
    growing: Corpus, status: str
) -> None:
    first = prefill_job_create(corpus=growing, aligner="identity")
    Job.objects.filter(pk=first.pk).update(status=status)
    again = prefill_job_create(corpus=growing, aligner="identity")
    assert (again.pk, again.reused) == (first.pk, True), "the same request returns that job"
    with pytest.raises(PrefillError, match=f"prefill #{first.pk} \\(identity\\) is still {status}"):
        prefill_queue(corpus=growing, aligner="lexical", retrain_every=0)
    assert Job.objects.filter(kind="prefill").count() == 1
    Job.objects.filter(pk=first.pk).update(status=Job.Status.CANCELLED)
    assert prefill_job_create(corpus=growing, aligner="lexical").parameters["aligner"] == "lexical"


def test_a_corpus_whose_stored_options_are_refused_does_not_stop_the_others(
    growing: Corpus,
) -> None:
    other = make_corpus("other")
    corpus_prefill_configure(corpus=other, aligner="supervised", retrain_every=1)
    make_learnable_pair(other)
    Corpus.objects.filter(pk=growing.pk).update(prefill_retrain_every=1, prefill_options={"x": 1})
    finish(pairs_of(growing)[:1])
    [job] = prefills_retrain_due()
    assert job.corpus == other


def test_retraining_is_off_when_the_corpus_names_no_aligner(growing: Corpus) -> None:
    corpus_prefill_configure(corpus=growing, aligner="", retrain_every=3)
    finish(pairs_of(growing)[:4])
    assert prefills_retrain_due() == []


@pytest.mark.parametrize(
    ("aligner", "every", "message"),
    [
        ("em", 5, "'em' aligner does not learn from annotations"),
        ("giza", 5, "unknown aligner 'giza'"),
        ("supervised", 0, "retrain_every must be between 1 and 1,000,000"),
    ],
)
def test_retraining_settings_are_checked_and_bad_ones_change_nothing(
    growing: Corpus, aligner: str, every: int, message: str
) -> None:
    with pytest.raises(PrefillError, match=message):
        corpus_prefill_configure(corpus=growing, aligner=aligner, retrain_every=every)
    growing.refresh_from_db()
    assert (growing.prefill_aligner, growing.prefill_retrain_every) == ("supervised", 30)


def test_the_beat_task_queues_the_due_retrainings(growing: Corpus) -> None:
    corpus_prefill_configure(corpus=growing, aligner="supervised", retrain_every=10)
    finish(pairs_of(growing)[:10])
    queued = tasks.retrain_prefills()
    assert queued == list(Job.objects.filter(kind="prefill").values_list("pk", flat=True))
    assert len(queued) == 1


def test_the_prefill_command_sets_retraining_and_queues_a_job(growing: Corpus) -> None:
    finish(pairs_of(growing)[:10])  # links enough to learn from
    out = io.StringIO()
    call_command(
        "prefill",
        "--corpus",
        "growing",
        "--aligner",
        "supervised",
        "--retrain-every",
        "12",
        stdout=out,
    )
    assert "supervised is retrained after every 12 newly finished pairs" in out.getvalue()
    job = Job.objects.get(kind="prefill")
    assert job.parameters == {
        "aligner": "supervised",
        "trigger": "command",
        "finished_pairs": 10,
        "options": {},
    }
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
    call_command(
        "prefill", "--corpus", "growing", "--aligner", "lexical", "--no-retrain", stdout=out
    )
    growing.refresh_from_db()
    assert growing.prefill_aligner == ""


def test_the_prefill_command_passes_aligner_options_to_the_job_and_the_retraining(
    growing: Corpus,
) -> None:
    finish(pairs_of(growing)[:10])  # links enough to learn from
    out = io.StringIO()
    call_command(
        "prefill",
        "--corpus=growing",
        "--aligner=supervised",
        "--retrain-every=12",
        "--option=fine_tune_epochs=5",
        "--option",
        "fine-tune-weight=0.5",
        stdout=out,
    )
    expected = {"fine_tune_epochs": 5, "fine_tune_weight": 0.5}
    assert "with fine_tune_epochs=5, fine_tune_weight=0.5" in out.getvalue()
    assert Job.objects.get(kind="prefill").parameters["options"] == expected
    growing.refresh_from_db()
    assert growing.prefill_options == expected


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("foo", "option 'foo' is not KEY=VALUE"),
        ("colour=red", "unknown option 'colour'"),
        ("trees=many", "option 'trees' of aligner 'supervised' must be an int"),
        ("ppdb=/etc/passwd", "option 'ppdb' names a file"),
    ],
)
def test_a_bad_prefill_command_option_is_a_command_error_naming_it(
    growing: Corpus, option: str, message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        call_command(
            "prefill",
            "--corpus=growing",
            "--aligner=supervised",
            "--retrain-every=5",
            f"--option={option}",
        )
    growing.refresh_from_db()
    assert (growing.prefill_retrain_every, growing.prefill_options) == (30, {})
    assert not Job.objects.exists()


def test_the_prefill_command_refuses_to_retrain_an_aligner_that_does_not_learn(
    growing: Corpus,
) -> None:
    with pytest.raises(CommandError, match="'lexical' aligner does not learn from annotations"):
        call_command(
            "prefill", "--corpus", "growing", "--aligner", "lexical", "--retrain-every", "5"
        )
    growing.refresh_from_db()
    assert (growing.prefill_aligner, growing.prefill_retrain_every) == ("supervised", 30)
    assert not Job.objects.exists()


def test_a_supervised_prefill_with_too_few_links_for_its_trees_is_refused_before_it_is_queued(
    growing: Corpus,
) -> None:
    """Three finished pairs of five links each: fewer than the trees' half leaf of 50 cells
    (``SupervisedAligner.min_links``), which the job found out after training for a minute."""
    finish(pairs_of(growing)[:3])
    with pytest.raises(PrefillError) as refused:
        prefill_job_create(corpus=growing, aligner="supervised")
    assert refused.value.status_code == 400
    assert refused.value.extra["field"] == "aligner"
    assert (
        "corpus “growing” has too little finished work for this prefill: the 'supervised' "
        "aligner needs at least 50 links in finished pairs to learn from (half of "
        "min_samples_leaf, 100); the 3 finished pairs have 15: about 10 finished pairs are "
        "needed"
    ) in refused.value.message
    assert not Job.objects.exists()
    # lower leaves need fewer links: the rule follows the options the request gives
    job = prefill_job_create(corpus=growing, aligner="supervised", options={"min_samples_leaf": 30})
    assert job.parameters["finished_pairs"] == 3


def test_a_retraining_with_too_few_links_waits_for_more_work_without_an_error(
    growing: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    corpus_prefill_configure(corpus=growing, aligner="supervised", retrain_every=3)
    finish(pairs_of(growing)[:3])
    with caplog.at_level(logging.INFO, logger="annotate.services.prefill"):
        assert prefills_retrain_due() == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "retraining waits for more work" in caplog.text
    assert "the 3 finished pairs have 15" in caplog.text
    finish(pairs_of(growing)[3:10])
    [job] = prefills_retrain_due()
    assert job.parameters["finished_pairs"] == 10


def test_a_supervised_prefill_job_with_too_few_links_fails_before_it_trains(
    growing: Corpus,
) -> None:
    """A job queued before the work was sent back (or by an older version) fails at once with
    the same reason, changing nothing."""
    finish(pairs_of(growing)[:3])
    job = run_prefill_on(growing, "supervised")
    assert job.status == "failed"
    assert "the 3 finished pairs have 15: about 10 finished pairs are needed" in job.error
    assert not AutoAlignment.objects.filter(aligner="supervised").exists()


def test_a_supervised_prefill_that_learns_nothing_fails_and_changes_nothing(
    growing: Corpus,
) -> None:
    """Twelve pairs of five links pass the least the trees need but still learn no link."""
    finish(pairs_of(growing)[:12])
    job = run_prefill_on(growing, "supervised")
    assert job.status == "failed"
    assert "learnt nothing from 12 finished pairs" in job.error
    assert not AutoAlignment.objects.filter(aligner="supervised").exists()


def run_prefill_on(corpus: Corpus, aligner: str) -> Job:
    job = Job.objects.create(kind="prefill", corpus=corpus, parameters={"aligner": aligner})
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    return job


def test_an_em_prefill_job_writes_each_training_step_to_its_row(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[tuple[float, str]] = []
    write = jobs_runtime.job_progress

    def recording(*, job_id: int, percent: float, message: str) -> None:
        written.append((percent, message))
        write(job_id=job_id, percent=percent, message=message)

    monkeypatch.setattr(jobs_runtime, "PROGRESS_MIN_INTERVAL", 0.0)
    monkeypatch.setattr(jobs_runtime, "job_progress", recording)
    job = run_prefill("em")
    assert job.status == "succeeded", job.error
    messages = [message for _, message in written]
    assert messages[0] == "training em on 2 pairs"
    assert [m for m in messages if m.startswith("em: HMM") and m.endswith("done")] == [
        f"em: HMM iteration {k} of 5 done" for k in range(1, 6)
    ]
    assert messages[-1] == "aligning 1 pairs in 1 chunk(s)", "then the chunks"
    percents = [percent for percent, _ in written]
    assert percents == sorted(percents)
    training = [p for p, m in written if m.startswith("em: ")]
    assert min(training) >= 2 and max(training) == 50, "training fills 2-50 %, aligning the rest"


def test_a_supervised_prefill_reports_the_stages_of_its_training(growing: Corpus) -> None:
    from scoring.aligners.supervised import clear_caches

    finish(pairs_of(growing)[:30])
    options = {"trees": 20, "learning_rate": 0.2}
    job = prefill_job_create(corpus=growing, aligner="supervised", options=options)
    assert jobs_runtime.job_claim(job_id=job.pk, worker="here")
    clear_caches()  # a cached EM model would skip its stage
    reports: list[tuple[float, str]] = []
    prefill_run.runner(job, lambda percent, message: reports.append((percent, message)))
    percents = [percent for percent, _ in reports]
    assert percents == sorted(percents), "the bar never goes back"
    messages = [message for _, message in reports]
    em = [m for m in messages if m.startswith("supervised: EM: ")]
    features = [m for m in messages if m.startswith("supervised: features ")]
    trees = [m for m in messages if m.startswith("supervised: link trees: tree ")]
    assert "supervised: EM: HMM iteration 5 of 5 done" in em
    assert features == [f"supervised: features {k}/30" for k in range(30)]
    assert trees == [f"supervised: link trees: tree {k} of 20" for k in range(1, 21)]
    assert messages.index(em[-1]) < messages.index(features[0]) < messages.index(trees[0])
    assert messages[-1] == "aligning 10 pairs in 1 chunk(s)"
    job.refresh_from_db()
    assert job.status == "succeeded" and job.result["prefilled_pairs"] == 10


def test_a_supervised_prefill_without_finished_work_queues_nothing_and_keeps_no_setting(
    growing: Corpus,
) -> None:
    growing = corpus_prefill_configure(corpus=growing, aligner="", retrain_every=30)
    with pytest.raises(PrefillError, match="has none yet") as refused:
        prefill_queue(corpus=growing, aligner="supervised", retrain_every=12)
    assert refused.value.extra["field"] == "aligner"
    empty = make_corpus("empty")
    with pytest.raises(PrefillError, match="corpus “empty” has no pairs to prefill"):
        prefill_queue(corpus=empty, aligner="identity")
    assert not Job.objects.exists()
    growing.refresh_from_db()
    assert (growing.prefill_aligner, growing.prefill_retrain_every) == ("", 30)


def test_a_cancelled_prefill_writes_no_chunk_after_the_cancel(
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    """Its chunks take less than the half second between two progress writes, so the report
    after a chunk is held back; the job still stops before its next write."""
    from annotate.services.jobs import job_cancel

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(5)]
    )
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": "identity"}
    )
    settings.PREFILL_CHUNK_PAIRS = 2
    write = prefill_chunks.write_prefills

    def cancelled_after_the_first(*args: object, **options: object) -> tuple[int, set[int]]:
        written = write(*args, **options)
        job_cancel(job=job)
        return written

    monkeypatch.setattr(prefill_chunks, "write_prefills", cancelled_after_the_first)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == Job.Status.CANCELLED
    assert AutoAlignment.objects.filter(pair__corpus__name="c").count() == 2
    job.refresh_from_db()
    links = AutoLink.objects.filter(alignment__pair__corpus__name="c").count()
    assert job.result == {"aligner": "identity", "prefilled_pairs": 2, "links": links}


def test_a_prefill_cancelled_after_its_last_write_says_what_it_wrote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its prefills stay, as those of a prefill cancelled midway do, so the cancelled job
    says what it wrote (the runs list reads it) rather than nothing."""
    from annotate.services.jobs import job_cancel

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(3)]
    )
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": "identity"}
    )
    evaluate = prefill_chunks.evaluate_against_gold

    def written_then_cancelled(*args: object, **options: object) -> object:  # after the writes
        job_cancel(job=job)
        return evaluate(*args, **options)

    monkeypatch.setattr(prefill_chunks, "evaluate_against_gold", written_then_cancelled)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == Job.Status.CANCELLED
    assert AutoAlignment.objects.filter(pair__corpus__name="c").count() == 3
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert job.result is not None and job.result["prefilled_pairs"] == 3


def test_a_cancel_stops_a_prefill_within_a_pair_not_at_the_end_of_its_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chunk of a slow aligner (the supervised one on a loaded machine) takes minutes; a
    cancel frees the worker at the next pair."""
    from annotate.services.jobs import job_cancel

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(5)]
    )
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": "identity"}
    )
    monkeypatch.setattr(job_chunks, "PROGRESS_MIN_INTERVAL", 0.0)
    aligned: list[int] = []
    load = prefill_chunks.prefill_model_load

    def cancelled_while_aligning(path: Path) -> object:
        aligner = load(path)
        align = aligner.align

        def align_then_cancel(source: list[str], target: list[str]) -> object:
            aligned.append(1)
            if len(aligned) == 2:
                job_cancel(job=job)
            return align(source, target)

        aligner.align = align_then_cancel  # type: ignore[method-assign]
        return aligner

    monkeypatch.setattr(prefill_chunks, "prefill_model_load", cancelled_while_aligning)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == Job.Status.CANCELLED
    assert len(aligned) == 2, "it stopped at the pair after the cancel"
    assert not AutoAlignment.objects.filter(pair__corpus__name="c").exists()


@pytest.mark.django_db(transaction=True)
def test_the_periodic_check_locks_each_corpus_inside_a_transaction() -> None:
    """Outside the tests' own transaction, as beat runs it: PostgreSQL refuses a row lock
    outside a transaction."""
    Corpus.objects.create(name="locked", prefill_aligner="identity", prefill_retrain_every=1)
    assert prefills_retrain_due() == []


def test_the_pairs_planned_for_someone_are_prefilled_before_the_others(
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    """A prefill of a large corpus aligns for a long while: the pairs annotators open next get
    the new prefill first (corpus order within each part); a submitted assignment plans no
    more work on its pair."""

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(6)]
    )
    pairs = {p.external_id: p for p in SentencePair.objects.filter(corpus__name="c")}
    annotator = get_user_model().objects.create(username="ann")
    for name in ("p4", "p2"):
        Assignment.objects.create(pair=pairs[name], annotator=annotator)
    Assignment.objects.create(
        pair=pairs["p1"], annotator=annotator, status=Assignment.Status.SUBMITTED
    )
    settings.PREFILL_CHUNK_PAIRS = 2
    order: list[str] = []
    write = prefill_chunks.write_prefills

    def recorded(*args: object, **options: object) -> tuple[int, set[int]]:
        order.extend(SentencePair.objects.get(pk=pid).external_id for pid, _, _ in args[2])
        return write(*args, **options)

    monkeypatch.setattr(prefill_chunks, "write_prefills", recorded)
    assert run_prefill("identity").status == "succeeded"
    assert order == ["p2", "p4", "p0", "p1", "p3", "p5"]
