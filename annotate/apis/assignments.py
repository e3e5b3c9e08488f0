"""Who annotates which pair (admins): plan, reassign, release abandoned work."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions
from annotate.apis.common import BoundedListField, actor, name_nested_serializers, user_named
from annotate.exceptions import NotFound
from annotate.models import Assignment
from annotate.selectors import assignments as assignments_reads
from annotate.selectors import corpora as corpora_reads
from annotate.services import assignments

#: The most annotators one request may name.
MAX_PEOPLE = 1000
#: The most annotators a plan gives one pair (agreement studies use two or three).
MAX_PER_PAIR = 10


class AssignmentsPlanApi(APIView):
    permission_classes = permissions.ADMINS

    class InputSerializer(serializers.Serializer[Any]):
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

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = assignments.assignments_plan(
            corpus=corpus,
            annotators=[user_named(name) for name in data.validated_data["annotators"]],
            per_pair=data.validated_data["per_pair"],
            double_fraction=data.validated_data["double_fraction"],
            seed=data.validated_data["seed"],
        )
        return Response(report.__dict__, status=status.HTTP_201_CREATED)


class AssignmentReassignApi(APIView):
    permission_classes = permissions.ADMINS

    class InputSerializer(serializers.Serializer[Any]):
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
    permission_classes = permissions.ADMINS

    class InputSerializer(serializers.Serializer[Any]):
        idle_hours = serializers.FloatField(min_value=0.0, max_value=24.0 * 365)

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = assignments.assignments_release_abandoned(
            idle=timedelta(hours=data.validated_data["idle_hours"]), actor=actor(request)
        )
        return Response(report)


class AssignmentsProgressApi(APIView):
    """Coverage (annotators per pair, the doubly annotated fraction) and progress per annotator
    and per sub-corpus: new, in progress, submitted, median active time, edit rate."""

    permission_classes = permissions.ADMINS

    @extend_schema(responses=dict)
    def get(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        return Response(assignments_reads.corpus_progress(corpus))


class AssignmentsHandOverApi(APIView):
    """Share one annotator's open assignments in a corpus among others (least-loaded first)."""

    permission_classes = permissions.ADMINS

    class InputSerializer(serializers.Serializer[Any]):
        annotator = serializers.CharField(max_length=150, help_text="whose open assignments move")
        to = BoundedListField(
            child=serializers.CharField(max_length=150), allow_empty=False, max_length=MAX_PEOPLE
        )
        include_started = serializers.BooleanField(
            default=False, help_text="also move pairs already opened (their work moves too)"
        )

    class OutputSerializer(serializers.Serializer[Any]):
        moved = serializers.IntegerField()
        stuck = serializers.IntegerField(help_text="pairs every target already has")

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = assignments.assignments_hand_over(
            corpus=corpus,
            from_user=user_named(data.validated_data["annotator"]),
            to=[user_named(name) for name in data.validated_data["to"]],
            include_started=data.validated_data["include_started"],
            actor=actor(request),
        )
        return Response(self.OutputSerializer(report).data)


name_nested_serializers(globals())
