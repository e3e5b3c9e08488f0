"""Similarity scorers: trained models, scoring pairs, training jobs."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import get_valid_filename
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, throttles
from annotate.apis.common import (
    BoundedListField,
    KnownFieldsSerializer,
    actor,
    name_nested_serializers,
)
from annotate.apis.jobs import JOB_STARTED, job_started
from annotate.models import ScorerModel
from annotate.renderers import FileNegotiation
from annotate.selectors import corpora as corpora_reads
from annotate.selectors.scorers import scorer_models
from annotate.services import scorers
from scoring.persistence import model_json
from scoring.scorers.base import scorer_kinds


class ScorerModelOutputSerializer(serializers.ModelSerializer[ScorerModel]):
    corpus = serializers.CharField(source="corpus.name", default=None)

    class Meta:
        model = ScorerModel
        fields = (
            "id",
            "name",
            "kind",
            "corpus",
            "training",
            "parameters",
            "evaluation",
            "created_at",
        )


class ScorerListApi(APIView):
    """Every logged-in user may list the trained scorers and their evaluations."""

    @extend_schema(responses=ScorerModelOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        actor(request)
        return Response(ScorerModelOutputSerializer(scorer_models(), many=True).data)


class ScorerModelDownloadApi(APIView):
    """A trained scorer as the JSON model file of ``python -m scoring train``, for ``python -m
    scoring score --model`` on one's own files (admins, as on the scorers page)."""

    permission_classes = permissions.ADMINS
    content_negotiation_class = FileNegotiation

    @extend_schema(
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "model file")}
    )
    def get(self, request: Request, model_id: int) -> HttpResponse:
        model = scorers.scorer_model_get(model_id)
        response = HttpResponse(model_json(model.weights), content_type="application/json")
        name = get_valid_filename(f"{model.name}.{model.kind}.json")
        # a name outside ASCII as RFC 6266's filename*, which browsers read
        response["Content-Disposition"] = content_disposition_header(True, name)
        return response


class SentenceField(serializers.CharField):
    """A sentence's raw text: a JSON string, never a number or a boolean turned into one (DRF's
    ``CharField`` scores ``[[1, 2]]`` as the sentences "1" and "2")."""

    default_error_messages = {"not_text": 'Expected a string but got type "{input_type}".'}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text", input_type=type(data).__name__)
        return str(super().to_internal_value(data))


def _pairs_field(max_pairs: int, too_many: str) -> BoundedListField:
    """``[[sentence 1, sentence 2], ...]``, raw text."""
    return BoundedListField(
        child=BoundedListField(
            child=SentenceField(max_length=scorers.MAX_SENTENCE_CHARS),
            min_length=2,
            max_length=2,
        ),
        allow_empty=False,
        max_length=max_pairs,
        error_messages={"max_length": too_many},
    )


class ScoreApi(APIView):
    """Score raw sentence pairs with a stored model (``model``: its id or name), inside the
    request: as many as the model's kind scores well within a second
    (``annotate.services.scorers.SYNC_LIMITS``); more go to ``/api/score/jobs/``. At most
    ``API_RATE_SCORE`` requests a user (with the scorers page's form)."""

    throttle_classes = throttles.SCORING

    class InputSerializer(KnownFieldsSerializer):
        model = serializers.CharField(max_length=200)
        pairs = _pairs_field(
            scorers.MAX_SYNC_PAIRS,
            f"at most {scorers.MAX_SYNC_PAIRS} pairs are scored in a request; {scorers.AS_A_JOB}",
        )

    class OutputSerializer(serializers.Serializer[Any]):
        model = serializers.CharField()
        kind = serializers.CharField()
        task = serializers.CharField()
        range = serializers.ListField(
            child=serializers.FloatField(),
            allow_null=True,
            help_text=(
                "the [min, max] of the model's training targets, which its scores are clipped "
                "to; null: not clipped (a classifier, or a model trained before ranges were kept)"
            ),
        )
        scores = serializers.ListField(child=serializers.FloatField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        actor(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        model = scorers.scorer_model_get(data.validated_data["model"])
        scores = scorers.scorer_score_texts(model=model, pairs=data.validated_data["pairs"])
        body = {
            "model": model.name,
            "kind": model.kind,
            "task": model.training.get("task", "regression"),
            "range": scorers.scorer_model_range(model),
            "scores": scores,
        }
        return Response(self.OutputSerializer(body).data)


class ScoreJobApi(APIView):
    """Queue a ``score_pairs`` job: the same body as ``/api/score``, up to
    ``MAX_JOB_PAIRS`` pairs of any length the import accepts; the scores are the job's result
    (``/api/jobs/<id>/result/``)."""

    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        model = serializers.CharField(max_length=200)
        pairs = _pairs_field(
            scorers.MAX_JOB_PAIRS,
            f"a job scores at most {scorers.MAX_JOB_PAIRS:,} pairs; split them",
        )

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request) -> Response:
        owner = actor(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        model = scorers.scorer_model_get(data.validated_data["model"])
        job = scorers.score_job_create(model=model, pairs=data.validated_data["pairs"], owner=owner)
        return job_started(job)


class ScorerTrainJobApi(APIView):
    """Admins queue a ``train_scorer`` job on a corpus split."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        kind = serializers.ChoiceField(choices=scorer_kinds())
        corpus = serializers.CharField(max_length=100)
        train_split = serializers.CharField(max_length=50)
        test_split = serializers.CharField(
            max_length=50, required=False, allow_null=True, default=None
        )
        target = serializers.ChoiceField(choices=scorers.TARGETS, default="gold_score")
        options = serializers.DictField(required=False, default=dict)
        name = serializers.CharField(max_length=200, required=False, allow_null=True, default=None)

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = dict(data.validated_data)
        corpus = corpora_reads.corpus_named(params.pop("corpus"))
        job = scorers.scorer_train_job_create(corpus=corpus, owner=actor(request), **params)
        return job_started(job)


name_nested_serializers(globals())
