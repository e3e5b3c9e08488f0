"""A prefill job's aligning as chunk tasks: the trained model saved, loaded by each chunk, and
the chord's callback building the result (the chunks run eagerly, in the runner)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from annotate import jobs_runtime
from annotate.models import Assignment, AutoAlignment, AutoLink, Corpus, Job, SentencePair
from annotate.services import prefill, prefill_chunks
from annotate.services.annotations import annotation_open
from annotate.services.corpora import corpus_import_records
from annotate.services.jobs import job_cancel
from annotate.services.prefill import prefill_job_create
from scoring.aligners import feature_store, get_aligner, supervised
from scoring.aligners.base import Aligner
from tests.annotate.agreement_data import agreement_records

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgres,
    pytest.mark.usefixtures("eager_chunks"),
]

#: Every aligner a prefill can run, with options that keep its training short.
ALIGNERS = {
    "identity": {},
    "lexical": {},
    "em": {"model1_iterations": 3, "hmm_iterations": 3},
    "supervised": {"trees": 20, "learning_rate": 0.2},
}


@pytest.fixture
def corpus() -> Corpus:
    """30 pairs with submitted work by two annotators (finished work to learn from), gold on
    every third."""
    records = agreement_records(pairs=30, seed=3)
    for index, record in enumerate(records):
        record.prefill = None
        del record.annotations["ann3"]  # in progress: planned work on every pair
        if index % 3 == 0:
            record.gold_alignment = record.annotations["ann1"].alignment
    corpus_import_records(corpus_name="chunked", records=records)
    return Corpus.objects.get(name="chunked")


def _stored_links(pair_ids: list[int]) -> dict[int, set[tuple[int, int, bool, float | None]]]:
    stored: dict[int, set[tuple[int, int, bool, float | None]]] = {pid: set() for pid in pair_ids}
    for pid, i, j, sure, confidence in AutoLink.objects.filter(
        alignment__pair_id__in=pair_ids
    ).values_list("alignment__pair_id", "i", "j", "sure", "confidence"):
        stored[pid].add((i, j, sure, confidence))
    return stored


@pytest.mark.parametrize("aligner", list(ALIGNERS))
def test_the_chunks_write_exactly_what_the_trained_aligner_in_memory_gives(
    corpus: Corpus,
    aligner: str,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    """The model the runner trained is saved and loaded by the chunks: every pair's links,
    sure or possible, and confidences are those of the aligner as trained, in memory."""
    settings.PREFILL_CHUNK_PAIRS = 7  # 30 pairs: 5 chunks
    trained: list[Aligner] = []
    save = prefill_chunks.prefill_model_save

    def kept(*, job_id: int, aligner: Aligner) -> Path:
        trained.append(aligner)
        return save(job_id=job_id, aligner=aligner)

    monkeypatch.setattr(prefill, "prefill_model_save", kept)
    job = prefill_job_create(corpus=corpus, aligner=aligner, options=ALIGNERS[aligner])
    assert jobs_runtime.job_run(job_id=job.pk, worker="here") == Job.Status.SUCCEEDED
    [in_memory] = trained
    pairs = list(
        SentencePair.objects.filter(corpus=corpus).values_list(
            "id", "source_tokens", "target_tokens"
        )
    )
    stored = _stored_links([pid for pid, _, _ in pairs])
    for pid, src, tgt in pairs:
        output = in_memory.align(src, tgt)
        expected = {
            (i, j, (i, j) in output.alignment.sure, output.confidence[(i, j)])
            for i, j in output.alignment.possible
        }
        assert stored[pid] == expected, f"pair {pid}"
    job.refresh_from_db()
    assert job.result["prefilled_pairs"] == 30
    assert job.result["links"] == sum(len(links) for links in stored.values())
    assert not prefill_chunks.prefill_model_path(job.pk).exists(), "the model file went"


@pytest.mark.parametrize("aligner", list(ALIGNERS))
def test_a_loaded_model_aligns_as_the_trained_one(
    corpus: Corpus, aligner: str, tmp_path: Path
) -> None:
    """Saved and loaded as a chunk loads it: the same links, states and confidences (exact)
    and warnings, pair by pair, for each aligner a prefill can run."""
    from annotate.services.prefill import _aligner_options, _finished_work

    rows = list(
        SentencePair.objects.filter(corpus=corpus)
        .order_by("position")
        .values_list("id", "source_tokens", "target_tokens")
    )
    trained = get_aligner(aligner, **_aligner_options(aligner, ALIGNERS[aligner]))
    finished = _finished_work(corpus)
    gold = [finished.get(pid) for pid, _, _ in rows] if trained.uses_gold else None
    trained.fit([(src, tgt) for _, src, tgt in rows], gold)
    path = prefill_chunks.prefill_model_save(job_id=999, aligner=trained)
    loaded = prefill_chunks.prefill_model_load(path)
    assert loaded is not trained and type(loaded) is type(trained)
    assert prefill_chunks.prefill_model_load(path) is loaded, "loaded once per process"
    for _, src, tgt in rows:
        mine, theirs = trained.align(src, tgt), loaded.align(src, tgt)
        assert theirs.alignment.sure == mine.alignment.sure
        assert theirs.alignment.possible == mine.alignment.possible
        assert theirs.confidence == mine.confidence
        assert theirs.warnings == mine.warnings
    prefill_chunks.prefill_model_discard(999)
    assert not path.exists()


def test_a_corpus_larger_than_a_chunk_goes_out_as_a_chord_on_the_chunks_queue(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """The runner trains, saves the model and sends one task per chunk of the pairs to
    prefill, planned ones first, on the chunks' own queue; the job waits, deferred, for them."""
    settings.PREFILL_CHUNK_PAIRS = 8
    sent = _chord_kept(monkeypatch)
    pairs = list(SentencePair.objects.filter(corpus=corpus).order_by("position"))
    user = get_user_model().objects.create(username="planned")
    Assignment.objects.create(pair=pairs[20], annotator=user)
    job = prefill_job_create(corpus=corpus, aligner="identity")
    assert jobs_runtime.job_run(job_id=job.pk, worker="here") == Job.Status.RUNNING
    job.refresh_from_db()
    assert job.deferred and job.progress == 10
    header = sent["header"]
    chunks = [signature.args[1] for signature in header]
    assert [len(chunk) for chunk in chunks] == [8, 8, 8, 6]
    assert chunks[0][0] == pairs[20].pk, "the planned pair lands first"
    assert sum(signature.args[2] for signature in header) == 89, "the chunks share 10-99 %"
    assert {signature.options["queue"] for signature in header} == {settings.CHUNK_QUEUE}
    assert sent["body"].options["queue"] == settings.CHUNK_QUEUE
    assert prefill_chunks.prefill_model_path(job.pk).is_file()

    # the tasks, as a worker runs them: the progress grows chunk by chunk, the callback ends it
    results = []
    for signature in header:
        results.append(signature())
        job.refresh_from_db()
        assert job.status == Job.Status.RUNNING
        assert job.message == f"prefilled {len(signature.args[1])} more pairs"
    assert job.progress == 99
    sent["body"](results)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.progress == 100
    assert job.result["prefilled_pairs"] == 30 and job.result["skipped_started_pairs"] == 0
    assert job.result["evaluation"]["pairs"] == 10, "every third pair has gold"
    assert not prefill_chunks.prefill_model_path(job.pk).exists()


