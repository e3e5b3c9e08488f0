"""The prefill aligners an admin can choose from, with their options (the prefill form)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions
from annotate.apis.common import name_nested_serializers
from scoring.aligners import available_aligners
from scoring.aligners.base import aligner_class


def aligner_descriptions() -> list[dict[str, Any]]:
    """Every registered aligner: what it is and the options a prefill job may set, read from
    its options dataclass (options naming a file on the server are left out: those come from
    the server's settings)."""
    out = []
    for name in available_aligners():
        klass = aligner_class(name)
        # the docstring's first paragraph, which may run over several lines, without its
        # reStructuredText literal marks
        paragraph = (klass.__doc__ or "").strip().split("\n\n")[0]
        doc = " ".join(paragraph.replace("``", "").split())
        out.append(
            {
                "name": name,
                "description": doc,
                "learns_from_annotations": klass.uses_gold,
                "trains_on_corpus": klass.needs_training,
                "options": [
                    {k: v for k, v in spec.to_dict().items() if k != "path"}
                    for spec in klass.options_class.describe()
                    if not spec.path
                ],
            }
        )
    return out


class AlignerListApi(APIView):
    permission_classes = permissions.ADMINS

    class OutputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField()
        description = serializers.CharField()
        learns_from_annotations = serializers.BooleanField()
        trains_on_corpus = serializers.BooleanField()
        options = serializers.ListField(
            child=serializers.DictField(),
            help_text="name, default, type (bool, int, float, str), choices and allowed values "
            "of each option",
        )

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(aligner_descriptions(), many=True).data)


name_nested_serializers(globals())
