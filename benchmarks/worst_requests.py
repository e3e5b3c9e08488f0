"""The data and the worst request of every endpoint for ``bench_worst_requests``.

:class:`World` builds what the requests need (a corpus at the dashboards' scale, pairs at the
token limit with every cell linked, trained scorers, finished jobs); :func:`all_cases` lists
one or more worst requests per endpoint, each rebuilt for every round when it changes data.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from benchmarks.bench_dashboards import WORDS, build_corpus

#: Sentences of the import's longest length: 250 tokens (scoring.formats.MAX_TOKENS).
LONG = 250
STS_PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8),
    ("A woman is slicing an onion.", "A man is dancing.", 0.2),
    ("The cat sat on the mat.", "A cat was sitting on a mat.", 4.2),
    ("Stocks fell sharply on Monday.", "Shares dropped steeply on Monday.", 4.5),
    ("He bought a new car.", "The weather is nice today.", 0.1),
    ("A dog runs in the park.", "A dog is running through a park.", 4.6),
    ("The president gave a speech.", "The leader addressed the nation.", 3.1),
    ("Two boys play football.", "Two children are playing soccer.", 3.9),
    ("The train was late again.", "A bird sings on a branch.", 0.3),
    ("She reads a book.", "A woman is reading.", 3.5),
    ("The market closed higher.", "Stocks ended the day up.", 4.0),
    ("A child eats an apple.", "A kid is eating fruit.", 3.7),
]
PATHOLOGICAL_MARKDOWN = "!["  # markdown-it-py's slowest input per character (measured)


@dataclass
class Request:
    method: str
    url: str
    body: Any = None
    content_type: str = "application/json"
    expect: tuple[int, ...] = (200,)


@dataclass
class Case:
    """The worst request of one operation (``"METHOD /api/path/{param}/"`` as in the schema, or
    ``"page /path/"``): ``build(round)`` makes a fresh one per round."""

    operation: str
    label: str
    role: str
    build: Callable[[int], Request]
    times: list[float] = field(default_factory=list)
    error: str = ""


def _words(count: int, rng: random.Random) -> list[str]:
    return [rng.choice(WORDS) for _ in range(count)]


def _full_grid(n: int, m: int, sure: bool | None = None) -> dict[tuple[int, int], bool]:
    """The most links an alignment may have (``MAX_LINKS``), the grid's first cells row by row;
    sure and possible alternate unless ``sure`` says which."""
    from annotate.services.annotations import MAX_LINKS

    cells = [(i, j) for i in range(n) for j in range(m)][:MAX_LINKS]
    return {(i, j): ((i + j) % 2 == 0) if sure is None else sure for i, j in cells}


class Client:
    """``django.test.Client`` with one call for every method and body kind."""

    def __init__(self, user: Any = None) -> None:
        from django.test import Client as DjangoClient

        self.client = DjangoClient(raise_request_exception=True)
        if user is not None:
            self.client.force_login(user)

    def get(self, url: str) -> Any:
        return self.client.get(url)

    def generic_call(self, method: str, url: str, **kwargs: Any) -> Any:
        if "data" in kwargs and "content_type" not in kwargs:  # multipart
            return self.client.post(url, kwargs["data"])
        return self.client.generic(method, url, **kwargs)


@dataclass
class World:
    corpus: int
    pairs: int
    rounds: int
    var: Path
    upload_bytes: int
    users: dict[str, Any] = field(default_factory=dict)
    ids: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, pairs: int, *, rounds: int, var: Path, upload_bytes: int) -> World:
        from django.db.models import F

        from annotate.models import SentencePair

        corpus = build_corpus("bench", pairs, annotators=3)
        # gold scores to train a scorer on (a request with none is refused before queueing)
        SentencePair.objects.filter(corpus=corpus).update(gold_score=F("position") % 6)
        world = cls(corpus, pairs, rounds, var, upload_bytes)
        world.ids["middle"] = _middle_pair(corpus)
        world._people()
        world._long_pairs()
        world._jobs()
        world._scorers()
        world._guidelines()
        return world

    # -- people ---------------------------------------------------------------------------------

    def _people(self) -> None:
        from django.contrib.auth import get_user_model

        from annotate import roles

        model = get_user_model()
        for name, role in (
            ("root", roles.ADMIN),
            ("judge", roles.ADJUDICATOR),
            ("alice", roles.ANNOTATOR),
            ("bob", roles.ANNOTATOR),
        ):
            user = model.objects.create_user(username=name, password="a-long-Password-1")
            user.groups.add(roles.role_group(role))
            self.users[name] = user
        for k in range(3):
            self.users[f"annotator{k}"] = model.objects.get(username=f"annotator{k}")
        self.users["staff"] = model.objects.create_superuser(username="staff", password=None)
        # The most annotators a request may name (annotate.apis.assignments.MAX_PEOPLE).
        from annotate.apis.assignments import MAX_PEOPLE

        crowd = model.objects.bulk_create(
            model(username=f"crowd{k:04d}") for k in range(MAX_PEOPLE)
        )
        group = roles.role_group(roles.ANNOTATOR)
        group.user_set.add(*crowd)
        self.ids["crowd"] = [user.username for user in crowd]

    # -- pairs at the token limit -------------------------------------------------------------

    def _long_pair(
        self, corpus: Any, name: str, *, split: str = "train", prefill: bool = True
    ) -> Any:
        from annotate.models import AutoAlignment, AutoLink, SentencePair
        from annotate.services.links import links_insert

        rng = random.Random(name)
        src, tgt = _words(LONG, rng), _words(LONG, rng)
        pair = SentencePair.objects.create(
            corpus=corpus,
            external_id=name,
            split=split,
            source_text=" ".join(src),
            target_text=" ".join(tgt),
            source_tokens=src,
            target_tokens=tgt,
            n_source=LONG,
            n_target=LONG,
            position=SentencePair.objects.filter(corpus=corpus).count(),
        )
        if prefill:
            auto = AutoAlignment.objects.create(pair=pair, aligner="identity")
            links_insert(
                model=AutoLink,
                parent_column="alignment_id",
                rows=((auto.pk, i, j, s, 0.5) for (i, j), s in _full_grid(LONG, LONG).items()),
                with_confidence=True,
            )
        return pair

    def _long_pairs(self) -> None:
        from annotate.models import Assignment, Corpus
        from annotate.selectors.adjudication import HISTORY_LIMIT
        from annotate.services.adjudication import gold_save
        from annotate.services.annotations import (
            annotation_open,
            annotation_save,
            annotation_submit,
        )

        corpus = Corpus.objects.create(name="long")
        self.ids["long_corpus"] = corpus.pk
        big = self._long_pair(corpus, "big")
        self.ids["big"] = big.pk
        for name in ("alice", "annotator0", "annotator1"):
            user = self.users[name]
            assignment = Assignment.objects.create(pair=big, annotator=user)
            annotation_open(assignment=assignment, actor=user)
            if name != "alice":
                annotation_submit(assignment=assignment, actor=user, base_version=1)
            self.ids[f"big_{name}"] = assignment.pk
        gold_save(
            pair=big, links=_full_grid(LONG, LONG), adjudicator=self.users["judge"], base_version=0
        )
        # A history as long as the page lists, each version setting or clearing every link.
        for version in range(1, HISTORY_LIMIT):
            links = {} if version % 2 else _full_grid(LONG, LONG)
            gold_save(pair=big, links=links, adjudicator=self.users["judge"], base_version=version)
        cleared = self._long_pair(corpus, "cleared")
        self.ids["cleared"] = cleared.pk
        trial = self._long_pair(corpus, "trial", split="trial")
        gold_save(
            pair=trial,
            links=_full_grid(LONG, LONG, sure=True),
            adjudicator=self.users["judge"],
            base_version=0,
        )
        assignment = Assignment.objects.create(pair=trial, annotator=self.users["alice"])
        annotation_open(assignment=assignment, actor=self.users["alice"])
        annotation_submit(assignment=assignment, actor=self.users["alice"], base_version=1)
        self.ids["trial"] = assignment.pk
        # One fresh assignment per round for the requests that use one up.
        for kind in ("open", "submit", "reopen", "reassign"):
            self.ids[kind] = []
            for round_ in range(self.rounds + 1):
                pair = self._long_pair(corpus, f"{kind}-{round_}")
                alice = self.users["alice"]
                assignment = Assignment.objects.create(pair=pair, annotator=alice)
                if kind != "open":
                    annotation_open(assignment=assignment, actor=alice)
                    annotation_save(
                        assignment=assignment,
                        actor=alice,
                        base_version=1,
                        links=_full_grid(LONG, LONG, sure=False),
                    )
                if kind == "reopen":
                    annotation_submit(assignment=assignment, actor=alice, base_version=2)
                self.ids[kind].append(assignment.pk)
        # Corpora without assignments to plan, and the open work of a leaving annotator.
        from annotate.models import SentencePair

        self.ids["plan"] = []
        self.ids["leavers"] = []
        from django.contrib.auth import get_user_model

        from annotate import roles

        source = list(SentencePair.objects.filter(corpus_id=self.corpus).order_by("position"))
        for round_ in range(self.rounds + 1):
            plain = Corpus.objects.create(name=f"plan-{round_}")
            SentencePair.objects.bulk_create(
                SentencePair(
                    corpus=plain,
                    external_id=p.external_id,
                    source_text=p.source_text,
                    target_text=p.target_text,
                    source_tokens=p.source_tokens,
                    target_tokens=p.target_tokens,
                    n_source=p.n_source,
                    n_target=p.n_target,
                    position=p.position,
                )
                for p in source
            )
            self.ids["plan"].append(plain.pk)
            leaver = get_user_model().objects.create(username=f"leaver{round_}")
            leaver.groups.add(roles.role_group(roles.ANNOTATOR))
            Assignment.objects.bulk_create(
                Assignment(pair=p, annotator=leaver)
                for p in SentencePair.objects.filter(corpus_id=self.corpus)
            )
            self.ids["leavers"].append(leaver.username)
        # Work abandoned long ago: every pair of the corpus in progress by one annotator.
        from datetime import timedelta

        from django.utils import timezone

        idler = get_user_model().objects.create(username="idler")
        idler.groups.add(roles.role_group(roles.ANNOTATOR))
        long_ago = timezone.now() - timedelta(days=400)
        Assignment.objects.bulk_create(
            Assignment(
                pair=p,
                annotator=idler,
                status=Assignment.Status.IN_PROGRESS,
                started_at=long_ago,
                last_activity_at=long_ago,
            )
            for p in SentencePair.objects.filter(corpus_id=self.corpus)
        )

    # -- jobs -----------------------------------------------------------------------------------

    def _jobs(self) -> None:
        from annotate.models import Corpus, Job
        from annotate.selectors.corpora import corpus_pair_records
        from annotate.services.exports import export_job_create, export_run
        from scoring.alignment.agreement import AgreementParams
        from scoring.alignment.reports import build_report

        corpus = Corpus.objects.get(pk=self.corpus)
        names = ["annotator0", "annotator1", "annotator2"]
        records = [r for r in corpus_pair_records(corpus)]
        for record in records:
            record.annotations = {k: v for k, v in record.annotations.items() if k in names}
        report = build_report(records, names, params=AgreementParams(samples=2))
        self.ids["report"] = Job.objects.create(
            kind="agreement_report",
            status=Job.Status.SUCCEEDED,
            corpus=corpus,
            owner=self.users["root"],
            result=json.loads(json.dumps(report.to_dict())),
        ).pk
        export = export_job_create(
            corpus=corpus, owner=self.users["root"], format_name="jsonl", which="all"
        )
        # The runner alone, in this thread: the file is what the download request reads.
        result = export_run.runner(export, lambda percent, message: None)
        Job.objects.filter(pk=export.pk).update(status=Job.Status.SUCCEEDED, result=result)
        self.ids["export"] = export.pk
        Job.objects.bulk_create(
            Job(
                kind="corpus_stats",
                corpus=corpus,
                owner=self.users["root"],
                status=Job.Status.SUCCEEDED,
                result={"k": k},
            )
            for k in range(200)
        )
        self.ids["cancel"] = [
            Job.objects.create(kind="corpus_stats", corpus=corpus, owner=self.users["root"]).pk
            for _ in range(self.rounds + 1)
        ]

    # -- scorers --------------------------------------------------------------------------------

    def _scorers(self) -> None:
        from annotate.models import ScorerModel
        from annotate.services.scorers import SYNC_LIMITS
        from scoring.scorers.base import get_scorer
        from scoring.text import tokenize

        pairs = [(tokenize(a), tokenize(b)) for a, b, _ in STS_PAIRS]
        targets = [y for _, _, y in STS_PAIRS]
        options = {"perp": {"epochs": 2}, "pfsm": {"cutoff": 0}, "ppda": {"cutoff": 0}}
        for kind in SYNC_LIMITS:
            scorer = get_scorer(kind, "regression", **options.get(kind, {})).fit(pairs, targets)
            ScorerModel.objects.create(
                kind=kind,
                name=f"bench-{kind}",
                training={"task": "regression"},
                weights=scorer.to_dict(),
            )

    def _guidelines(self) -> None:
        from annotate.services.guidelines import MAX_LENGTH, guidelines_set

        text = PATHOLOGICAL_MARKDOWN * (MAX_LENGTH // len(PATHOLOGICAL_MARKDOWN))
        guidelines_set(text=text)
        self.ids["guidelines"] = text


def clients_for(world: World) -> dict[str, Client]:
    clients = {name: Client(user) for name, user in world.users.items()}
    clients["anon"] = Client()
    return clients


# -- the cases -----------------------------------------------------------------------------------


def _links(n: int, m: int, round_: int) -> list[list[Any]]:
    """The most links an alignment may have, on the grid's first rows one round and on the
    next rows the next round: each save removes every link and adds as many."""
    from annotate.services.annotations import MAX_LINKS

    cells = [(i, j) for i in range(n) for j in range(m)]
    start = (round_ % 2) * MAX_LINKS
    return [[i, j, "S" if (i + j) % 2 else "P"] for i, j in cells[start : start + MAX_LINKS]]


def _deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def _middle_pair(corpus: int) -> int:
    from annotate.models import SentencePair

    pairs = SentencePair.objects.filter(corpus_id=corpus).order_by("position")
    return int(pairs.values_list("pk", flat=True)[pairs.count() // 2])


def _current_version(pair_id: int) -> int:
    from annotate.models import GoldAlignment

    return GoldAlignment.objects.get(pair_id=pair_id).version


def _gold_to_clear(pair_id: int) -> int:
    """The version of the pair's gold of ``MAX_LINKS`` links, saved again after the last
    round's clear (a clear's worst case: every link removed and logged)."""
    from django.contrib.auth import get_user_model

    from annotate.models import GoldAlignment, SentencePair
    from annotate.selectors.adjudication import last_gold_event
    from annotate.services.adjudication import NO_GOLD, gold_save

    gold = GoldAlignment.objects.filter(pair_id=pair_id).first()
    if gold is not None:
        return gold.version
    pair = SentencePair.objects.get(pk=pair_id)
    judge = get_user_model().objects.get(username="judge")
    cleared = last_gold_event(pair)  # a new gold names the version of the last round's clear
    base = NO_GOLD if cleared is None else cleared.version
    saved = gold_save(pair=pair, links=_full_grid(LONG, LONG), adjudicator=judge, base_version=base)
    return saved.gold.version


def _annotation_version(assignment_id: int) -> int:
    from annotate.models import Annotation

    return Annotation.objects.get(assignment_id=assignment_id).version


def api_cases(w: World) -> list[Case]:
    from annotate.services.annotations import MAX_COMMENT, MAX_LINKS

    c, big, ids = w.corpus, w.ids["big"], w.ids
    cases = [
        Case("GET /api/me/", "an admin", "root", lambda r: Request("GET", "/api/me/")),
        Case(
            "GET /api/queue/",
            f"an annotator holding {w.pairs:,} pairs, the last page",
            "annotator0",
            lambda r: Request("GET", f"/api/queue/?page={w.pairs // 50}&status=submitted"),
        ),
        Case(
            "GET /api/adjudication/",
            f"{w.pairs:,} pairs with 3 submitted annotations",
            "judge",
            lambda r: Request("GET", "/api/adjudication/?status=waiting"),
        ),
        Case(
            "GET /api/adjudication/next/",
            f"{w.pairs:,} pairs, most disagreement first, every filter, after the middle pair",
            "judge",
            lambda r: Request(
                "GET",
                f"/api/adjudication/next/?after={ids['middle']}&sort=-disagreement&q=the"
                f"&corpus={c}&split=train&annotator=annotator1",
            ),
        ),
        Case(
            "GET /api/aligners/",
            "every aligner",
            "root",
            lambda r: Request("GET", "/api/aligners/"),
        ),
        Case(
            "PUT /api/assignments/{assignment_id}/annotation/",
            f"{LONG}×{LONG} pair, {MAX_LINKS:,} links replaced by {MAX_LINKS:,}",
            "alice",
            lambda r: Request(
                "PUT",
                f"/api/assignments/{ids['big_alice']}/annotation/",
                {"version": _annotation_version(ids["big_alice"]), "links": _links(LONG, LONG, r)},
            ),
        ),
        Case(
            "PUT /api/assignments/{assignment_id}/annotation/",
            "a body nested 2,000 deep",
            "alice",
            lambda r: Request(
                "PUT",
                f"/api/assignments/{ids['big_alice']}/annotation/",
                _deep_json(2000),
                expect=(400,),
            ),
        ),
        Case(
            "GET /api/assignments/{assignment_id}/feedback/",
            f"trial {LONG}×{LONG}, {MAX_LINKS:,} links in both",
            "alice",
            lambda r: Request("GET", f"/api/assignments/{ids['trial']}/feedback/"),
        ),
        Case(
            "POST /api/assignments/{assignment_id}/heartbeat/",
            f"{LONG}×{LONG} pair",
            "alice",
            lambda r: Request("POST", f"/api/assignments/{ids['big_alice']}/heartbeat/"),
        ),
        Case(
            "POST /api/assignments/{assignment_id}/open/",
            f"first open, {MAX_LINKS:,}-link prefill",
            "alice",
            lambda r: Request("POST", f"/api/assignments/{ids['open'][r]}/open/"),
        ),
        Case(
            "POST /api/assignments/{assignment_id}/reassign/",
            f"{MAX_LINKS:,} links of work moved",
            "root",
            lambda r: Request(
                "POST", f"/api/assignments/{ids['reassign'][r]}/reassign/", {"annotator": "bob"}
            ),
        ),
        Case(
            "POST /api/assignments/{assignment_id}/reopen/",
            f"{MAX_LINKS:,} links",
            "alice",
            lambda r: Request("POST", f"/api/assignments/{ids['reopen'][r]}/reopen/"),
        ),
        Case(
            "POST /api/assignments/{assignment_id}/submit/",
            f"{MAX_LINKS:,} links, longest comment",
            "alice",
            lambda r: Request(
                "POST",
                f"/api/assignments/{ids['submit'][r]}/submit/",
                {
                    "version": 2,
                    "flags": ["not_paraphrase", "bad_tokenization"],
                    "comment": "x" * MAX_COMMENT,
                    "rating": 5.0,
                },
            ),
        ),
        Case(
            "POST /api/assignments/release-abandoned/",
            f"{w.pairs:,} abandoned assignments",
            "root",
            lambda r: Request(
                "POST",
                "/api/assignments/release-abandoned/",
                {"idle_hours": 24 * 300 + r},
                expect=(201,),
            ),
        ),
        Case(
            "GET /api/corpora/", "every corpus", "root", lambda r: Request("GET", "/api/corpora/")
        ),
        Case(
            "GET /api/corpora/{corpus_id}/",
            f"{w.pairs:,} pairs × 3 annotators",
            "root",
            lambda r: Request("GET", f"/api/corpora/{c}/"),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/agreement/",
            "20 annotators named, every sub-corpus",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{c}/agreement/",
                {
                    "annotators": ["annotator0", "annotator1", "annotator2", *w.ids["crowd"][:17]],
                    "samples": 100_000,
                    "seed": r,
                    "subcorpora": ["news", "mtc", "novels"],
                },
                expect=(201, 400),
            ),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/assignments/",
            f"{w.pairs:,} pairs, 1,000 annotators named",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{w.ids['plan'][r]}/assignments/",
                {"annotators": w.ids["crowd"], "per_pair": 3, "double_fraction": 1.0, "seed": r},
                expect=(201,),
            ),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/assignments/hand-over/",
            f"{w.pairs:,} open assignments to 1,000 annotators",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{c}/assignments/hand-over/",
                {"annotator": w.ids["leavers"][r], "to": w.ids["crowd"]},
                expect=(201,),
            ),
        ),
        Case(
            "GET /api/corpora/{corpus_id}/assignments/progress/",
            f"{w.pairs:,} pairs, {w.pairs * 3:,} assignments and more",
            "root",
            lambda r: Request("GET", f"/api/corpora/{c}/assignments/progress/"),
        ),
        Case(
            "GET /api/corpora/{corpus_id}/export/",
            f"{w.pairs:,} pairs",
            "root",
            lambda r: Request("GET", f"/api/corpora/{c}/export/"),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/export/",
            "a phrase table of every alignment",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{c}/export/",
                {"format": "phrases", "which": "all", "max_length": 20 - r, "keep_identical": True},
                expect=(201,),
            ),
        ),
        Case(
            "GET /api/corpora/{corpus_id}/pairs/",
            "search, filter and sort, the last page",
            "root",
            lambda r: Request(
                "GET",
                f"/api/corpora/{c}/pairs/?q=council&status=submitted&sort=-length"
                f"&annotator=annotator0&min_length=0&max_length=1000000&page={w.pairs // 50}",
            ),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/prefill/",
            "options of the aligner",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{c}/prefill/",
                {"aligner": "em", "options": {"model1_iterations": 5 + r}},
                # the first queues a prefill; the next ones (other options) find it queued
                expect=(201, 409),
            ),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/stats/",
            f"{w.pairs:,} pairs",
            "root",
            lambda r: Request("POST", f"/api/corpora/{c}/stats/", expect=(200, 201)),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/archive/",
            "a corpus",
            "root",
            lambda r: Request("POST", f"/api/corpora/{w.ids['plan'][r]}/archive/"),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/restore/",
            "a corpus",
            "root",
            lambda r: Request("POST", f"/api/corpora/{w.ids['plan'][r]}/restore/"),
        ),
        Case(
            "GET /api/corpora/{corpus_id}/delete/",
            f"{w.pairs:,} pairs × 3 annotators, counted",
            "root",
            lambda r: Request("GET", f"/api/corpora/{c}/delete/"),
        ),
        Case(
            "POST /api/corpora/{corpus_id}/delete/",
            f"{w.pairs:,} pairs × 3 annotators counted, more work than was shown",
            "root",
            lambda r: Request(
                "POST",
                f"/api/corpora/{c}/delete/",
                {"confirm": "bench", "annotations": 0, "gold_alignments": 0, "assignments": 0},
                expect=(409,),
            ),
        ),
        Case(
            "POST /api/corpora/create/",
            "longest name and description",
            "root",
            lambda r: Request(
                "POST",
                "/api/corpora/create/",
                {"name": f"{r}-" + "n" * 90, "description": "d" * 2000},
                expect=(201,),
            ),
        ),
        Case(
            "GET /api/guidelines/",
            "the longest, pathological",
            "alice",
            lambda r: Request("GET", "/api/guidelines/"),
        ),
        Case(
            "PUT /api/guidelines/",
            f"{len(w.ids['guidelines']):,} characters of '{PATHOLOGICAL_MARKDOWN}'",
            "root",
            lambda r: Request(
                "PUT", "/api/guidelines/", {"markdown": w.ids["guidelines"][r % 2 :]}
            ),
        ),
        Case(
            "GET /api/jobs/",
            "an admin, 200 jobs and more",
            "root",
            lambda r: Request("GET", "/api/jobs/"),
        ),
        Case(
            "GET /api/jobs/{job_id}/",
            f"an agreement report of {w.pairs:,} pairs",
            "root",
            lambda r: Request("GET", f"/api/jobs/{ids['report']}/"),
        ),
        Case(
            "POST /api/jobs/{job_id}/cancel/",
            "a queued job",
            "root",
            lambda r: Request("POST", f"/api/jobs/{ids['cancel'][r]}/cancel/"),
        ),
        Case(
            "GET /api/jobs/{job_id}/download/",
            f"a JSONL export of {w.pairs:,} pairs",
            "root",
            lambda r: Request("GET", f"/api/jobs/{ids['export']}/download/"),
        ),
        Case(
            "GET /api/jobs/{job_id}/result/",
            f"an agreement report of {w.pairs:,} pairs, JSON",
            "root",
            lambda r: Request("GET", f"/api/jobs/{ids['report']}/result/"),
        ),
        Case(
            "GET /api/jobs/{job_id}/result/",
            f"an agreement report of {w.pairs:,} pairs, CSV",
            "root",
            lambda r: Request("GET", f"/api/jobs/{ids['report']}/result/?format=csv"),
        ),
        Case(
            "GET /api/pairs/{pair_id}/adjudication/",
            f"{LONG}×{LONG}, 3 annotators, gold, prefill: {MAX_LINKS:,} links each",
            "judge",
            lambda r: Request("GET", f"/api/pairs/{big}/adjudication/"),
        ),
        Case(
            "GET /api/pairs/{pair_id}/gold/events/",
            f"{LONG}×{LONG}, gold versions of {MAX_LINKS:,} links each",
            "judge",
            lambda r: Request("GET", f"/api/pairs/{big}/gold/events/"),
        ),
        Case(
            "PUT /api/pairs/{pair_id}/gold/",
            f"{LONG}×{LONG}, {MAX_LINKS:,} links replaced by {MAX_LINKS:,}",
            "judge",
            lambda r: Request(
                "PUT",
                f"/api/pairs/{big}/gold/",
                {"version": _current_version(big), "links": _links(LONG, LONG, r)},
            ),
        ),
        Case(
            "POST /api/pairs/{pair_id}/gold/clear/",
            f"{LONG}×{LONG}, a gold of {MAX_LINKS:,} links removed",
            "judge",
            lambda r: Request(
                "POST",
                f"/api/pairs/{ids['cleared']}/gold/clear/",
                {"version": _gold_to_clear(ids["cleared"])},
            ),
        ),
        Case(
            "GET /api/scorers/", "every model", "alice", lambda r: Request("GET", "/api/scorers/")
        ),
        Case(
            "POST /api/scorers/train/",
            "options",
            "root",
            lambda r: Request(
                "POST",
                "/api/scorers/train/",
                {
                    "kind": "perp",
                    "corpus": "bench",
                    "train_split": "train",
                    "options": {"epochs": 200 + r},
                },
                expect=(201,),
            ),
        ),
        Case(
            "GET /api/users/",
            "every user (1,000 and more)",
            "root",
            lambda r: Request("GET", "/api/users/"),
        ),
        Case(
            "POST /api/users/create/",
            "a password checked and hashed",
            "root",
            lambda r: Request(
                "POST",
                "/api/users/create/",
                {
                    "username": f"new{r}",
                    "email": f"new{r}@example.org",
                    "roles": ["annotator", "adjudicator", "admin"],
                    "password": "p" * 127 + str(r),
                },
                expect=(201,),
            ),
        ),
        Case(
            "PATCH /api/users/{user_id}/",
            "every role",
            "root",
            lambda r: Request(
                "PATCH",
                f"/api/users/{w.users['bob'].pk}/",
                {
                    "roles": ["annotator", "adjudicator", "admin"][: 1 + r % 3],
                    "is_active": True,
                    "email": "bob@example.org",
                },
            ),
        ),
        Case(
            "POST /api/users/{user_id}/password-link/",
            "a one-time link",
            "root",
            lambda r: Request(
                "POST", f"/api/users/{w.users['bob'].pk}/password-link/", expect=(201,)
            ),
        ),
    ]
    return cases + score_cases(w) + import_cases(w)


def score_cases(w: World) -> list[Case]:
    """Per scorer kind: one pair of the largest size a request takes, and as many such pairs as
    fit, in each kind of content that is slow for some scorer; many short pairs; and the most
    characters a request may carry."""
    from annotate.services.scorers import (
        MAX_SENTENCE_CHARS,
        MAX_SYNC_CHARS,
        SYNC_LIMITS,
        ScorerModel,
    )

    rng = random.Random(7)
    cases = []
    for kind, limit in SYNC_LIMITS.items():
        model = ScorerModel.objects.get(kind=kind).name
        side = int(limit.pair_cells**0.5)
        words = _words(side, rng)
        variants = {
            "random words": (words, _words(side, rng)),
            "one repeated word": (["the"] * side, ["the"] * side),
            "the same sentence": (words, list(words)),
            "halves swapped": (words, words[side // 2 :] + words[: side // 2]),
            "two words alternating": (["the", "a"] * (side // 2), ["a", "the"] * (side // 2)),
        }
        for name, (a, b) in variants.items():
            pair = [" ".join(a), " ".join(b)]
            count = max(1, min(limit.pairs, limit.cells // (len(a) * len(b))))
            cases.append(
                Case(
                    f"POST /api/score [{kind}]",
                    f"{count} × {len(a)}×{len(b)}, {name}",
                    "alice",
                    lambda r, m=model, p=pair, k=count: Request(
                        "POST", "/api/score", {"model": m, "pairs": [p] * k}
                    ),
                )
            )
        short = max(1, int((limit.cells / limit.pairs) ** 0.5))
        pair = [" ".join(["the"] * short), " ".join(["the"] * short)]
        cases.append(
            Case(
                f"POST /api/score [{kind}]",
                f"{limit.pairs} × {short}×{short}, one repeated word",
                "alice",
                lambda r, m=model, p=pair, k=limit.pairs: Request(
                    "POST", "/api/score", {"model": m, "pairs": [p] * k}
                ),
            )
        )
        heavy = ["(" * MAX_SENTENCE_CHARS, "x" * MAX_SENTENCE_CHARS]
        count = MAX_SYNC_CHARS // (2 * MAX_SENTENCE_CHARS)
        cases.append(
            Case(
                f"POST /api/score [{kind}]",
                f"{count} pairs of {MAX_SENTENCE_CHARS:,}-character sentences",
                "alice",
                lambda r, m=model, p=heavy, k=count: Request(
                    "POST", "/api/score", {"model": m, "pairs": [p] * k}, expect=(200, 400)
                ),
            )
        )
    from annotate.services.scorers import MAX_JOB_PAIRS

    sentence = " ".join(["the"] * 40)
    job_pairs = [[sentence, sentence]] * MAX_JOB_PAIRS

    def score_job(r: int) -> Request:
        # A user has one score job open at a time: the previous round's is cancelled first.
        from annotate.models import Job

        open_jobs = Job.objects.filter(kind="score_pairs", status=Job.Status.PENDING)
        open_jobs.update(status=Job.Status.CANCELLED)
        body = {"model": "bench-mt", "pairs": job_pairs[r:]}
        return Request("POST", "/api/score/jobs/", body, expect=(201,))

    cases.append(Case("POST /api/score/jobs/", f"{MAX_JOB_PAIRS:,} pairs", "alice", score_job))
    return cases


def import_cases(w: World) -> list[Case]:
    """The largest upload a request may carry (``MAX_UPLOAD_BYTES``, or ``w.upload_bytes``), in
    JSONL."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

    size = w.upload_bytes
    rng = random.Random(3)
    lines = []
    total = 0
    index = 0
    while total < size - 2000:
        src, tgt = _words(20, rng), _words(20, rng)
        line = json.dumps({"id": f"u{index}", "source_tokens": src, "target_tokens": tgt}) + "\n"
        lines.append(line)
        total += len(line)
        index += 1
    data = "".join(lines).encode()
    del lines
    # The multipart body is encoded once, here: a client's work, not the server's.
    bodies = [
        encode_multipart(
            BOUNDARY,
            {
                "corpus": f"upload-{r}",
                "format": "jsonl",
                "files": [SimpleUploadedFile("up.jsonl", data)],
            },
        )
        for r in range(w.rounds + 1)
    ]

    def build(r: int) -> Request:
        return Request(
            "POST", "/api/corpora/import/", bodies[r], content_type=MULTIPART_CONTENT, expect=(201,)
        )

    return [
        Case("POST /api/corpora/import/", f"{len(data) / 2**20:,.0f} MB of JSONL", "root", build)
    ]


