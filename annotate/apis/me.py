"""The signed-in user: who they are and their queue of pairs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.apis.common import (
    MAX_ID,
    KnownQueryParamsSerializer,
    name_nested_serializers,
    page_count,
    page_field,
    per_page_field,
)
from annotate.models import Assignment
from annotate.selectors import users as users_reads
from annotate.selectors import workspace as workspace_reads


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        roles = serializers.ListField(child=serializers.CharField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        data = {
            "username": request.user.get_username(),
            "roles": users_reads.role_names(request.user),
        }
        return Response(self.OutputSerializer(data).data)


class QueueApi(APIView):
    """The signed-in user's queue: counts by status, where they stopped, what comes next, and
    one page of their assignments in queue order (``status`` keeps one status only, ``corpus``
    one corpus by id, ``q`` the pairs whose id or text contains it). Archived corpora are left
    out."""

    class InputSerializer(KnownQueryParamsSerializer):
        page = page_field()
        per_page = per_page_field(default=workspace_reads.QUEUE_PAGE)
        status = serializers.ChoiceField(
            choices=Assignment.Status.values, required=False, allow_blank=True
        )
        corpus = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
        q = serializers.CharField(required=False, allow_blank=True, max_length=200)

    class ItemSerializer(serializers.ModelSerializer[Assignment]):
        corpus = serializers.CharField(source="pair.corpus.name")
        external_id = serializers.CharField(source="pair.external_id")
        split = serializers.CharField(source="pair.split")
        n_source = serializers.IntegerField(source="pair.n_source")
        n_target = serializers.IntegerField(source="pair.n_target")

        class Meta:
            model = Assignment
            fields = (
                "id",
                "status",
                "corpus",
                "external_id",
                "split",
                "n_source",
                "n_target",
                "last_activity_at",
                "active_seconds",
            )

    class OutputSerializer(serializers.Serializer[Any]):
        counts = serializers.DictField(child=serializers.IntegerField())
        continue_id = serializers.IntegerField(allow_null=True)
        next_id = serializers.IntegerField(allow_null=True)
        total = serializers.IntegerField(help_text="Assignments in the listed status (or all).")
        page = serializers.IntegerField()
        per_page = serializers.IntegerField()
        assignments = serializers.ListField(child=serializers.DictField())

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        queue = workspace_reads.queue_of(
            request.user,
            page=data.validated_data["page"],
            per_page=data.validated_data["per_page"],
            status=data.validated_data.get("status") or None,
            corpus=data.validated_data.get("corpus"),
            search=data.validated_data.get("q", "").strip(),
        )
        page_count(total=queue.total, page=queue.page, per_page=queue.per_page)
        return Response(
            {
                "counts": queue.counts,
                "continue_id": queue.continue_id,
                "next_id": queue.next_id,
                "total": queue.total,
                "page": queue.page,
                "per_page": queue.per_page,
                "assignments": self.ItemSerializer(queue.assignments, many=True).data,
            }
        )


name_nested_serializers(globals())
