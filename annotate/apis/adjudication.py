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
from annotate.services.annotations import links_list


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
    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(serializers.Serializer[Any]):
        links = link_field()

    @extend_schema(request=InputSerializer, responses=dict)
    def put(self, request: Request, pair_id: int) -> Response:
        pair = corpora_reads.pair_get(pair_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        links = parse_links(
            data.validated_data["links"], n_source=pair.n_source, n_target=pair.n_target
        )
        gold = adjudication.gold_save(pair=pair, links=links, adjudicator=actor(request))
        return Response({"pair": pair.pk, "links": links_list(links), "id": gold.pk})


name_nested_serializers(globals())