def admin_pages(w: World) -> list[tuple[str, str, str, str]]:
    """Every list of Django's admin, and the pages of the largest rows: an annotation, a gold
    alignment and a prefill of the most links, a finished agreement report's job."""
    from django.contrib import admin

    from annotate.models import Annotation, AutoAlignment, GoldAlignment

    pages = []
    for model in admin.site._registry:
        meta = model._meta
        url = f"/admin/{meta.app_label}/{meta.model_name}/"
        pages.append((url, url, f"the list of every {meta.verbose_name}", "staff"))
    big = w.ids["big"]
    rows = {
        "annotation": Annotation.objects.get(assignment_id=w.ids["big_alice"]).pk,
        "goldalignment": GoldAlignment.objects.get(pair_id=big).pk,
        "autoalignment": AutoAlignment.objects.filter(pair_id=big).first().pk,  # type: ignore[union-attr]
        "job": w.ids["report"],
    }
    for name, pk in rows.items():
        url = f"/admin/annotate/{name}/<id>/change/"
        pages.append((url, f"/admin/annotate/{name}/{pk}/change/", "the largest", "staff"))
    return pages


def page_cases(w: World) -> list[Case]:
    c = w.corpus
    pages = [
        ("/", "/", "an admin's home", "root"),
        ("/", "/", f"an annotator holding {w.pairs:,} pairs", "annotator0"),
        ("/", "/?q=no-such-words", f"{w.pairs:,} pairs searched", "annotator0"),
        ("/work/<id>/", f"/work/{w.ids['big_alice']}/", f"{LONG}×{LONG} pair", "alice"),
        (
            "/adjudication/",
            f"/adjudication/?sort=-disagreement&status=waiting&annotator=annotator2&q=the"
            f"&page={w.pairs // 100}",
            f"{w.pairs:,} pairs: searched, filtered, sorted, a deep page",
            "judge",
        ),
        ("/adjudicate/<id>/", f"/adjudicate/{w.ids['big']}/", f"{LONG}×{LONG} pair", "judge"),
        ("/guidelines/", "/guidelines/", "the longest, pathological", "alice"),
        ("/scorers/", "/scorers/", "every model", "alice"),
        ("/corpora/", "/corpora/", "every corpus", "root"),
        ("/corpora/<id>/", f"/corpora/{c}/", f"{w.pairs:,} pairs", "root"),
        ("/corpora/<id>/pairs/", f"/corpora/{c}/pairs/", f"{w.pairs:,} pairs", "root"),
        ("/corpora/<id>/delete/", f"/corpora/{c}/delete/", f"{w.pairs:,} pairs counted", "root"),
        ("/corpora/<id>/agreement/", f"/corpora/{c}/agreement/", f"{w.pairs:,} pairs", "root"),
        ("/corpora/<id>/prefill/", f"/corpora/{c}/prefill/", f"{w.pairs:,} pairs", "root"),
        ("/corpora/<id>/assignments/", f"/corpora/{c}/assignments/", f"{w.pairs:,} pairs", "root"),
        ("/corpora/<id>/export/", f"/corpora/{c}/export/", f"{w.pairs:,} pairs", "root"),
        ("/jobs/", "/jobs/", "200 jobs and more", "root"),
        ("/users/", "/users/", "1,000 users and more", "root"),
        ("/login/", "/login/", "the form", "anon"),
        ("/api/schema/", "/api/schema/", "the OpenAPI schema", "alice"),
        ("/api/docs/", "/api/docs/", "Swagger UI", "alice"),
        ("/admin/", "/admin/", "Django's admin index", "staff"),
        *admin_pages(w),
    ]
    cases = [
        Case(f"page {name}", label, role, lambda r, u=url: Request("GET", u))
        for name, url, label, role in pages
    ]
    cases.extend(tab_form_cases(w))
    for label, password in (
        ("a wrong password", "wrong-password-123"),
        ("the right password", "a-long-Password-1"),
    ):
        cases.append(
            Case(
                "page /login/ (POST)",
                label,
                "anon",
                lambda r, p=password: Request(
                    "POST",
                    "/login/",
                    f"username=bob&password={p}",
                    content_type="application/x-www-form-urlencoded",
                    expect=(200, 302),
                ),
            )
        )
    return cases


