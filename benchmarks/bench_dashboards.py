"""Server time of the corpus admin's pages and the API calls behind them.

Targets: every dashboard page and API call ≤ 300 ms at p95 for a corpus of 10,000 pairs with 3
annotators (every pair annotated by all three, with a prefill); the corpus figures and the pair
list also at 100,000 pairs; an annotator's home page and queue when they hold all 10,000; and
every admin page and live fragment (the home page, the corpora list, each corpus tab, the jobs
and the adjudication list) beside a corpus in the middle of its campaign: 100,000 pairs, 30,000
assignments of 4 annotators, most submitted, among four smaller corpora.
Each request goes through Django's full stack in this process (``django.test.Client``: URL
routing, session, permissions, serialization), on a fresh SQLite database in a temporary
directory, or on ``--database-url``. The peer is the smallest API call (``/api/me/``) measured
in the same rounds, so the ratio shows what the figures cost beyond a request's fixed overhead.

    python -m benchmarks.bench_dashboards [--pairs 10000] [--large 100000] [--campaign 100000]
        [--rounds 15] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.results import Row, save

TARGET_MS = 300.0
#: Pairs whose link rows are written per statement batch while a corpus is built.
LINK_CHUNK = 10_000
WORDS = (
    "the a council approved new budget on tuesday after three hour debate police arrested two "
    "men in connection with burglary shop minister resigned friday citing personal reasons"
).split()


def _setup(var: Path, database_url: str | None) -> None:
    os.environ["VAR_DIR"] = str(var)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{var}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["CACHE_URL"] = "locmem://"
    os.environ["API_RATE_USER"] = "1000000/min"
    os.environ["API_RATE_ADDRESS"] = "1000000/min"
    import django

    django.setup()
    from django.core.management import call_command

    if database_url:
        call_command("flush", "--no-input", verbosity=0)
    call_command("migrate", "--no-input", verbosity=0)


def _pairs(name: str, pairs: int, rng: random.Random) -> tuple[Any, list[Any], dict[int, Any]]:
    """A corpus of ``pairs`` pairs of 10–30 tokens in three sub-corpora, each with a prefill of
    about 12 links: the corpus, its pairs and each pair's prefill links by pair id."""
    from annotate.models import AutoAlignment, AutoLink, Corpus, SentencePair
    from annotate.services.links import links_insert

    corpus = Corpus.objects.create(name=name)
    rows = []
    for index in range(pairs):
        src = [rng.choice(WORDS) for _ in range(rng.randint(10, 30))]
        tgt = [rng.choice(WORDS) for _ in range(rng.randint(10, 30))]
        rows.append(
            SentencePair(
                corpus=corpus,
                external_id=f"p{index}",
                subcorpus=("news", "mtc", "novels")[index % 3],
                split="train",
                source_text=" ".join(src),
                target_text=" ".join(tgt),
                source_tokens=src,
                target_tokens=tgt,
                n_source=len(src),
                n_target=len(tgt),
                position=index,
            )
        )
    created = SentencePair.objects.bulk_create(rows, batch_size=2000)
    prefills = AutoAlignment.objects.bulk_create(
        (AutoAlignment(pair=pair, aligner="identity") for pair in created), batch_size=2000
    )
    prefill_links = {pair.pk: _links(pair, rng) for pair in created}
    # Link rows straight to the table, as the product's saves and imports write them (an ORM
    # object per link would be most of the build's time).
    for start in range(0, len(created), LINK_CHUNK):
        links_insert(
            model=AutoLink,
            parent_column="alignment_id",
            rows=(
                (auto.pk, i, j, sure, 0.5)
                for auto, pair in zip(
                    prefills[start : start + LINK_CHUNK],
                    created[start : start + LINK_CHUNK],
                    strict=True,
                )
                for i, j, sure in prefill_links[pair.pk]
            ),
            with_confidence=True,
        )
    return corpus, created, prefill_links


def _links(pair: Any, rng: random.Random) -> list[tuple[int, int, bool]]:
    cells = {(rng.randrange(pair.n_source), rng.randrange(pair.n_target)) for _ in range(12)}
    return [(i, j, k % 3 != 0) for k, (i, j) in enumerate(sorted(cells))]


