"""Similarity scorers: trained models, scoring pairs, training jobs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, throttles
from annotate.apis.common import actor, name_nested_serializers
from annotate.apis.jobs import JOB_STARTED, job_started
from annotate.exceptions import NotFound
from annotate.models import Corpus, ScorerModel
from annotate.selectors.scorers import scorer_models
from annotate.services import scorers
from annotate.services.jobs import job_create
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


class ScoreApi(APIView):
    """Score raw sentence pairs with a stored model (``model``: its id or name)."""

    class InputSerializer(serializers.Serializer[Any]):
        model = serializers.CharField()
        pairs = serializers.ListField(
            child=serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2),
            allow_empty=False,
        )

    class OutputSerializer(serializers.Serializer[Any]):
        model = serializers.CharField()
        kind = serializers.CharField()
        task = serializers.CharField()
        scores = serializers.ListField(child=serializers.FloatField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        actor(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        model = scorers.scorer_model_get(data.validated_data["model"])
        scores = scorers.scorer_score_texts(
            model=model, pairs=[tuple(p) for p in data.validated_data["pairs"]]
        )
        body = {
            "model": model.name,
            "kind": model.kind,
            "task": model.training.get("task", "regression"),
            "scores": scores,
        }
        return Response(self.OutputSerializer(body).data)


class ScorerTrainJobApi(APIView):
    """Admins queue a ``train_scorer`` job on a corpus split."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(serializers.Serializer[Any]):
        kind = serializers.ChoiceField(choices=scorer_kinds())
        corpus = serializers.CharField()
        train_split = serializers.CharField()
        test_split = serializers.CharField(required=False, allow_null=True, default=None)
        target = serializers.ChoiceField(choices=scorers.TARGETS, default="gold_score")
        options = serializers.DictField(required=False, default=dict)
        name = serializers.CharField(required=False, allow_null=True, default=None)

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = dict(data.validated_data)
        corpus = Corpus.objects.filter(name=params.pop("corpus")).first()
        if corpus is None:
            raise NotFound("no such corpus")
        job = job_create(
            kind="train_scorer", parameters=params, owner=actor(request), corpus=corpus
        )
        return job_started(job)


name_nested_serializers(globals())