def _form(url: str, fields: dict[str, Any]) -> Request:
    return Request(
        "POST",
        url,
        urlencode(fields, doseq=True),
        content_type="application/x-www-form-urlencoded",
        expect=(302, 400),
    )


def tab_form_cases(w: World) -> list[Case]:
    """The forms the corpus tabs post. Refused input renders the whole tab again (400), the
    costlier answer, so the worst case of a form with a costly page is a refused one."""
    c = w.corpus
    tab = f"/corpora/{c}"
    everyone = ["annotator0", "annotator1", "annotator2"]
    return [
        Case(
            "page /corpora/<id>/assignments/plan/ (POST)",
            "900 annotators, no pair matches: the tab again",
            "root",
            lambda r: _form(
                f"{tab}/assignments/plan/",
                {
                    # a form posts at most DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) values
                    "annotators": w.ids["crowd"][:900],
                    "per_pair": 3,
                    "double_percent": 100,
                    "seed": r,
                    "min_length": 1_000_000,
                },
            ),
        ),
        Case(
            "page /corpora/<id>/assignments/hand-over/ (POST)",
            f"{w.pairs:,} open assignments to 900 annotators",
            "root",
            lambda r: _form(
                f"{tab}/assignments/hand-over/",
                {"annotator": w.ids["leavers"][r], "to": w.ids["crowd"][:900]},
            ),
        ),
        Case(
            "page /corpora/<id>/agreement/run/ (POST)",
            "every annotator and sub-corpus, J = 100,000",
            "root",
            lambda r: _form(
                f"{tab}/agreement/run/",
                {
                    "annotators": everyone,
                    "samples": 100_000,
                    "seed": r,
                    "chance_model": "auto",
                    "subcorpora": ["news", "mtc", "novels"],
                },
            ),
        ),
        Case(
            "page /corpora/<id>/prefill/run/ (POST)",
            "options of the aligner, retraining",
            "root",
            lambda r: _form(
                f"{tab}/prefill/run/",
                {"aligner": "em", "retrain_every": 1_000_000, "opt_model1_iterations": 5 + r},
            ),
        ),
        Case(
            "page /corpora/<id>/export/run/ (POST)",
            "a phrase table of every alignment",
            "root",
            lambda r: _form(
                f"{tab}/export/run/",
                {
                    "format": "phrases",
                    "which": "all",
                    "use": "possible",
                    "max_length": 20 - r,
                    "keep_identical": "on",
                },
            ),
        ),
    ]


def all_cases(w: World) -> list[Case]:
    return api_cases(w) + page_cases(w)
