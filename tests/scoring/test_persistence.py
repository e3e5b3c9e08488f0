"""One persistence protocol (scoring.persistence): every trained model is a dict and back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scoring.aligners import Aligner, get_aligner
from scoring.alignment.edit_model import EditModel
from scoring.edit.perp import Perp, PerpOptions
from scoring.errors import FormatError
from scoring.persistence import Persistent, read_json, save_json
from scoring.pfsm import PFSMScorer
from scoring.scorers.base import Scorer, get_scorer
from scoring.scorers.options import PFSMOptions

PAIRS = [(["a", "cat", "sat"], ["the", "cat", "sat"]), (["dogs", "bark"], ["a", "dog", "barks"])]


def _trained() -> list[Persistent]:
    return [
        get_aligner("em", hmm_iterations=1).fit(PAIRS),
        Perp(PerpOptions(epochs=1, stop_words=("a",))).fit([("a cat", "the cat")], [4.0]),
        PFSMScorer(PFSMOptions(synonyms=False, cutoff=0, max_iter=3)).fit(PAIRS, [4.0, 2.0]),
        get_scorer("pfsm", synonyms=False, cutoff=0, max_iter=3).fit(PAIRS, [4.0, 2.0]),
        EditModel("ann", "possible", 0.01, 0.002, 12),
    ]


def test_every_model_gives_a_dict_its_class_reads_back_to_the_same_model() -> None:
    for model in _trained():
        assert isinstance(model, Persistent)
        data = model.to_dict()
        again = type(model).from_dict(data)
        if isinstance(model, Aligner | Scorer):
            assert again.to_dict()["options"] == data["options"]
        else:
            assert json.dumps(again.to_dict(), sort_keys=True) == json.dumps(data, sort_keys=True)


def test_a_model_without_arrays_is_one_json_file(tmp_path: Path) -> None:
    scorer = get_scorer("pfsm", synonyms=False, cutoff=0, max_iter=3).fit(PAIRS, [4.0, 2.0])
    path = save_json(scorer, tmp_path / "pfsm.json")
    again = Scorer.from_dict(read_json(path), path=path)
    np.testing.assert_array_equal(again.predict(PAIRS), scorer.predict(PAIRS))
    path.write_text("[1,", encoding="utf-8")
    with pytest.raises(FormatError, match=r"pfsm\.json:1: not a JSON model file"):
        read_json(path)
    with pytest.raises(FormatError, match="no such file"):
        read_json(tmp_path / "absent.json")
    path.write_bytes(b"PK\x03\x04\x14\x00\x00\x00\x08\x00\xff\xfe")  # an aligner's .npz
    with pytest.raises(FormatError, match=r"pfsm\.json: not a JSON model file \(not UTF-8"):
        read_json(path)
