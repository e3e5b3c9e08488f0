"""Background jobs: the list and one job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.models import Job
from annotate.selectors import jobs as jobs_reads

if TYPE_CHECKING:
    pass
from annotate.apis.common import name_nested_serializers


class JobOutputSerializer(serializers.ModelSerializer[Job]):
    corpus = serializers.CharField(source="corpus.name", default=None)
    owner = serializers.CharField(source="owner.username", default=None)

    class Meta:
        model = Job
        fields = (
            "id",
            "kind",
            "status",
            "progress",
            "message",
            "error",
            "corpus",
            "owner",
            "parameters",
            "seed",
            "created_at",
            "started_at",
            "finished_at",
        )


class JobListApi(APIView):
    LIMIT = 50

    @extend_schema(responses=JobOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        jobs = jobs_reads.jobs_visible(request.user)[: self.LIMIT]
        return Response(JobOutputSerializer(jobs, many=True).data)


class JobDetailApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
        return Response(JobOutputSerializer(job).data)


name_nested_serializers(globals())