def _assign(
    work: list[tuple[Any, Any, str]], prefill_links: dict[int, Any], rng: random.Random
) -> None:
    """Store each ``(pair, annotator, status)`` of ``work`` as an assignment, with an
    annotation of about 12 links unless it is new, then the disagreement of the pairs
    submitted twice or more (what the submits would store)."""
    from annotate.models import Annotation, AnnotationLink, Assignment
    from annotate.services.annotations import edits_from_prefill
    from annotate.services.disagreement import pair_disagreement_refresh
    from annotate.services.links import links_insert

    new = Assignment.Status.NEW
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                pair=pair,
                annotator=user,
                status=status,
                active_seconds=0.0 if status == new else rng.uniform(20, 200),
            )
            for pair, user, status in work
        ),
        batch_size=2000,
    )
    started = [(a, pair) for a, (pair, _, status) in zip(assignments, work, strict=True)]
    started = [(a, pair) for a, pair in started if a.status != new]
    links = {a.pk: _links(pair, rng) for a, pair in started}
    annotations = Annotation.objects.bulk_create(
        (
            Annotation(
                assignment=a,
                link_count=len(links[a.pk]),
                prefill_edits=edits_from_prefill(
                    [(i, j) for i, j, _ in links[a.pk]],
                    [(i, j) for i, j, _ in prefill_links[pair.pk]],
                ),
            )
            for a, pair in started
        ),
        batch_size=2000,
    )
    for start in range(0, len(started), LINK_CHUNK):
        links_insert(
            model=AnnotationLink,
            parent_column="annotation_id",
            rows=(
                (annotation.pk, i, j, sure)
                for annotation, (a, _) in zip(
                    annotations[start : start + LINK_CHUNK],
                    started[start : start + LINK_CHUNK],
                    strict=True,
                )
                for i, j, sure in links[a.pk]
            ),
        )
    submitted = Counter(a.pair_id for a in assignments if a.status == Assignment.Status.SUBMITTED)
    pair_disagreement_refresh(pair_ids=[pk for pk, n in submitted.items() if n >= 2])


def _annotators(prefix: str, count: int) -> list[Any]:
    from django.contrib.auth import get_user_model

    from annotate import roles

    group = roles.role_group(roles.ANNOTATOR)
    people = []
    for k in range(count):
        user, _ = get_user_model().objects.get_or_create(username=f"{prefix}{k}")
        user.groups.add(group)
        people.append(user)
    return people


def build_corpus(name: str, pairs: int, annotators: int, seed: int = 0) -> int:
    """A corpus of ``pairs`` pairs, each with a prefill and, when ``annotators`` > 0, a
    submitted annotation by each annotator (about 12 links), with the disagreement of those
    submitted twice or more stored. Returns its id."""
    from annotate.models import Assignment

    rng = random.Random(seed)
    corpus, created, prefill_links = _pairs(name, pairs, rng)
    submitted = Assignment.Status.SUBMITTED
    people = _annotators("annotator", annotators)
    _assign([(pair, user, submitted) for user in people for pair in created], prefill_links, rng)
    return int(corpus.pk)


def build_campaign(name: str, pairs: int, assigned: int, seed: int = 0) -> int:
    """A corpus in the middle of its campaign: ``pairs`` pairs with a prefill, the first
    ``assigned`` of them planned for two or three of four annotators (half each: 2.5 ×
    ``assigned`` assignments), 70 % of the assignments submitted and 10 % in progress (both
    with an annotation), the rest new; a gold alignment for one planned pair in 40. Returns
    its id."""
    from annotate.models import Assignment, GoldAlignment, GoldLink
    from annotate.services.links import links_insert

    rng = random.Random(seed)
    corpus, created, prefill_links = _pairs(name, pairs, rng)
    people = _annotators("campaigner", 4)
    statuses = [Assignment.Status.SUBMITTED] * 7 + [Assignment.Status.IN_PROGRESS]
    statuses += [Assignment.Status.NEW] * 2
    work = [
        (pair, user, rng.choice(statuses))
        for index, pair in enumerate(created[:assigned])
        for user in rng.sample(people, 3 if index % 2 == 0 else 2)
    ]
    golds = GoldAlignment.objects.bulk_create(
        GoldAlignment(pair=pair, source="adjudicated") for pair in created[:assigned:40]
    )
    links_insert(
        model=GoldLink,
        parent_column="gold_id",
        rows=(
            (gold.pk, i, j, sure)
            for gold, pair in zip(golds, created[:assigned:40], strict=True)
            for i, j, sure in prefill_links[pair.pk]
        ),
    )
    _assign(work, prefill_links, rng)
    return int(corpus.pk)


