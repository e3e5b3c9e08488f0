"""Agreement reports of a corpus: start one as a job. Earlier reports are the corpus's
``agreement_report`` jobs (``/api/jobs/?kind=agreement_report&corpus=ID``); a report is its
job's result (``/api/jobs/ID/result/``, JSON or CSV)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
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
from annotate.selectors import corpora as corpora_reads
from annotate.services import agreement
from scoring.alignment.agreement import MAX_SAMPLES
from scoring.alignment.reports import CHANCE_MODELS


class AgreementReportJobApi(APIView):
    """Queue an agreement report: annotators (two or more), Monte Carlo samples J, seed,
    chance model and, optionally, sub-corpora."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        annotators = BoundedListField(
            child=serializers.CharField(max_length=150), min_length=2, max_length=20
        )
        samples = serializers.IntegerField(min_value=1, max_value=MAX_SAMPLES, default=1000)
        seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
        chance_model = serializers.ChoiceField(
            choices=["auto", *CHANCE_MODELS], required=False, default="auto"
        )
        subcorpora = BoundedListField(
            child=serializers.CharField(max_length=100, allow_blank=True),
            max_length=1000,
            required=False,
            default=list,
        )

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = agreement.agreement_job_create(
            corpus=corpus, owner=actor(request), **data.validated_data
        )
        return job_started(job)


name_nested_serializers(globals())
