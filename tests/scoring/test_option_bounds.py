"""Every number an aligner, scorer or agreement report takes has both ends: a request cannot ask
for a training that holds a worker until the job's time limit (``trees=10**9``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import typing
from typing import Any

import pytest

import scoring
from scoring.aligners.base import Aligner, aligner_class, available_aligners, get_aligner
from scoring.alignment.agreement import AgreementParams
from scoring.errors import OptionsError
from scoring.options import Interval, Options, field_types
from scoring.scorers.base import get_scorer, scorer_class, scorer_from_dict, scorer_kinds
from scoring.scorers.options import CombinedOptions, MtOptions, SvmOptions
from tests.scoring.scorers.test_scorers import PAIRS


def _scoring_options_classes() -> list[type[Options]]:
    """Every options class: the registered aligners' and scorers', the agreement's, and any
    other :class:`Options` subclass a module of :mod:`scoring` declares."""
    for module in pkgutil.walk_packages(scoring.__path__, "scoring."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)
    found: dict[type[Options], None] = {}
    for name in available_aligners():
        found[aligner_class(name).options_class] = None
    for kind in scorer_kinds():
        found[scorer_class(kind).options_class] = None
    found[AgreementParams] = None
    stack = list(Options.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        # ``dataclass(slots=True)`` replaces a class by a new one: keep the one its module holds
        declared = getattr(sys.modules[cls.__module__], cls.__qualname__, None)
        if cls.__module__.startswith("scoring.") and declared is cls:
            found[cls] = None
    return list(found)


CLASSES = _scoring_options_classes()


def _numeric_options(cls: type[Options]) -> list[tuple[str, type, bool]]:
    """``(name, int or float, is a list)`` of each numeric option."""
    out = []
    for name, hint in field_types(cls).items():
        if name not in cls.names():
            continue
        inner = hint
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if args and typing.get_origin(hint) is not tuple:
            inner = args[0]
        listed = typing.get_origin(inner) is tuple
        kind = typing.get_args(inner)[0] if listed else inner
        if kind in (int, float):
            out.append((name, kind, listed))
    return out


def test_the_walk_finds_every_registered_options_class() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"EMOptions", "SupervisedOptions", "PerpOptions", "PPDAOptions", "SvmOptions"} <= names
    assert {"MtOptions", "CombinedOptions", "AgreementParams", "LexicalOptions"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_numeric_option_has_a_finite_upper_bound_and_a_valid_default(
    cls: type[Options],
) -> None:
    defaults = cls()  # every default is allowed
    for name, _, listed in _numeric_options(cls):
        constraint = cls.constraints.get(name)
        assert isinstance(constraint, Interval), f"{cls.__name__}.{name} has no interval"
        assert constraint.low is not None, f"{cls.__name__}.{name} has no lower bound"
        assert constraint.high is not None, f"{cls.__name__}.{name} has no upper bound"
        if listed:
            assert cls.max_items.get(name), f"{cls.__name__}.{name} has no most number of values"
            assert len(getattr(defaults, name) or ()) <= cls.max_items[name]


def _just_above(high: float, kind: type) -> Any:
    return int(high) + 1 if kind is int else high * 2 + 1


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_a_number_above_its_bound_is_refused_naming_the_option_value_and_range(
    cls: type[Options],
) -> None:
    for name, kind, listed in _numeric_options(cls):
        constraint = cls.constraints[name]
        assert isinstance(constraint, Interval) and constraint.high is not None
        value = _just_above(constraint.high, kind)
        with pytest.raises(OptionsError) as error:
            cls.from_dict({name: [value] if listed else value})
        assert error.value.option == name
        assert f"option {name!r} of {cls.owner} must be" in str(error.value)
        assert str(constraint) in str(error.value) and f"{value!r}" in str(error.value)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_a_list_longer_than_its_most_values_is_refused(cls: type[Options]) -> None:
    defaults = cls()
    for name, _, listed in _numeric_options(cls):
        if not listed:
            continue
        most = cls.max_items[name]
        value = list(getattr(defaults, name))[:1] * (most + 1)
        with pytest.raises(OptionsError, match=f"takes at most {most} values, got {most + 1}"):
            cls.from_dict({name: value})
        assert f"at most {most} values" in {s.name: s for s in cls.describe()}[name].allowed


def test_an_svm_grid_search_of_more_fits_than_allowed_is_refused() -> None:
    grids = {"c_grid": tuple(range(1, 11)), "gamma_factors": tuple(range(1, 11))}
    assert SvmOptions(**grids, epsilon_grid=(0.1, 0.5), folds=5)  # 1,000 fits
    with pytest.raises(OptionsError, match=r"the SVM: .* would make 1,200 fits .* at most 1,000"):
        SvmOptions(**grids, epsilon_grid=(0.1, 0.5), folds=6)
    with pytest.raises(OptionsError, match=r"scorer 'mt': .* 1,200 fits") as error:
        MtOptions.from_dict({**grids, "folds": 6})
    assert error.value.option == "c_grid"
    with pytest.raises(OptionsError, match=r"scorer 'combined': .* 1,200 fits"):
        CombinedOptions.from_dict({**grids, "folds": 6})
    assert CombinedOptions.from_dict({**grids, "folds": 6, "learner": "ridge"}).folds == 6


def test_a_saved_model_with_an_option_beyond_a_bound_still_loads() -> None:
    """The bounds limit what a training may be asked; a model saved before them still loads."""
    scorer = get_scorer("perp", "regression", epochs=2, stop_words=["the"])
    scorer.fit([(a.split(), b.split()) for a, b, _ in PAIRS], [y for _, _, y in PAIRS])
    saved = scorer.to_dict()
    saved["options"] |= {"epochs": 10**6, "seed": 2**40}
    loaded = scorer_from_dict(saved)
    pairs = [(a.split(), b.split()) for a, b, _ in PAIRS]
    assert list(loaded.predict(pairs)) == pytest.approx(list(scorer.predict(pairs)))
    with pytest.raises(OptionsError, match="'epochs'"):
        get_scorer("perp", "regression", epochs=10**6)  # still refused for a new one

    aligner = get_aligner("identity").to_dict()
    aligner["options"]["max_length"] = 5_000
    assert Aligner.from_dict(aligner).options.max_length == 5_000
    with pytest.raises(OptionsError, match="'max_length'"):
        get_aligner("identity", max_length=5_000)