def _chord_kept(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The chord a prefill job sends, kept instead of sent: its chunk signatures under
    ``header`` and its callback under ``body``, for the test to call in the order it needs."""
    sent: dict[str, Any] = {}
    monkeypatch.setattr(
        prefill_chunks, "chord", lambda header: lambda body: sent.update(header=header, body=body)
    )
    return sent


def test_a_pair_opened_after_the_runner_chose_it_keeps_its_prefill(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _chord_kept(monkeypatch)
    job = prefill_job_create(corpus=corpus, aligner="identity")
    jobs_runtime.job_run(job_id=job.pk, worker="here")
    pair = SentencePair.objects.filter(corpus=corpus).order_by("position").first()
    assert pair is not None
    user = get_user_model().objects.create(username="late")
    annotation_open(assignment=Assignment.objects.create(pair=pair, annotator=user), actor=user)
    before = pair.prefills.count()
    sent["body"]([signature() for signature in sent["header"]])
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert (job.result["prefilled_pairs"], job.result["skipped_started_pairs"]) == (29, 1)
    assert pair.prefills.count() == before, "no new prefill under the annotator"


def test_a_chunk_run_again_after_its_write_counts_its_pairs_instead_of_writing_them_twice(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """A pool process killed between a chunk's write and its acknowledgement: the broker
    hands the chunk out again, and the run that follows finds its pairs written."""
    settings.PREFILL_CHUNK_PAIRS = 10
    sent = _chord_kept(monkeypatch)
    job = prefill_job_create(corpus=corpus, aligner="identity")
    jobs_runtime.job_run(job_id=job.pk, worker="here")
    first, *rest = sent["header"]
    lost = first()  # written, then its process died: the result never reached the chord
    again = first()
    assert again == lost
    sent["body"]([again, *(signature() for signature in rest)])
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.result["prefilled_pairs"] == 30
    pairs = SentencePair.objects.filter(corpus=corpus)
    assert all(pair.prefills.count() == 1 for pair in pairs), "one prefill per pair"
    links = AutoLink.objects.filter(alignment__pair__corpus=corpus).count()
    assert job.result["links"] == links


def test_a_cancel_between_chunks_keeps_what_was_written_and_removes_the_model(
    corpus: Corpus,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    settings.PREFILL_CHUNK_PAIRS = 10
    sent = _chord_kept(monkeypatch)
    job = prefill_job_create(corpus=corpus, aligner="identity")
    jobs_runtime.job_run(job_id=job.pk, worker="here")
    first = sent["header"][0]()
    assert job_cancel(job=job)
    rest = [signature() for signature in sent["header"][1:]]
    assert rest == [None, None], "the chunks after the cancel compute nothing"
    sent["body"]([first, *rest])
    job.refresh_from_db()
    links = AutoLink.objects.filter(alignment__pair__corpus=corpus).count()
    assert job.status == Job.Status.CANCELLED
    assert job.result == {"aligner": "identity", "prefilled_pairs": 10, "links": links}
    assert not prefill_chunks.prefill_model_path(job.pk).exists()


def test_a_failed_chunk_fails_the_job_and_removes_the_model(corpus: Corpus) -> None:
    job = prefill_job_create(corpus=corpus, aligner="identity")
    assert jobs_runtime.job_claim(job_id=job.pk, worker="here")
    path = prefill_chunks.prefill_model_save(job_id=job.pk, aligner=get_aligner("identity"))
    prefill_chunks.prefill_failed(None, MemoryError("out of memory"), None, job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error == "a chunk of the prefill failed: out of memory"
    assert not path.exists()


def test_the_clean_up_removes_the_models_of_jobs_that_ended_only(corpus: Corpus) -> None:
    from annotate.tasks import clean_exports

    running = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.RUNNING)
    reaped = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.FAILED)
    identity = get_aligner("identity")
    kept = prefill_chunks.prefill_model_save(job_id=running.pk, aligner=identity)
    dead = prefill_chunks.prefill_model_save(job_id=reaped.pk, aligner=identity)
    gone = prefill_chunks.prefill_model_save(job_id=reaped.pk + 1000, aligner=identity)
    assert clean_exports() >= 2
    assert kept.exists() and not dead.exists() and not gone.exists()


def test_the_reaping_beat_removes_the_model_of_a_prefill_failed_after_its_worker_died(
    corpus: Corpus,
) -> None:
    from annotate.tasks import reap_stale_jobs

    reaped = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.FAILED)
    running = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.RUNNING)
    identity = get_aligner("identity")
    dead = prefill_chunks.prefill_model_save(job_id=reaped.pk, aligner=identity)
    kept = prefill_chunks.prefill_model_save(job_id=running.pk, aligner=identity)
    reap_stale_jobs()
    assert not dead.exists() and kept.exists()


def _newest_links(corpus: Corpus) -> dict[int, set[tuple[int, int, bool, float | None]]]:
    """Each pair's links, states and confidences in its newest prefill."""
    newest: dict[int, int] = {}
    for alignment_id, pid in (
        AutoAlignment.objects.filter(pair__corpus=corpus)
        .order_by("pair_id", "-created_at", "-id")
        .values_list("id", "pair_id")
    ):
        newest.setdefault(pid, alignment_id)
    stored: dict[int, set[tuple[int, int, bool, float | None]]] = {pid: set() for pid in newest}
    by_alignment = {alignment_id: pid for pid, alignment_id in newest.items()}
    for alignment_id, i, j, sure, confidence in AutoLink.objects.filter(
        alignment_id__in=list(by_alignment)
    ).values_list("alignment_id", "i", "j", "sure", "confidence"):
        stored[by_alignment[alignment_id]].add((i, j, sure, confidence))
    return stored


def test_a_supervised_prefill_writes_the_same_with_the_feature_store_as_without(
    corpus: Corpus, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the store, with it empty (features computed and kept) and with it full in a
    process that never computed them (a retraining or a chunk elsewhere): the same prefills."""
    settings.PREFILL_CHUNK_PAIRS = 7
    options = ALIGNERS["supervised"]

    def run() -> dict[int, set[tuple[int, int, bool, float | None]]]:
        supervised.clear_caches()  # a fresh pool process's state
        prefill_chunks._loaded.clear()
        job = prefill_job_create(corpus=corpus, aligner="supervised", options=options)
        assert jobs_runtime.job_run(job_id=job.pk, worker="here") == Job.Status.SUCCEEDED
        return _newest_links(corpus)

    settings.FEATURE_CACHE_MB = 0
    without = run()
    store = Path(settings.EXPORT_DIR) / prefill_chunks.FEATURES_FOLDER
    assert not store.exists()
    settings.FEATURE_CACHE_MB = 64
    assert run() == without
    assert len(list(store.glob("*/*.npy"))) == SentencePair.objects.filter(corpus=corpus).count()

    def computed(*args: object) -> None:
        raise AssertionError("features computed although stored")

    monkeypatch.setattr(supervised.SupervisedAligner, "_compute_features", computed)
    assert run() == without
    feature_store.use(None)


def test_the_feature_store_is_off_at_zero_and_the_clean_up_keeps_it_within_its_bound(
    settings: Any,
) -> None:
    from annotate.tasks import clean_exports

    settings.FEATURE_CACHE_MB = 0
    assert prefill_chunks.feature_store() is None
    settings.FEATURE_CACHE_MB = 1
    store = prefill_chunks.feature_store()
    assert store is not None and store.max_bytes == 1024 * 1024
    assert store.root == Path(settings.EXPORT_DIR) / prefill_chunks.FEATURES_FOLDER
    matrix = np.zeros((100, 100), dtype=np.float32)  # 40 kB each
    for k in range(60):
        path = store.path("k", [str(k)], ["x"])
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, matrix)  # past the bound, as several processes' writes can be
    assert store.size() > store.max_bytes
    assert clean_exports() >= 1
    assert store.size() <= store.max_bytes


def test_a_model_the_disk_cannot_hold_fails_the_job_saying_so_and_leaves_no_file(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path
) -> None:
    """The disk of the job files fills while the trained model is saved: the job fails before
    it writes any prefill, saying the disk is full, and the half-written model goes at once
    (the clean-up would take it only at its next round, the disk full meanwhile)."""
    settings.EXPORT_DIR = tmp_path / "exports"

    def disk_full(self: Aligner, path: Path) -> None:
        Path(path).write_bytes(b"half a model")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(Aligner, "save", disk_full)
    job = prefill_job_create(corpus=corpus, aligner="identity")
    assert jobs_runtime.job_run(job_id=job.pk, worker="here") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.error.startswith("the server's disk for job files is full"), job.error
    assert list((tmp_path / "exports" / prefill_chunks.MODELS_FOLDER).iterdir()) == []
    assert not AutoLink.objects.filter(alignment__pair__corpus=corpus).exists()


def test_the_clean_up_empties_the_feature_store_once_it_is_switched_off(settings: Any) -> None:
    """Switched off after it was used, the store's files (up to its old bound) do not stay on
    the disk for ever: the periodic clean-up removes them."""
    from annotate.tasks import clean_exports

    settings.FEATURE_CACHE_MB = 1
    store = prefill_chunks.feature_store()
    assert store is not None
    store.put("k", ["a"], ["b"], np.zeros((1, 3), dtype=np.float32))
    assert store.size() > 0
    settings.FEATURE_CACHE_MB = 0
    clean_exports()
    assert store.size() == 0
