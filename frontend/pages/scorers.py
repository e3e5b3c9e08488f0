"""The scorers page: the trained models with their train and test measures beside the papers'
figures, and scoring one pair with a model (a GET form: it changes nothing, so its answer can
be bookmarked)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.exceptions import DomainError
from annotate.selectors.scorers import scorer_models
from annotate.services import scorers
from scoring.scorers.papers import PAPER_FIGURES

TEMPLATE = "frontend/scorers.html"
MEASURES = (
    ("pearson", "Pearson"),
    ("spearman", "Spearman"),
    ("accuracy", "accuracy"),
    ("f1", "F1"),
)


def measure_text(evaluation: dict[str, object] | None) -> str:
    """``Pearson 0.8120`` or ``accuracy 0.7420, F1 0.8000`` for a train/test evaluation; a
    measure the evaluation holds without a value is "undefined"."""
    if not evaluation:
        return ""
    parts = []
    for key, label in MEASURES:
        value = evaluation.get(key)
        if isinstance(value, float):
            parts.append(f"{label} {value:.4f}")
        elif key in evaluation:
            parts.append(f"{label} undefined")
    return ", ".join(parts)


class ScoreForm(forms.Form):
    model = forms.ChoiceField(label="Model")
    first = forms.CharField(max_length=scorers.MAX_SENTENCE_CHARS, label="Sentence 1")
    second = forms.CharField(max_length=scorers.MAX_SENTENCE_CHARS, label="Sentence 2")

    def __init__(self, *args: Any, names: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = [(name, name) for name in names]  # type: ignore[attr-defined]


def _papers() -> list[dict[str, Any]]:
    return [
        {
            "kind": kind,
            "source": paper["source"],
            "data": data,
            # one measure for the kind, or one per data set (the combined scorer's targets)
            "measure": paper["measure"][data]
            if isinstance(paper["measure"], dict)
            else paper["measure"],
            "values": list(values.items()),
        }
        for kind, paper in PAPER_FIGURES.items()
        for data, values in paper.items()
        if isinstance(values, dict) and data != "measure"
    ]


def _score(form: ScoreForm, models: dict[str, Any]) -> str:
    """The answer to a valid form ("similarity 3.812", "paraphrase"), or "" with the form's
    errors set."""
    model = models[form.cleaned_data["model"]]
    pair = [form.cleaned_data["first"], form.cleaned_data["second"]]
    try:
        value = scorers.scorer_score_texts(model=model, pairs=[pair])[0]
    except DomainError as error:
        field = "first" if "sentence 1" in error.message else None
        field = "second" if "sentence 2" in error.message else field
        form.add_error(field, error.message.removeprefix("pair 0, "))
        return ""
    if model.training.get("task") == "classification":
        return "paraphrase" if value >= 1 else "not a paraphrase"
    return f"similarity {value:.3f}"


@login_required
def scorers_page(request: HttpRequest) -> HttpResponse:
    stored = list(scorer_models())
    rows = [
        {
            "name": model.name,
            "kind": model.kind,
            "corpus": model.corpus.name if model.corpus else None,
            "train_split": model.training.get("train_split"),
            "pairs": model.training.get("pairs"),
            "target": model.training.get("target"),
            "train": measure_text(model.evaluation.get("train")),
            "test": measure_text(model.evaluation.get("test")),
            "created": model.created_at,
        }
        for model in stored
    ]
    asked = "model" in request.GET
    form = ScoreForm(request.GET if asked else None, names=[model.name for model in stored])
    answer = ""
    if asked and form.is_valid():
        answer = _score(form, {model.name: model for model in stored})
    context = {"models": rows, "papers": _papers(), "form": form, "answer": answer}
    return render(request, TEMPLATE, context, status=400 if form.errors else 200)