def _timed(get: Callable[[str], object], url: str) -> float:
    start = time.perf_counter()
    response = get(url)
    elapsed = (time.perf_counter() - start) * 1000
    status = getattr(response, "status_code", 0)
    if status != 200:
        raise SystemExit(f"{url} answered {status}")
    return elapsed


def measure(urls: list[str], rounds: int, username: str = "bench-admin") -> dict[str, list[float]]:
    """Milliseconds per request for every URL, interleaved over ``rounds`` rounds after one
    warm-up round (the peer ``/api/me/`` is measured in every round too), signed in as
    ``username`` (created as an admin if missing)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotate import roles

    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.groups.add(roles.role_group(roles.ADMIN))
    client = Client()
    client.force_login(user)
    everything = ["/api/me/", *urls]
    times: dict[str, list[float]] = {url: [] for url in everything}
    for round_ in range(rounds + 1):
        for url in everything:
            elapsed = _timed(client.get, url)
            if round_:
                times[url].append(elapsed)
    return times


def report(title: str, times: dict[str, list[float]]) -> Row:
    """Prints every request's p50/p95; the row of the slowest (by p95) against the peer."""
    peer = statistics.median(times["/api/me/"])
    print(f"\n{title}")
    print(f"{'request':58} {'p50 ms':>8} {'p95 ms':>8} {'× /api/me/':>11}")
    worst = ("", 0.0)
    for url, values in times.items():
        values = sorted(values)
        p50 = statistics.median(values)
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        if url != "/api/me/" and p95 > worst[1]:
            worst = (url, p95)
        flag = "  MISSED" if url != "/api/me/" and p95 > TARGET_MS else ""
        print(f"{url:58} {p50:8.1f} {p95:8.1f} {p50 / peer:11.1f}{flag}")
    return Row(
        f"{title}: the slowest request, p95 ({worst[0]})",
        worst[1],
        "ms",
        "/api/me/ (p50)",
        peer,
        None,
        f"p95 ≤ {TARGET_MS:.0f} ms",
        worst[1] <= TARGET_MS,
    )


def dashboard_urls(corpus: int) -> list[str]:
    pages = [f"/corpora/{corpus}/{tab}" for tab in ("", "pairs/", "prefill/", "assignments/")]
    pages += [f"/corpora/{corpus}/{tab}" for tab in ("agreement/", "export/")]
    return [
        "/corpora/",
        *pages,
        "/jobs/",
        "/users/",
        "/api/corpora/",
        f"/api/corpora/{corpus}/",
        f"/api/corpora/{corpus}/pairs/",
        f"/api/corpora/{corpus}/pairs/?status=submitted&sort=-length&q=council",
        f"/api/corpora/{corpus}/assignments/progress/",
        f"/api/corpora/{corpus}/export/",
        f"/api/jobs/?corpus={corpus}",
        "/api/users/?role=annotator",
        "/api/aligners/",
        "/api/adjudication/",
    ]


