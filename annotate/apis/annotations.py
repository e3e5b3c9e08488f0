"""One assignment's annotation: open from the prefill, save, submit, reopen, heartbeat and
trial feedback."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.apis.common import (
    BoundedListField,
    KnownFieldsSerializer,
    actor,
    link_field,
    name_nested_serializers,
    parse_links,
)
from annotate.models import Assignment
from annotate.selectors import workspace as workspace_reads
from annotate.services import annotations as edits


class AssignmentOpenApi(APIView):
    """Open (idempotently) the user's assignment: the pair, the prefill and the annotation,
    created from the prefill on first open."""

    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        annotation = edits.annotation_open(assignment=assignment, actor=actor(request))
        assignment.refresh_from_db()
        return Response(
            workspace_reads.workspace_of(
                user=request.user, assignment=assignment, annotation=annotation
            )
        )


class AnnotationSaveApi(APIView):
    """Save the whole link set on top of ``version``; 409 with the server's state if stale.

    ``reviewed`` (optional) lists cells ``[i, j]`` whose prefilled link the annotator checked
    without changing it; they are shown as checked from then on."""

    class InputSerializer(KnownFieldsSerializer):
        version = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
        links = link_field()
        reviewed = BoundedListField(
            child=serializers.ListField(
                child=serializers.IntegerField(min_value=0, max_value=2**31 - 1),
                min_length=2,
                max_length=2,
            ),
            required=False,
            default=list,
            max_length=edits.MAX_LINKS,
        )
        client = serializers.DictField(required=False)

    class OutputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField()
        changed = serializers.BooleanField()
        status = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        links = parse_links(
            data.validated_data["links"],
            n_source=assignment.pair.n_source,
            n_target=assignment.pair.n_target,
        )
        client = data.validated_data.get("client") or {}
        result = edits.annotation_save(
            assignment=assignment,
            actor=actor(request),
            base_version=data.validated_data["version"],
            links=links,
            reviewed=[(i, j) for i, j in data.validated_data["reviewed"]],
            client={k: client[k] for k in ("changes", "session") if k in client},
        )
        return Response(
            self.OutputSerializer(
                {
                    "version": result.annotation.version,
                    "changed": result.changed,
                    "status": result.status,
                }
            ).data
        )


class AnnotationSubmitApi(APIView):
    class InputSerializer(KnownFieldsSerializer):
        version = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
        flags = BoundedListField(
            child=serializers.CharField(max_length=50),
            required=False,
            default=list,
            max_length=len(edits.FLAGS),
        )
        comment = serializers.CharField(required=False, allow_blank=True, default="")
        rating = serializers.FloatField(
            min_value=0.0, max_value=5.0, required=False, allow_null=True, default=None
        )

    class OutputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField()
        next_id = serializers.IntegerField(allow_null=True)
        trial = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = edits.annotation_submit(
            assignment=assignment,
            actor=actor(request),
            base_version=data.validated_data["version"],
            flags=data.validated_data["flags"],
            comment=data.validated_data["comment"],
            rating=data.validated_data["rating"],
        )
        return Response(
            self.OutputSerializer(
                {
                    "version": annotation.version,
                    "next_id": workspace_reads.next_open_assignment(
                        user=request.user, after=assignment
                    ),
                    "trial": assignment.pair.is_trial,
                }
            ).data
        )


class AnnotationReopenApi(APIView):
    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        annotation = edits.annotation_reopen(assignment=assignment, actor=actor(request))
        return Response({"version": annotation.version, "status": Assignment.Status.IN_PROGRESS})


class HeartbeatApi(APIView):
    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        updated = edits.activity_heartbeat(assignment=assignment)
        return Response({"active_seconds": round(updated.active_seconds, 1)})


class TrialFeedbackApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
        return Response(workspace_reads.trial_feedback(assignment=assignment))


name_nested_serializers(globals())
