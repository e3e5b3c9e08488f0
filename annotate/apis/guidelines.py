"""The annotation guidelines: read by everyone, edited by admins."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions
from annotate.apis.common import KnownFieldsSerializer, name_nested_serializers
from annotate.services import guidelines


class GuidelinesApi(APIView):
    permission_classes = permissions.ADMINS_TO_CHANGE

    class InputSerializer(KnownFieldsSerializer):
        markdown = serializers.CharField(
            allow_blank=True, trim_whitespace=False, max_length=guidelines.MAX_LENGTH
        )

    @extend_schema(responses=dict)
    def get(self, request: Request) -> Response:
        text = guidelines.guidelines_get()
        return Response({"markdown": text, "html": guidelines.guidelines_html(text)})

    @extend_schema(request=InputSerializer, responses=dict)
    def put(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text = data.validated_data["markdown"]
        return Response({"markdown": text, "html": guidelines.guidelines_set(text=text)})


name_nested_serializers(globals())
