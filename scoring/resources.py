"""Linguistic resources through NLTK: Porter stemmer, WordNet 3.0, stopwords, POS tagger; and
English word frequencies through the ``wordfreq`` package.

Resources are found on NLTK's normal search path and ``NLTK_DATA``. A missing resource raises
:class:`~scoring.errors.ResourceMissingError` with the exact command that installs it; only the
feature that needs it fails. Loaded resources are cached per process; the slow ones load once
even when two threads ask for them at the same time (a web server's warm-up thread and a
request: the request waits for the warm-up's copy instead of loading a second one).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from scoring.errors import ResourceMissingError

T = TypeVar("T")


def _load_once(load: Callable[[], T]) -> Callable[[], T]:
    """``load()`` run at most once per process; callers meanwhile wait for its result."""
    cached = functools.cache(load)
    lock = threading.Lock()

    @functools.wraps(load)
    def get() -> T:
        with lock:
            return cached()

    return get


_NLTK_IDS = {
    "wordnet": ("corpora/wordnet", "wordnet"),
    "stopwords": ("corpora/stopwords", "stopwords"),
    "tagger": ("taggers/averaged_perceptron_tagger_eng", "averaged_perceptron_tagger_eng"),
}


def nltk_import() -> None:
    """Import NLTK (seconds on a busy machine, once per process), so that a later check of its
    data (:func:`installed`) takes milliseconds: a web process does so in the background."""
    import nltk.data  # noqa: F401


def nltk_package(resource: str) -> str:
    """The NLTK package id of ``resource`` (``"tagger"`` → ``averaged_perceptron_tagger_eng``):
    what ``python -m nltk.downloader`` takes."""
    return _NLTK_IDS[resource][1]


def installed(resource: str) -> bool:
    """Whether the NLTK resource (``wordnet``, ``stopwords``, ``tagger``) is on NLTK's search
    path, without loading it."""
    try:
        require(resource)
    except ResourceMissingError:
        return False
    return True


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


def _wordnet_reader() -> Any:
    """A new WordNet 3.0 reader (:func:`wordnet` is the process's one)."""
    require("wordnet")
    from nltk.corpus import CorpusReader, LazyCorpusLoader
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNetReader(WordNetCorpusReader):  # type: ignore[misc]  # nltk is untyped
        """nltk's reader, safe to share between threads, without a map it need not build.

        nltk reads a synset from a data file it keeps open, by seeking to its offset and reading
        a line, and opens each file on first use: two threads doing so at once fail (inside a
        zipped corpus, nltk's assertion that the archive is not already open) or read each
        other's lines. The readers of files are serialized here; synsets read once are cached by
        nltk. Its version is read once.

        nltk also maps WordNet 3.0 onto the loaded WordNet on every load, for its multilingual
        data, which :mod:`scoring` never reads; it compares the loaded version ("3.0") with a
        corpus name ("wordnet"), so it maps 3.0 onto itself: reading ``index.sense`` twice
        doubled the load time and added 110 MB."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._file_lock = threading.RLock()
            self._version: str | None = None
            super().__init__(*args, **kwargs)

        def synset_from_pos_and_offset(self, pos: str, offset: int) -> Any:
            with self._file_lock:
                return super().synset_from_pos_and_offset(pos, offset)

        def lemma_count(self, lemma: Any) -> int:
            with self._file_lock:
                return int(super().lemma_count(lemma))

        def get_version(self) -> str:
            with self._file_lock:
                if self._version is None:
                    self._version = str(super().get_version())
                return self._version

        def map_wn(self, version: str = "wordnet") -> dict[str, str] | None:
            if version == "wordnet" and self.get_version() == "3.0":
                return None
            return super().map_wn(version)  # type: ignore[no-any-return]

    # The arguments of nltk.corpus.wordnet, with the reader above.
    reader = LazyCorpusLoader(
        "wordnet",
        WordNetReader,
        LazyCorpusLoader("omw-2.0", CorpusReader, r".*/wn-data-.*\.tab", encoding="utf8"),
    )
    reader.ensure_loaded()
    return reader


@_load_once
def wordnet() -> Any:
    """The WordNet 3.0 corpus reader, loaded once (about 2 s and 55 MB), safe to share between
    threads."""
    return _wordnet_reader()


@functools.cache
def stopwords(language: str = "english") -> frozenset[str]:
    require("stopwords")
    from nltk.corpus import stopwords as sw

    return frozenset(sw.words(language))


@_load_once
def _tagger() -> Any:
    require("tagger")
    from nltk.tag import PerceptronTagger

    return PerceptronTagger()


def pos_tag(tokens: list[str]) -> list[str]:
    """Penn Treebank POS tags for a tokenized sentence (averaged perceptron tagger)."""
    if not tokens:
        return []
    return [tag for _, tag in _tagger().tag(tokens)]


@functools.cache
def _word_frequency_lookup() -> Callable[[str, str], float]:
    try:
        from wordfreq import word_frequency
    except ImportError as error:
        raise ResourceMissingError(
            "English word frequencies (PERP's and the combined scorer's features) need the "
            "package wordfreq, which is not installed; install it with `pip install wordfreq`"
        ) from error
    return word_frequency


def word_frequency(word: str) -> float:
    """The frequency of ``word`` in ``wordfreq``'s large English list (0 when unseen).

    Raises :class:`ResourceMissingError` with the command that installs ``wordfreq`` when the
    package is missing (``pip install .`` requires it, but an environment may lack it)."""
    return float(_word_frequency_lookup()(word, "en"))