def campaign_urls(corpus: int, annotator: str) -> list[str]:
    """Every admin page a corpus in the middle of its campaign shows, every filter of its lists
    and every live fragment its pages refresh every two seconds while a job runs."""
    tab = f"/corpora/{corpus}"
    return [
        "/",
        "/?fragment=overview",
        "/corpora/",
        "/corpora/?fragment=corpora",
        "/corpora/?fragment=imports",
        "/corpora/?show=archived",
        "/corpora/?q=campaign",
        "/corpora/?sort=-submitted",
        f"{tab}/",
        f"{tab}/assignments/",
        *(f"{tab}/assignments/?fragment={name}" for name in ("summary", "progress", "plan")),
        f"{tab}/assignments/?fragment=handover",
        f"{tab}/pairs/",
        *(f"{tab}/pairs/?status={status}" for status in ("submitted", "unassigned", "adjudicated")),
        f"{tab}/pairs/?status=in_progress&annotator={annotator}",
        f"{tab}/pairs/?subcorpus=news&min_length=15&max_length=20&sort=-length",
        f"{tab}/pairs/?q=minister&page=50",
        f"{tab}/prefill/",
        f"{tab}/prefill/?fragment=runs",
        f"{tab}/prefill/?fragment=tiles",
        f"{tab}/agreement/",
        f"{tab}/agreement/?fragment=reports",
        f"{tab}/export/",
        f"{tab}/export/?fragment=exports",
        f"{tab}/delete/",
        "/jobs/",
        "/jobs/?fragment=jobs",
        "/adjudication/",
        f"/adjudication/?corpus={corpus}&sort=disagreement",
        f"/api/corpora/{corpus}/",
        f"/api/corpora/{corpus}/assignments/progress/",
    ]


def build_campaign_world(pairs: int) -> int:
    """The corpus of :func:`build_campaign` (``pairs`` pairs, 12 % of them planned), three
    corpora of 2,000 pairs × 2 annotators, an archived one, and a plan running in the big
    corpus (so that its pages' fragments are live). Returns the big corpus's id."""
    from django.utils import timezone

    from annotate.models import Corpus, Job

    corpus = build_campaign("campaign", pairs, pairs * 12 // 100, seed=2)
    for k in range(3):
        build_corpus(f"small-{k}", 2000, annotators=2, seed=3 + k)
    old = build_corpus("old", 1000, annotators=1, seed=6)
    Corpus.objects.filter(pk=old).update(archived_at=timezone.now())
    parameters = {"annotators": ["campaigner0", "campaigner1"], "per_pair": 2}
    Job.objects.create(
        kind="assignments_plan", corpus_id=corpus, status="running", parameters=parameters
    )
    return corpus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--campaign", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 2,000 pairs, no large corpus, a campaign of 20,000 pairs, 3 rounds; "
        "its figures are not saved",
    )
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args()
    if args.quick:
        args.pairs, args.large, args.campaign, args.rounds = 2000, 0, 20_000, 3
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    with tempfile.TemporaryDirectory() as tmp:
        _setup(Path(tmp), args.database_url)
        start = time.perf_counter()
        corpus = build_corpus("dashboard", args.pairs, annotators=3)
        print(f"built {args.pairs:,} pairs × 3 annotators in {time.perf_counter() - start:.0f} s")
        rows = [
            report(
                f"{args.pairs:,} pairs × 3 annotators, every admin page and API call",
                measure(dashboard_urls(corpus), args.rounds),
            ),
            report(
                f"an annotator holding {args.pairs:,} pairs: the home page and the queue",
                measure(
                    ["/", "/api/queue/", f"/api/queue/?page={args.pairs // 200}&status=submitted"],
                    args.rounds,
                    username="annotator0",
                ),
            ),
        ]
        if args.large:
            start = time.perf_counter()
            large = build_corpus("large", args.large, annotators=1, seed=1)
            print(
                f"\nbuilt {args.large:,} pairs × 1 annotator in {time.perf_counter() - start:.0f} s"
            )
            urls = [
                f"/corpora/{large}/",
                f"/api/corpora/{large}/",
                f"/api/corpora/{large}/pairs/",
                f"/api/corpora/{large}/pairs/?page=400&sort=-length",
                f"/api/corpora/{large}/pairs/?q=minister&subcorpus=news",
            ]
            rows.append(
                report(
                    f"{args.large:,} pairs, the corpus figures and the pair list",
                    measure(urls, args.rounds),
                )
            )
        if args.campaign:
            start = time.perf_counter()
            campaign = build_campaign_world(args.campaign)
            print(f"\nbuilt the campaign in {time.perf_counter() - start:.0f} s")
            assigned = args.campaign * 12 // 100 * 5 // 2
            rows.append(
                report(
                    f"a campaign: {args.campaign:,} pairs, {assigned:,} assignments of 4 "
                    "annotators among 5 corpora, every admin page and live fragment",
                    measure(campaign_urls(campaign, "campaigner1"), args.rounds),
                )
            )
    if not args.quick:
        save("bench_dashboards", rows)
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
