"""Corpus statistics: the first real job, recomputed on demand."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db.models import Count

from annotate.exceptions import DomainError
from annotate.jobs_runtime import job_task
from annotate.models import (
    AnnotationLink,
    Assignment,
    AutoAlignment,
    Corpus,
    GoldAlignment,
    Job,
    SentencePair,
)

LENGTH_BINS = (0, 10, 20, 30, 40, 60, 80, 10**9)


def _length_summary(lengths: list[int]) -> dict[str, Any]:
    if not lengths:
        return {"count": 0}
    values = np.asarray(lengths)
    histogram, _ = np.histogram(values, bins=LENGTH_BINS)
    labels = [
        f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+" for lo, hi in itertools.pairwise(LENGTH_BINS)
    ]
    return {
        "count": int(values.size),
        "mean": round(float(values.mean()), 3),
        "min": int(values.min()),
        "max": int(values.max()),
        "histogram": dict(zip(labels, (int(v) for v in histogram), strict=True)),
    }


def corpus_stats_compute(
    corpus: Corpus, progress: Callable[[float, str], None] | None = None
) -> dict[str, Any]:
    """Pair counts per sub-corpus and split, sentence lengths, annotation progress, link counts."""
    pairs = SentencePair.objects.filter(corpus=corpus)
    by_subcorpus: dict[str, dict[str, Any]] = {}
    groups = list(pairs.values_list("subcorpus", flat=True).distinct().order_by("subcorpus"))
    for index, label in enumerate(groups):
        rows = list(pairs.filter(subcorpus=label).values_list("split", "n_source", "n_target"))
        by_subcorpus[label or "(none)"] = {
            "pairs": len(rows),
            "splits": dict(sorted(Counter(split or "(none)" for split, _, _ in rows).items())),
            "source_length": _length_summary([n for _, n, _ in rows]),
            "target_length": _length_summary([m for _, _, m in rows]),
            "shorter_length": _length_summary([min(n, m) for _, n, m in rows]),
        }
        if progress is not None:
            progress(80.0 * (index + 1) / max(1, len(groups)), f"sub-corpus {label or '(none)'}")
    assignments = Assignment.objects.filter(pair__corpus=corpus)
    status_counts = dict(
        assignments.values_list("status").annotate(n=Count("id")).order_by("status")
    )
    # Pairs by how many annotations they have: counted from the annotated assignments (grouping
    # pair rows instead would sort every row by all its columns on SQLite).
    per_pair = Counter(
        int(n)
        for n in assignments.filter(annotation__isnull=False)
        .values("pair")
        .annotate(n=Count("*"))
        .values_list("n", flat=True)
        .order_by()
    )
    unannotated = pairs.count() - sum(per_pair.values())
    if unannotated:
        per_pair[0] = unannotated
    links = AnnotationLink.objects.filter(annotation__assignment__pair__corpus=corpus)
    if progress is not None:
        progress(95.0, "annotation counts")
    return {
        "corpus": corpus.name,
        "pairs": pairs.count(),
        "subcorpora": by_subcorpus,
        "assignments": {
            status: status_counts.get(status, 0) for status in Assignment.Status.values
        },
        "pairs_by_annotation_count": {str(k): v for k, v in sorted(per_pair.items())},
        "multiply_annotated_pairs": sum(v for k, v in per_pair.items() if k >= 2),
        "annotation_links": {
            "sure": links.filter(sure=True).count(),
            "possible_only": links.filter(sure=False).count(),
        },
        "prefilled_pairs": AutoAlignment.objects.filter(pair__corpus=corpus)
        .values("pair")
        .distinct()
        .count(),
        "gold_alignments": GoldAlignment.objects.filter(pair__corpus=corpus).count(),
    }


def corpus_stats_job_create(*, corpus: Corpus, owner: User | None = None) -> Job:
    """Queue a ``corpus_stats`` job that recomputes the corpus' figures."""
    return corpus_stats_run.create(corpus=corpus, owner=owner, parameters={"corpus": corpus.name})


@job_task(kind="corpus_stats")
def corpus_stats_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner: compute outside a transaction, then store the figures on the corpus."""
    if job.corpus is None:
        raise DomainError("a corpus_stats job needs a corpus")
    stats = corpus_stats_compute(job.corpus, progress)
    Corpus.objects.filter(pk=job.corpus.pk).update(stats=stats)
    return stats
