"""NLTK resources load once per process, however many threads ask; WordNet loads without the map
of WordNet 3.0 onto itself that nltk builds for its multilingual data, and threads share it."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from scoring import resources
from scoring.errors import ResourceMissingError

WORDS = (
    "dog cat run bank light fast play set cut go make take bright quick hot cold big small house "
    "car tree leaf stone river write read speak walk jump happy sad"
).split()


def test_wordnet_is_version_3_0_without_a_map_onto_itself() -> None:
    wordnet = resources.wordnet()
    assert wordnet.get_version() == "3.0"
    assert wordnet.map30 is None
    assert [synset.name() for synset in wordnet.synsets("car")][:2] == ["car.n.01", "car.n.02"]
    assert "car.n.01" in {s.name() for s in wordnet.synsets("automobiles")}  # morphy


def test_threads_asking_at_once_wait_for_one_load() -> None:
    loads: list[str] = []

    def slow() -> object:
        loads.append(threading.current_thread().name)
        time.sleep(0.2)
        return object()

    load = resources._load_once(slow)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: load(), range(4)))
    assert len(loads) == 1
    assert all(value is got[0] for value in got)


@pytest.mark.slow
def test_threads_read_synsets_from_one_fresh_reader_at_once() -> None:
    """nltk opens a data file on first use and reads a synset by seeking in it: threads doing that
    at once failed (nltk's "assert self.fp is None" on the zipped corpus) or read each other's
    lines, as a web process's preload thread and a request did."""
    wordnet = resources._wordnet_reader()  # no file opened yet
    start = threading.Barrier(8)

    def read(shift: int) -> dict[str, tuple[str, ...]]:
        start.wait()
        order = WORDS[shift:] + WORDS[:shift]
        names = {word: tuple(s.name() for s in wordnet.synsets(word)) for word in order}
        for word in order:
            for synset in wordnet.synsets(word)[:2]:
                synset.hypernyms()
        return names

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(read, range(8)))
    expected = {word: tuple(s.name() for s in resources.wordnet().synsets(word)) for word in WORDS}
    assert all(result == expected for result in results)


def test_word_frequencies_without_wordfreq_name_the_package_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "wordfreq", None)
        resources._word_frequency_lookup.cache_clear()
        try:
            with pytest.raises(ResourceMissingError, match="`pip install wordfreq`"):
                resources.word_frequency("house")
        finally:
            resources._word_frequency_lookup.cache_clear()
    assert 1e-5 < resources.word_frequency("house") < 1e-2
