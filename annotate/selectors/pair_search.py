"""The search of the pair list, the annotator's queue and the adjudication list: a term in a
pair's id or either text, ignoring case.

A term is matched against ``SentencePair.search_text``, the id and both texts joined by
newlines and upper-cased by the database, with the term upper-cased by the same ``UPPER``:
``search_text LIKE '%' || UPPER(term) || '%'``. That is what ``icontains`` on each of the
three columns compared (``UPPER(column) LIKE UPPER('%term%')`` on PostgreSQL; on SQLite
``LIKE``, which ignores the case of ASCII letters only, as its ``UPPER`` does), without
upper-casing every row's texts on every search. Case follows the database's ``UPPER``, not
Python's: under PostgreSQL's libc locales it maps one character to one (``ß`` stays ``ß``,
where ``str.upper`` and ``str.casefold`` give ``SS``/``ss``), and the term and the column are
upper-cased alike, so the search finds what the per-column search found.

A term holding a newline could match across two of the joined fields, so it is searched in
the three columns apart (``icontains``), as before, by a scan.
"""

from __future__ import annotations

from django.db.models import Q, Value
from django.db.models.functions import Upper

#: What ``SentencePair.search_text`` puts between the id and the texts.
SEPARATOR = "\n"


def pair_search(term: str, *, via: str = "") -> Q:
    """The pairs (or, with ``via`` a path to the pair such as ``"pair__"``, the rows of a
    pair) whose id or either text holds ``term``, ignoring case; ``term`` is not empty."""
    if SEPARATOR in term:
        return (
            Q(**{f"{via}external_id__icontains": term})
            | Q(**{f"{via}source_text__icontains": term})
            | Q(**{f"{via}target_text__icontains": term})
        )
    return Q(**{f"{via}search_text__contains": Upper(Value(term))})
