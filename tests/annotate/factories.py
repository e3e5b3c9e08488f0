"""Small factories of ORM rows for the workspace tests (no fixture files)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser

from annotate import roles
from annotate.models import (
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    SentencePair,
)

_counter = itertools.count(1)

Links = Iterable[tuple[int, int, bool]]


def make_user(username: str, *role_names: str, password: str | None = None) -> AbstractUser:
    """A user in the given roles; without a password none is hashed (hashing is slow)."""
    user = get_user_model().objects.create_user(username=username, password=password)
    for role in role_names:
        user.groups.add(roles.role_group(role))
    return user


def make_corpus(name: str | None = None) -> Corpus:
    return Corpus.objects.create(name=name or f"corpus-{next(_counter)}")


def make_pair(
    corpus: Corpus | None = None,
    source: str = "the cat sat on the mat",
    target: str = "a cat was sitting on the mat",
    *,
    split: str = "train",
    prefill: Links | None = ((1, 1, True), (3, 4, False)),
    gold: Links | None = None,
    external_id: str | None = None,
) -> SentencePair:
    corpus = corpus or make_corpus()
    src, tgt = source.split(), target.split()
    position = SentencePair.objects.filter(corpus=corpus).count()
    pair = SentencePair.objects.create(
        corpus=corpus,
        external_id=external_id or f"pair-{next(_counter)}",
        split=split,
        source_text=source,
        target_text=target,
        source_tokens=src,
        target_tokens=tgt,
        n_source=len(src),
        n_target=len(tgt),
        position=position,
    )
    if prefill is not None:
        auto = AutoAlignment.objects.create(pair=pair, aligner="identity")
        AutoLink.objects.bulk_create(
            AutoLink(alignment=auto, i=i, j=j, sure=sure, confidence=0.5) for i, j, sure in prefill
        )
    if gold is not None:
        gold_row = GoldAlignment.objects.create(pair=pair, source="imported")
        GoldLink.objects.bulk_create(GoldLink(gold=gold_row, i=i, j=j, sure=s) for i, j, s in gold)
        GoldEvent.objects.create(
            pair=pair,
            version=1,
            kind=GoldEvent.Kind.IMPORTED,
            added=[[i, j, "S" if s else "P"] for i, j, s in sorted(gold)],
        )
    return pair


def make_assignment(
    pair: SentencePair | None = None, annotator: AbstractUser | None = None
) -> Assignment:
    pair = pair or make_pair()
    annotator = annotator or make_user(f"annotator-{next(_counter)}", roles.ANNOTATOR)
    return Assignment.objects.create(pair=pair, annotator=annotator)


#: Words of a pair whose gold has as many links as the supervised aligner's trees need at the
#: default options (``SupervisedAligner.min_links``: 50).
LEARNABLE_WORDS = 50


def make_learnable_pair(corpus: Corpus, *, split: str = "train") -> SentencePair:
    """A pair with gold linking each word to itself: finished work enough for a supervised
    prefill request to be queued."""
    words = " ".join(f"w{k}" for k in range(LEARNABLE_WORDS))
    return make_pair(
        corpus,
        words,
        words,
        split=split,
        prefill=None,
        gold=[(k, k, True) for k in range(LEARNABLE_WORDS)],
    )
