"""Penn-Treebank-style tokenization of raw English text, and the reverse for display.

:func:`tokenize` is what every corpus format that carries raw text (MSRP, STS) uses, so the
tokens of all imported corpora follow one convention: the one of the Penn Treebank, which the
RTE-2 alignments (Brockett 2007) and Edinburgh++ (Cohn et al. 2008; Thadani et al. 2012) already
follow: ``"`` becomes `````` or ``''``, clitics split (``do n't``, ``John 's``), punctuation and
brackets are tokens, and abbreviations keep their period (``Mr.``, ``U.S.``).

Choices, and why:

- The word-level rules are nltk's :class:`~nltk.tokenize.TreebankWordTokenizer`: a fixed cascade
  of regular expressions (a port of the Treebank ``tokenizer.sed``), so it needs no data download
  and gives the same tokens on every machine. nltk's ``word_tokenize`` would need the Punkt model
  (a download) for sentence splitting, and its ``NLTKWordTokenizer`` splits curly-apostrophe
  possessives wrongly (``Laden’s`` → ``Laden ’ s``).
- Typographic quotes are mapped to ASCII first (``“ ”`` → ``"``, ``‘ ’`` → ``'``), so ``“We``
  gives `````` ``We`` and ``Laden’s`` gives ``Laden 's``, exactly as their ASCII spellings do.
  Tokens therefore never contain curly quotes; the raw text keeps them.
- The Treebank rules split a period only at the very end of the string: in ``He said. Then he
  left.`` the first period stays on ``said.``. Rather than a statistical sentence splitter we
  apply one conservative rule afterwards: a word that ends in a period is split into word and
  ``.`` when the next token starts a sentence (a capital letter or an opening/closing quote) and
  the word is not an abbreviation (a single letter, a word with an inner period such as
  ``U.S.``, or one of :data:`ABBREVIATIONS`, also after a hyphen as in ``then-Gov.``). On the
  MSRP and STS-2012 sentences this splits the dozen or so real sentence ends and none of the
  ~900 abbreviations followed by a capitalised word.
- Known limits, inherited from the Treebank rules: an opening single quote stays attached
  (``'best'`` → ``'best '``), and a number ending a sentence inside a text keeps its period.

:func:`detokenize` is nltk's ``TreebankWordDetokenizer``: the raw text shown for formats that
carry only tokens (Pharaoh, jacana, RTE-2). It is for display, not an inverse: ``tokenize``
of it gives the tokens back for ordinary sentences but not in every case.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

# Words that keep their final period before a capitalised word (titles, months, US/Canadian
# state and province abbreviations, company suffixes, Latin abbreviations), lower-cased. Day
# names are left out on purpose: "Sun." ends sentences about Sun Microsystems.
_ABBREVIATIONS = """
    mr mrs ms dr prof gov sen sens rep reps rev gen lt col capt sgt cpl pfc maj brig cmdr adm
    lieut pres hon st jr sr messrs mme mlle sir supt insp det atty
    jan feb mar apr jun jul aug sep sept oct nov dec
    ala ariz ark calif colo conn del fla ga ill ind kan kans ky la md mass mich minn miss mo
    mont neb nev okla ore pa tenn tex va vt wash wis wyo alta sask ont que
    co corp inc ltd bros llc plc dept univ assn assoc intl natl govt
    no nos vs v etc approx ca cf al fig figs vol vols pp eds mt ft hwy ave blvd rd
"""
ABBREVIATIONS: frozenset[str] = frozenset(_ABBREVIATIONS.split())

_CURLY = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'"})
_WORD_WITH_PERIOD = re.compile(r"^(?P<word>.*[^\W\d_])\.$")
_SENTENCE_START = re.compile(r"^(?:[A-Z]|``|''$|'$|'[A-Z])")


@functools.cache
def _treebank() -> Any:
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


@functools.cache
def _detokenizer() -> Any:
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    return TreebankWordDetokenizer()


def tokenize(text: str) -> list[str]:
    """Penn Treebank tokens of ``text`` (one or more English sentences).

    >>> tokenize('He said "yes." Then he left the U.S. office.')
    ['He', 'said', '``', 'yes', '.', "''", 'Then', 'he', 'left', 'the', 'U.S.', 'office', '.']
    """
    tokens: list[str] = _treebank().tokenize(text.translate(_CURLY))
    return _split_sentence_final_periods(tokens)


def detokenize(tokens: Sequence[str]) -> str:
    """Readable text for a tokenized sentence (for formats that carry no raw text).

    >>> detokenize(['He', 'said', '``', 'no', "''", '.'])
    'He said "no".'
    """
    return str(_detokenizer().detokenize(list(tokens)))


def is_abbreviation(word: str) -> bool:
    """Whether ``word`` (ending in a period) is an abbreviation rather than a sentence end."""
    stem = word[:-1] if word.endswith(".") else word
    stem = stem.rsplit("-", 1)[-1]
    return len(stem) <= 1 or "." in stem or stem.lower() in ABBREVIATIONS


def _split_sentence_final_periods(tokens: list[str]) -> list[str]:
    out: list[str] = []
    last = len(tokens) - 1
    for position, token in enumerate(tokens):
        match = _WORD_WITH_PERIOD.match(token)
        if (
            match is not None
            and position < last
            and _SENTENCE_START.match(tokens[position + 1])
            and not is_abbreviation(token)
        ):
            out.append(match.group("word"))
            out.append(".")
        else:
            out.append(token)
    return out
