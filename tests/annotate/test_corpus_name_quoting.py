"""Every message that names a corpus writes its name as the import's messages do
(:func:`annotate.exceptions.quoted`: typographic quotes, the name as it is written), not as a
Python repr, which escapes an apostrophe or swaps its quotes with the name's content."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from annotate import roles
from annotate.exceptions import DomainError
from annotate.models import Corpus
from annotate.selectors.corpora import corpus_named
from annotate.services.agreement import agreement_job_create
from annotate.services.exports import export_parameters_check
from annotate.services.prefill import prefill_job_create
from annotate.services.scorers import scorer_train_job_create
from tests.annotate.factories import make_corpus, make_user

pytestmark = pytest.mark.django_db

NAME = "it's \"Bob's\" corpus"
SHOWN = "\u201cit's \"Bob's\" corpus\u201d"

REQUESTS: dict[str, Callable[[Corpus], object]] = {
    "export": lambda corpus: export_parameters_check(
        corpus=corpus, format_name="pharaoh", which="annotator", annotator="nobody"
    ),
    "agreement": lambda corpus: agreement_job_create(corpus=corpus, annotators=["a", "b"]),
    "prefill": lambda corpus: prefill_job_create(corpus=corpus, aligner="identity"),
    "scorers": lambda corpus: scorer_train_job_create(
        corpus=corpus, kind="perp", train_split="train"
    ),
    "lookup": lambda corpus: corpus_named(corpus.name + " (gone)"),
}


@pytest.mark.parametrize("request_name", list(REQUESTS))
def test_a_message_naming_a_corpus_quotes_it_as_the_import_does(request_name: str) -> None:
    make_user("a", roles.ANNOTATOR)
    make_user("b", roles.ANNOTATOR)
    corpus = make_corpus(NAME)
    with pytest.raises(DomainError) as refused:
        REQUESTS[request_name](corpus)
    message = refused.value.message
    shown = (
        SHOWN if request_name != "lookup" else SHOWN.replace("corpus\u201d", "corpus (gone)\u201d")
    )
    assert shown in message, message
    assert "\\'" not in message and "'it" not in message and '"it' not in message
