"""Adjudication: pairs ready for it, one pair's annotations, the gold alignment."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions
from annotate.apis.common import actor, link_field, name_nested_serializers, parse_links
from annotate.selectors import adjudication as adjudication_reads
from annotate.selectors import corpora as corpora_reads
from annotate.services import adjudication


class AdjudicationListApi(APIView):
    permission_classes = permissions.ADJUDICATORS

    """Pairs with two or more submitted annotations, waiting ones first: whether each is
    adjudicated, and where its gold came from (an adjudicator, an import, a trial sample)."""

    LIMIT = 500

    class InputSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(
            choices=["waiting", "adjudicated", "imported"], required=False, allow_blank=True
        )

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        corpus = serializers.CharField(source="corpus.name")
        external_id = serializers.CharField()
        n_submitted = serializers.IntegerField()
        has_gold = serializers.SerializerMethodField()
        status = serializers.SerializerMethodField()
        gold_source = serializers.SerializerMethodField()
        adjudicator = serializers.SerializerMethodField()
        gold_updated_at = serializers.SerializerMethodField()

        def get_has_gold(self, pair: Any) -> bool:
            return hasattr(pair, "gold")

        def get_status(self, pair: Any) -> str:
            return adjudication_reads.adjudication_status(pair)

        def get_gold_source(self, pair: Any) -> str | None:
            return pair.gold.source if hasattr(pair, "gold") else None

        def get_adjudicator(self, pair: Any) -> str | None:
            gold = getattr(pair, "gold", None)
            return gold.adjudicator.get_username() if gold and gold.adjudicator else None

        def get_gold_updated_at(self, pair: Any) -> str | None:
            gold = getattr(pair, "gold", None)
            return gold.updated_at.isoformat() if gold else None

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        pairs = adjudication_reads.pairs_for_adjudication(
            status=data.validated_data.get("status") or None
        )[: self.LIMIT]
        return Response(self.OutputSerializer(pairs, many=True).data)


class AdjudicationDetailApi(APIView):
    permission_classes = permissions.ADJUDICATORS

    @extend_schema(responses=dict)
    def get(self, request: Request, pair_id: int) -> Response:
        return Response(adjudication_reads.adjudication_of(corpora_reads.pair_get(pair_id)))


class GoldSaveApi(APIView):
    """Save the pair's gold alignment on top of ``version``, the gold version the adjudicator
    loaded (0 or null when the pair had none); 409 with the current gold if another save came
    first."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField(
            min_value=0,
            max_value=2**31 - 1,
            allow_null=True,
            help_text="the gold version the links were edited from; 0 or null: no gold yet",
        )
        links = link_field()

    class OutputSerializer(serializers.Serializer[Any]):
        pair = serializers.IntegerField()
        id = serializers.IntegerField()
        changed = serializers.BooleanField()
        version = serializers.IntegerField()
        links = serializers.ListField(child=serializers.ListField())
        adjudicator = serializers.CharField(allow_null=True)
        updated_at = serializers.DateTimeField()
        origin = serializers.CharField(help_text="adjudicated or imported")

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request: Request, pair_id: int) -> Response:
        pair = corpora_reads.pair_get(pair_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        links = parse_links(
            data.validated_data["links"], n_source=pair.n_source, n_target=pair.n_target
        )
        result = adjudication.gold_save(
            pair=pair,
            links=links,
            adjudicator=actor(request),
            base_version=data.validated_data["version"],
        )
        body = {
            "pair": pair.pk,
            "id": result.gold.pk,
            "changed": result.changed,
            **adjudication_reads.gold_state(result.gold),
        }
        return Response(self.OutputSerializer(body).data)


name_nested_serializers(globals())
