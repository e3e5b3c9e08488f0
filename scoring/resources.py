"""Linguistic resources through NLTK: Porter stemmer, WordNet 3.0, stopwords, POS tagger.

Resources are found on NLTK's normal search path and ``NLTK_DATA``. A missing resource raises
:class:`~scoring.errors.ResourceMissingError` with the exact command that installs it; only the
feature that needs it fails. Loaded resources are cached per process.
"""

from __future__ import annotations

import functools
from typing import Any

from scoring.errors import ResourceMissingError

_NLTK_IDS = {
    "wordnet": ("corpora/wordnet", "wordnet"),
    "stopwords": ("corpora/stopwords", "stopwords"),
    "tagger": ("taggers/averaged_perceptron_tagger_eng", "averaged_perceptron_tagger_eng"),
}


def require(resource: str) -> None:
    """Raise :class:`ResourceMissingError` unless the NLTK resource is installed."""
    import nltk

    path, package = _NLTK_IDS[resource]
    for candidate in (path, path + ".zip"):
        try:
            nltk.data.find(candidate)
            return
        except LookupError:
            continue
    raise ResourceMissingError(
        f"the NLTK resource '{package}' is not installed; install it with "
        f"`python -m nltk.downloader {package}` (or set NLTK_DATA to a folder that holds it)"
    )


@functools.cache
def porter_stemmer(mode: str = "NLTK_EXTENSIONS") -> Any:
    """nltk's Porter stemmer; ``mode="MARTIN_EXTENSIONS"`` matches TERp's stemmer."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=mode)


@functools.lru_cache(maxsize=1 << 18)
def stem(word: str, *, lowercase: bool = True, mode: str = "NLTK_EXTENSIONS") -> str:
    """The Porter stem of ``word`` (lowercased first unless ``lowercase=False``); ``mode`` as for
    :func:`porter_stemmer`. Cached: stemming costs about 20 µs a word and a corpus repeats its
    words."""
    return str(porter_stemmer(mode).stem(word, to_lowercase=lowercase))


@functools.cache
def wordnet() -> Any:
    """The WordNet 3.0 corpus reader, loaded once."""
    require("wordnet")
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn


@functools.cache
def stopwords(language: str = "english") -> frozenset[str]:
    require("stopwords")
    from nltk.corpus import stopwords as sw

    return frozenset(sw.words(language))


@functools.cache
def _tagger() -> Any:
    require("tagger")
    from nltk.tag import PerceptronTagger

    return PerceptronTagger()


def pos_tag(tokens: list[str]) -> list[str]:
    """Penn Treebank POS tags for a tokenized sentence (averaged perceptron tagger)."""
    if not tokens:
        return []
    return [tag for _, tag in _tagger().tag(tokens)]
