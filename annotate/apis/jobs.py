"""Background jobs: the list, one job, its result (JSON, or CSV for an agreement report), an
export's file, and cancelling one."""

from __future__ import annotations

import json
from typing import Any

from django.http import FileResponse, HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.apis.common import MAX_ID, KnownQueryParamsSerializer, name_nested_serializers
from annotate.exceptions import Conflict, DomainError, NotFound
from annotate.jobs_runtime import job_kinds
from annotate.models import Job
from annotate.renderers import CsvRenderer, FileNegotiation, errors_as_json
from annotate.selectors import jobs as jobs_reads
from annotate.selectors import workers as workers_reads
from annotate.services import exports
from annotate.services.jobs import job_cancel, jobs_reap_if_due
from scoring.alignment.report_records import CorpusReport, report_to_csv


class JobOutputSerializer(serializers.ModelSerializer[Job]):
    """A job. ``worker_notice`` is set on a queued job while no worker is alive to run it, or
    none of its queue (it says how to start one, and names the workers running with another
    broker), likewise on a running job whose tasks wait in the chunks' queue (``deferred``),
    and null otherwise. The views pass what the live workers' heartbeats say as
    ``live_workers`` in the context, so a list asks the database once.
    Jobs without a corpus (scoring pairs, releasing abandoned work) or whose owner was removed
    have null there."""

    corpus = serializers.CharField(source="corpus.name", default=None, allow_null=True)
    corpus_id = serializers.IntegerField(default=None, allow_null=True)
    parameters = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username", default=None, allow_null=True)
    duration_seconds = serializers.SerializerMethodField()
    has_result = serializers.SerializerMethodField()
    worker_notice = serializers.SerializerMethodField()

    def get_duration_seconds(self, job: Job) -> float | None:
        if job.started_at is None:
            return None
        end = job.finished_at or timezone.now()
        return round((end - job.started_at).total_seconds(), 1)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_parameters(self, job: Job) -> dict[str, Any]:
        """What the job was asked to do; what it adds as it runs from the corpus's work (an
        agreement report's fitted edit models) only for a reader with the role its output
        needs (the views pass the reader as ``user``)."""
        return jobs_reads.job_parameters_shown(user=self.context.get("user"), job=job)

    def get_has_result(self, job: Job) -> bool:
        # Annotated by the job selectors, which leave the result itself out of lists.
        has_result = getattr(job, "has_result", None)
        return job.result is not None if has_result is None else bool(has_result)

    def get_worker_notice(self, job: Job) -> str | None:
        deferred = job.status == Job.Status.RUNNING and job.deferred  # its tasks are queued
        if job.status != Job.Status.PENDING and not deferred:
            return None
        if "live_workers" in self.context:
            workers = self.context["live_workers"]
        else:
            workers = workers_reads.live_workers()
        return workers_reads.job_worker_notice(kind=job.kind, workers=workers, deferred=deferred)

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
            "snapshot_at",
            "corpus_id",
            "duration_seconds",
            "has_result",
            "worker_notice",
        )


#: The responses of a view that queues a job (for the schema).
JOB_STARTED = {201: JobOutputSerializer, 200: JobOutputSerializer}


def job_started(job: Job) -> Response:
    """The answer of a view that queued ``job``: 201, or 200 when an identical queued or running
    job was returned instead of a new one (see ``job_create``)."""
    code = status.HTTP_200_OK if job.reused else status.HTTP_201_CREATED
    return Response(JobOutputSerializer(job, context={"user": job.owner}).data, status=code)


