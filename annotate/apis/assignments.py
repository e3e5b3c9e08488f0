"""Who annotates which pair (admins): plan, reassign, release abandoned work.

Planning, handing over and releasing change up to every assignment of a corpus, so they are
background jobs: the request checks the input and answers with the job (201); the job's result
(``/api/jobs/<id>/result/``) is the report."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, throttles
from annotate.apis.common import (
    MAX_ID,
    BoundedListField,
    KnownFieldsSerializer,
    actor,
    name_nested_serializers,
    user_named,
)
from annotate.apis.jobs import JOB_STARTED, job_started
from annotate.exceptions import NotFound
from annotate.models import Assignment
from annotate.selectors import assignments as assignments_reads
from annotate.selectors import corpora as corpora_reads
from annotate.services import assignments

#: The most annotators one request may name.
MAX_PEOPLE = 1000
#: The most annotators a plan gives one pair (agreement studies use two or three).
MAX_PER_PAIR = 10
#: The largest sentence length and batch a plan's selection may name.
MAX_PLAN_LENGTH = 1_000_000
MAX_PLAN_BATCH = 10_000_000
SELECTION_FIELDS = ("subcorpus", "split", "min_length", "max_length", "batch")


class AssignmentsPlanApi(APIView):
    """Queue an ``assignments_plan`` job: ``per_pair`` of ``annotators`` for the pairs that have
    fewer of them, a ``double_fraction`` of those with two or more; optionally only a
    sub-corpus, a split, a range of lengths (of the shorter sentence) and a ``batch`` of pairs."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        annotators = BoundedListField(
            child=serializers.CharField(max_length=150), allow_empty=False, max_length=MAX_PEOPLE
        )
        per_pair = serializers.IntegerField(min_value=1, max_value=MAX_PER_PAIR, default=1)
        double_fraction = serializers.FloatField(min_value=0.0, max_value=1.0, default=0.0)
        seed = serializers.IntegerField(
            min_value=0,
            max_value=assignments.MAX_SEED,
            required=False,
            allow_null=True,
            default=None,
        )
        subcorpus = serializers.CharField(max_length=100, required=False, allow_blank=True)
        split = serializers.CharField(max_length=50, required=False, allow_blank=True)
        min_length = serializers.IntegerField(
            min_value=0, max_value=MAX_PLAN_LENGTH, required=False
        )
        max_length = serializers.IntegerField(
            min_value=0, max_value=MAX_PLAN_LENGTH, required=False
        )
        batch = serializers.IntegerField(min_value=1, max_value=MAX_PLAN_BATCH, required=False)

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        selection = assignments.PlanSelection(
            **{name: values.pop(name, None) for name in SELECTION_FIELDS}
        )
        job = assignments.assignments_plan_job_create(
            corpus=corpus, owner=actor(request), selection=selection, **values
        )
        return job_started(job)


class AssignmentReassignApi(APIView):
    permission_classes = permissions.ADMINS

    class InputSerializer(KnownFieldsSerializer):
        annotator = serializers.CharField(max_length=150)

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = Assignment.objects.filter(pk=assignment_id).first()
        if assignment is None:
            raise NotFound(f"there is no assignment {assignment_id}")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = assignments.assignment_reassign(
            assignment=assignment,
            to=user_named(data.validated_data["annotator"]),
            actor=actor(request),
        )
        return Response({"id": updated.pk, "annotator": updated.annotator.get_username()})


class AssignmentsReleaseApi(APIView):
    """Queue an ``assignments_release`` job: every in-progress assignment untouched for
    ``idle_hours`` (in ``corpus`` only, when given) goes to the least-loaded other annotator
    (result: released, stuck)."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        idle_hours = serializers.FloatField(min_value=0.0, max_value=assignments.MAX_IDLE_HOURS)
        corpus = serializers.IntegerField(
            min_value=1,
            max_value=MAX_ID,
            required=False,
            allow_null=True,
            default=None,
            help_text="only this corpus's assignments (every corpus's when left out)",
        )

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        corpus_id = data.validated_data["corpus"]
        job = assignments.assignments_release_job_create(
            idle_hours=data.validated_data["idle_hours"],
            corpus=None if corpus_id is None else corpora_reads.corpus_get(corpus_id),
            owner=actor(request),
        )
        return job_started(job)


class AssignmentsProgressApi(APIView):
    """Coverage (annotators per pair, the doubly annotated fraction) and progress per annotator
    and per sub-corpus: new, in progress, submitted, median active time, edit rate."""

    permission_classes = permissions.ADMINS

    @extend_schema(responses=dict)
    def get(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        return Response(assignments_reads.corpus_progress(corpus))


class AssignmentsHandOverApi(APIView):
    """Queue an ``assignments_hand_over`` job: one annotator's open assignments in a corpus
    shared among others, least-loaded first (result: moved, and stuck: pairs every target
    already has)."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        annotator = serializers.CharField(max_length=150, help_text="whose open assignments move")
        to = BoundedListField(
            child=serializers.CharField(max_length=150), allow_empty=False, max_length=MAX_PEOPLE
        )
        include_started = serializers.BooleanField(
            default=False, help_text="also move pairs already opened (their work moves too)"
        )

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = assignments.assignments_hand_over_job_create(
            corpus=corpus, owner=actor(request), **data.validated_data
        )
        return job_started(job)


name_nested_serializers(globals())
