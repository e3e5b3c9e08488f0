"""The signed-in user: who they are and their queue of pairs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.apis.common import name_nested_serializers
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
        assignments = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        queue = workspace_reads.queue_of(request.user)
        return Response(
            {
                "counts": queue.counts,
                "continue_id": queue.continue_id,
                "next_id": queue.next_id,
                "assignments": self.ItemSerializer(queue.assignments, many=True).data,
            }
        )


name_nested_serializers(globals())