class JobListApi(APIView):
    """The newest jobs the user may see (admins: all), optionally of one kind, status or corpus,
    at most :attr:`LIMIT`; ``before=<id>`` lists the ones before that job (the next "page" of
    older jobs is ``before=`` the last id listed). While no worker (or none of its queue) is
    alive, each queued job's ``worker_notice`` says so and how to start one."""

    LIMIT = 100

    class InputSerializer(KnownQueryParamsSerializer):
        kind = serializers.CharField(required=False, allow_blank=True, max_length=50)
        status = serializers.ChoiceField(
            choices=Job.Status.values, required=False, allow_blank=True
        )
        corpus = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
        before = serializers.IntegerField(
            required=False, min_value=1, max_value=MAX_ID, help_text="older jobs than this id"
        )

        def validate_kind(self, value: str) -> str:
            """A kind no job has is a mistake (``score`` for ``score_pairs``), not a filter that
            matches nothing: an empty list would read as "no such jobs"."""
            if value and value not in job_kinds():
                raise serializers.ValidationError(
                    f"unknown job kind {value!r}; the kinds are {', '.join(job_kinds())}"
                )
            return value

    @extend_schema(parameters=[InputSerializer], responses=JobOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        jobs_reap_if_due()  # the list never shows a job of a dead worker as running
        jobs = jobs_reads.jobs_visible(request.user)
        if data.validated_data.get("kind"):
            jobs = jobs.filter(kind=data.validated_data["kind"])
        if data.validated_data.get("status"):
            jobs = jobs.filter(status=data.validated_data["status"])
        if "corpus" in data.validated_data:
            jobs = jobs.filter(corpus_id=data.validated_data["corpus"])
        if "before" in data.validated_data:
            jobs = jobs.filter(pk__lt=data.validated_data["before"])
        context = {"live_workers": workers_reads.live_workers(), "user": request.user}
        return Response(JobOutputSerializer(jobs[: self.LIMIT], many=True, context=context).data)


class JobDetailApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        jobs_reap_if_due()  # a progress bar polling a job of a dead worker sees it fail
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
        return Response(JobOutputSerializer(job, context={"user": request.user}).data)


class JobCancelApi(APIView):
    """Cancel a queued or running job (its owner or an admin); its worker stops at its next
    progress step. Cancelling a finished job is a 409."""

    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
        if not job_cancel(job=job):
            job.refresh_from_db()
            raise Conflict(f"job {job.pk} is {job.status}; only a queued or running job can stop")
        job.refresh_from_db()
        return Response(JobOutputSerializer(job, context={"user": request.user}).data)


class JobResultApi(APIView):
    """A finished job's result: JSON, or CSV for an agreement report (one measure per row), as a
    download. CSV is asked for with ``?format=csv`` (DRF's format parameter, so it is a renderer
    of this view) or ``Accept: text/csv``. Its owner reads it while they hold the role the job
    needs."""

    renderer_classes = [JSONRenderer, CsvRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["json", "csv"], required=False)],
        responses={(200, "application/json"): dict, (200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request: Request, job_id: int) -> HttpResponse:
        job, text = jobs_reads.job_result_text(user=request.user, job_id=job_id)
        if text is None or text == "null":
            raise NotFound(f"job {job.pk} has no result ({job.status})")
        name = f"{job.kind}-{job.pk}"
        if request.accepted_renderer.format == CsvRenderer.format:
            if job.kind != "agreement_report":
                raise DomainError("only agreement reports have a CSV form", field="format")
            response = HttpResponse(
                report_to_csv(CorpusReport.from_dict(json.loads(text))),
                content_type="text/csv; charset=utf-8",
            )
            response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
            return response
        response = HttpResponse(text, content_type="application/json")
        if request.query_params.get("download"):
            response["Content-Disposition"] = f'attachment; filename="{name}.json"'
        return response

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        return errors_as_json(super().finalize_response(request, response, *args, **kwargs))


class JobDownloadApi(APIView):
    """The file a finished export job wrote (an admin; its owner only while an admin)."""

    content_negotiation_class = FileNegotiation

    @extend_schema(
        responses={
            (200, media): OpenApiTypes.BINARY for media in exports.DOWNLOAD_MEDIA_TYPES.values()
        }
    )
    def get(self, request: Request, job_id: int) -> FileResponse:
        job = jobs_reads.job_output_visible(user=request.user, job_id=job_id)
        path = exports.export_file(job)
        return FileResponse(
            path.open("rb"),
            as_attachment=True,
            filename=path.name,
            content_type=exports.DOWNLOAD_MEDIA_TYPES.get(path.suffix),
        )


name_nested_serializers(globals())
