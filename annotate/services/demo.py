"""The demo set-up of ``make demo``: users of every role and a small sample corpus.

Idempotent: a second run finds what exists and changes nothing (passwords are kept in
``var/demo_credentials.json`` so they can be printed again).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from annotate import roles
from annotate.models import Assignment, Corpus, SentencePair
from annotate.services.corpora import corpus_import_records
from scoring.aligners import get_aligner
from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.text import tokenize

SAMPLE_CORPUS = Path(__file__).resolve().parent.parent / "demo" / "sample_corpus.tsv"
DEMO_CORPUS_NAME = "sample"
PREFILL_ALIGNER = "identity"
DEMO_USERS = (
    ("admin", roles.ADMIN),
    ("alice", roles.ANNOTATOR),
    ("bob", roles.ANNOTATOR),
    ("carol", roles.ADJUDICATOR),
)


@dataclass
class DemoReport:
    credentials: dict[str, str]
    corpus_created: bool
    pairs: int


def sample_records(path: Path = SAMPLE_CORPUS) -> Iterator[PairRecord]:
    """The sample pairs, tokenized and prefilled by the placeholder aligner; trial pairs carry
    a hand-made gold alignment, so new annotators get feedback on them."""
    aligner = get_aligner(PREFILL_ALIGNER)
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pair_id, subcorpus, split, score, source, target, gold = line.split("\t")
        source_tokens, target_tokens = tokenize(source), tokenize(target)
        n, m = len(source_tokens), len(target_tokens)
        output = aligner.align(source_tokens, target_tokens)
        yield PairRecord(
            id=pair_id,
            source_tokens=source_tokens,
            target_tokens=target_tokens,
            source_text=source,
            target_text=target,
            subcorpus=subcorpus,
            split=split,
            gold_score=float(score),
            prefill=output.alignment,
            prefill_aligner=PREFILL_ALIGNER,
            prefill_confidence=dict(output.confidence),
            gold_alignment=Alignment.from_pharaoh(gold, n, m) if gold else None,
        )


def _credentials_file() -> Path:
    return Path(settings.VAR_DIR) / "demo_credentials.json"


def demo_users_ensure() -> dict[str, str]:
    """Create the demo users once; return username → password."""
    path = _credentials_file()
    stored: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    user_model = get_user_model()
    for username, role in DEMO_USERS:
        user, created = user_model.objects.get_or_create(username=username)
        if created or username not in stored:
            stored[username] = secrets.token_urlsafe(9)
            user.set_password(stored[username])
            user.is_staff = role == roles.ADMIN
            user.is_superuser = role == roles.ADMIN
            user.email = f"{username}@example.org"
            user.save()
        user.groups.add(roles.role_group(role))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored, indent=2, sort_keys=True))
    path.chmod(0o600)
    return stored


@transaction.atomic
def demo_setup() -> DemoReport:
    credentials = demo_users_ensure()
    created = not Corpus.objects.filter(name=DEMO_CORPUS_NAME).exists()
    if created:
        corpus_import_records(
            corpus_name=DEMO_CORPUS_NAME,
            records=sample_records(),
            source=str(SAMPLE_CORPUS),
            description="Sample paraphrase pairs written for the project (news, mtc, novels).",
        )
        user_model = get_user_model()
        annotators = [
            user_model.objects.get(username=u) for u, r in DEMO_USERS if r == roles.ANNOTATOR
        ]
        pairs = SentencePair.objects.filter(corpus__name=DEMO_CORPUS_NAME)
        Assignment.objects.bulk_create(
            Assignment(pair=pair, annotator=annotator) for pair in pairs for annotator in annotators
        )
    count = SentencePair.objects.filter(corpus__name=DEMO_CORPUS_NAME).count()
    return DemoReport(credentials=credentials, corpus_created=created, pairs=count)
