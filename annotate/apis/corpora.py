"""Corpora: the list, statistics and prefill jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions
from annotate.selectors import corpora as corpora_reads
from annotate.services import prefill
from annotate.services.jobs import job_create
from scoring.aligners import available_aligners

if TYPE_CHECKING:
    pass
from annotate.apis.common import actor, name_nested_serializers
from annotate.apis.jobs import JobOutputSerializer


class CorpusListApi(APIView):
    permission_classes = permissions.ADJUDICATORS

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        n_pairs = serializers.IntegerField()
        stats = serializers.JSONField()
        prefill_aligner = serializers.CharField()
        prefill_retrain_every = serializers.IntegerField()
        prefill_options = serializers.JSONField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(corpora_reads.corpora_overview(), many=True).data)


class CorpusStatsJobApi(APIView):
    """Admins queue a ``corpus_stats`` job that recomputes a corpus's statistics."""

    permission_classes = permissions.ADMINS

    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        job = job_create(
            kind="corpus_stats",
            parameters={"corpus": corpus.name},
            owner=actor(request),
            corpus=corpus,
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)


class CorpusPrefillJobApi(APIView):
    """Admins queue a prefill job; ``retrain_every`` also sets automatic retraining (0: off);
    ``options`` are the aligner's options (also used by the retraining), checked by the service."""

    permission_classes = permissions.ADMINS

    class InputSerializer(serializers.Serializer[Any]):
        aligner = serializers.ChoiceField(choices=available_aligners())
        retrain_every = serializers.IntegerField(
            min_value=0, max_value=prefill.MAX_RETRAIN_EVERY, required=False, allow_null=True
        )
        options = serializers.DictField(required=False)

    @extend_schema(request=InputSerializer, responses=JobOutputSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = prefill.prefill_queue(
            corpus=corpus,
            aligner=data.validated_data["aligner"],
            retrain_every=data.validated_data.get("retrain_every"),
            owner=actor(request),
            trigger="api",
            options=data.validated_data.get("options"),
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)


name_nested_serializers(globals())
