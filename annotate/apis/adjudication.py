"""Adjudication: pairs ready for it, one pair's annotations, the gold alignment."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, throttles
from annotate.apis.common import (
    MAX_ID,
    KnownFieldsSerializer,
    KnownQueryParamsSerializer,
    PageSerializer,
    actor,
    link_field,
    name_nested_serializers,
    page_body,
    page_field,
    parse_links,
    per_page_field,
)
from annotate.apis.jobs import JOB_STARTED, job_started
from annotate.selectors import adjudication as adjudication_reads
from annotate.selectors import corpora as corpora_reads
from annotate.selectors import jobs as jobs_reads
from annotate.services import adjudication, adjudication_bulk


class AdjudicationFiltersSerializer(serializers.Serializer[Any]):
    """The adjudication list's filters, search and order (query parameters)."""

    corpus = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    subcorpus = serializers.CharField(required=False, allow_blank=True, max_length=100)
    split = serializers.CharField(required=False, allow_blank=True, max_length=50)
    status = serializers.ChoiceField(
        choices=adjudication_reads.STATUSES, required=False, allow_blank=True
    )
    annotator = serializers.CharField(required=False, allow_blank=True, max_length=150)
    q = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="pair id or text"
    )
    sort = serializers.ChoiceField(
        choices=adjudication_reads.SORT_CHOICES,
        required=False,
        default="id",
        help_text="id: corpus order; disagreement: lowest link F1 between two annotators first; "
        "-id, -disagreement: reversed",
    )


def filters_of(values: dict[str, Any]) -> adjudication_reads.AdjudicationFilters:
    return adjudication_reads.AdjudicationFilters(
        corpus=values.get("corpus"),
        subcorpus=values.get("subcorpus") or None,
        split=values.get("split") or None,
        status=values.get("status") or None,
        annotator=values.get("annotator") or None,
        search=values.get("q", ""),
        sort=values.get("sort", "id"),
    )


class AdjudicationListApi(APIView):
    """A page of the pairs ready for adjudication (two or more submitted annotations), filtered,
    searched and sorted on the server, with the number of pairs that match."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(KnownQueryParamsSerializer, AdjudicationFiltersSerializer):
        page = page_field()
        per_page = per_page_field()

    class RowSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        external_id = serializers.CharField()
        corpus = serializers.CharField()
        subcorpus = serializers.CharField()
        split = serializers.CharField()
        source_text = serializers.CharField()
        target_text = serializers.CharField()
        submitted = serializers.IntegerField(help_text="submitted annotations")
        annotators = serializers.ListField(child=serializers.CharField())
        lowest_f1 = serializers.FloatField(
            help_text="the lowest link F1 between two of the submitted annotations"
        )
        status = serializers.CharField(help_text="waiting or adjudicated")
        gold_source = serializers.CharField(allow_null=True)
        adjudicator = serializers.CharField(allow_null=True)
        gold_updated_at = serializers.DateTimeField(allow_null=True)

    class OutputSerializer(PageSerializer):
        results = serializers.ListField(child=serializers.DictField())

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        page, per_page = data.validated_data["page"], data.validated_data["per_page"]
        rows, total = adjudication_reads.adjudication_page(
            filters_of(data.validated_data), page=page, per_page=per_page
        )
        results = self.RowSerializer(rows, many=True).data
        body = page_body(results, request=request, total=total, page=page, per_page=per_page)
        return Response(self.OutputSerializer(body).data)


class AdjudicationNextApi(APIView):
    """The waiting pair that follows ``after`` in the list the filters and order describe
    (from the top again after the last); ``id`` is null when no other pair of it waits.

    Unlike the list, it ignores query parameters it does not know: the adjudication page sends
    its own address's query as it is (the list's filters and order, and whatever else the
    address carries), and the page reads that query the same way."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(AdjudicationFiltersSerializer):
        after = serializers.IntegerField(min_value=1, max_value=MAX_ID)

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField(allow_null=True)
        external_id = serializers.CharField(allow_null=True)

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        pair = corpora_reads.pair_get(data.validated_data["after"])
        found = adjudication_reads.adjudication_next(
            pair=pair, filters=filters_of(data.validated_data)
        )
        body = {
            "id": found.pk if found else None,
            "external_id": found.external_id if found else None,
        }
        return Response(self.OutputSerializer(body).data)


def _text(**options: Any) -> serializers.CharField:
    return serializers.CharField(allow_blank=True, **options)


def _links(help_text: str = '[i, j, "S" or "P"] each, by position') -> serializers.ListField:
    """A list of links in the schema: ``[i, j, "S" | "P"]`` (a prefill's with confidence)."""
    return serializers.ListField(child=serializers.ListField(), help_text=help_text)


class AdjudicationDetailApi(APIView):
    """A pair for its adjudicator: every annotator's links (``counted`` when submitted), the
    majority of the submitted ones by the scoring rule with its ties, the prefill and the gold
    with its version; for a pair sent back to waiting, ``cleared`` (who sent it back, when, and
    the version the save of its next gold names)."""

    permission_classes = permissions.ADJUDICATORS

    class PairSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        corpus = _text()
        external_id = _text()
        subcorpus = _text()
        split = _text()
        source_tokens = serializers.ListField(child=_text())
        target_tokens = serializers.ListField(child=_text())
        source_text = _text()
        target_text = _text()

    class PrefillSerializer(serializers.Serializer[Any]):
        aligner = _text()
        links = _links('[i, j, "S" or "P", confidence or null] each')

    class AnnotationSerializer(serializers.Serializer[Any]):
        annotator = _text()
        status = _text(help_text="new, in_progress or submitted")
        counted = serializers.BooleanField(help_text="submitted: part of the majority")
        version = serializers.IntegerField()
        links = _links()
        flags = serializers.ListField(child=_text())
        comment = _text()
        rating = serializers.FloatField(allow_null=True)

    class MajoritySerializer(serializers.Serializer[Any]):
        annotators = serializers.ListField(child=_text(), help_text="whose work it counts")
        links = _links()
        link_ties = serializers.ListField(
            child=serializers.ListField(child=serializers.IntegerField()),
            help_text="[i, j] cells linked by exactly half: the adjudicator decides",
        )
        kind_ties = serializers.ListField(
            child=serializers.ListField(child=serializers.IntegerField()),
            help_text="[i, j] majority links marked sure by exactly half",
        )

    class GoldSerializer(serializers.Serializer[Any]):
        links = _links()
        version = serializers.IntegerField(help_text="what a save of the gold names")
        adjudicator = _text(allow_null=True)
        updated_at = _text(help_text="ISO 8601")
        origin = _text(help_text="adjudicated or imported")
        job = serializers.IntegerField(
            allow_null=True, help_text="the bulk accept that saved it for the adjudicator, if any"
        )

    class ClearedSerializer(serializers.Serializer[Any]):
        links = _links("empty: the pair has no gold")
        version = serializers.IntegerField(
            help_text="the version of the clear: what the save that starts a new gold names"
        )
        adjudicator = _text(allow_null=True, help_text="who sent the pair back to waiting")
        updated_at = _text(help_text="ISO 8601: when")
        origin = _text(help_text="cleared")
        job = serializers.IntegerField(
            allow_null=True, help_text="the undo of a bulk accept that cleared it, if any"
        )

    @extend_schema(
        responses=inline_serializer(
            "AdjudicationDetail",
            {
                "pair": PairSerializer(),
                "prefill": PrefillSerializer(allow_null=True),
                "annotations": AnnotationSerializer(many=True),
                "majority": MajoritySerializer(allow_null=True),
                "gold": GoldSerializer(allow_null=True),
                "cleared": ClearedSerializer(allow_null=True),
            },
        )
    )
    def get(self, request: Request, pair_id: int) -> Response:
        return Response(adjudication_reads.adjudication_of(corpora_reads.pair_get(pair_id)))


class GoldHistoryApi(APIView):
    """The changes of a pair's gold alignment, newest first: version, kind (imported,
    adjudicated, or cleared: sent back to waiting), who, when, the links set and cleared."""

    permission_classes = permissions.ADJUDICATORS

    class OutputSerializer(serializers.Serializer[Any]):
        total = serializers.IntegerField()
        events = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, pair_id: int) -> Response:
        pair = corpora_reads.pair_get(pair_id)
        return Response(self.OutputSerializer(adjudication_reads.gold_history(pair)).data)


class GoldSaveApi(APIView):
    """Save the pair's gold alignment on top of ``version``, the gold version the adjudicator
    loaded (0 or null when the pair never had gold; after Back to waiting, the version of the
    clear); 409 with the current gold (or, for a pair sent back to waiting since, the clear: no
    link, origin ``cleared``) if another change came first."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(KnownFieldsSerializer):
        version = serializers.IntegerField(
            min_value=0,
            max_value=2**31 - 1,
            allow_null=True,
            help_text="the gold version the links were edited from; 0 or null: the pair never "
            "had gold; for a pair sent back to waiting, the version of that clear",
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
        job = serializers.IntegerField(allow_null=True, help_text="null: a person's save")

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


class GoldClearApi(APIView):
    """Send the pair back to "waiting for adjudication": remove its gold alignment if
    ``version`` is its current version, logging a ``cleared`` event in its history; 409 with
    the current gold if another change came first. A pair without gold already waits: nothing
    changes (``changed`` false). The next save of its gold names the version of the clear."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(KnownFieldsSerializer):
        """The gold version the clear is based on; other fields are refused."""

        version = serializers.IntegerField(
            min_value=1,
            max_value=2**31 - 1,
            help_text="the gold version the adjudicator is looking at (gold.version)",
        )

    class OutputSerializer(serializers.Serializer[Any]):
        pair = serializers.IntegerField()
        changed = serializers.BooleanField(help_text="false: the pair had no gold already")
        cleared_version = serializers.IntegerField(
            help_text="the version of the cleared event (the last event when nothing changed)"
        )
        version = serializers.IntegerField(
            help_text="what the next save of the gold names: the version of the clear (of the "
            "pair's last gold change when nothing changed, 0 if it never had gold)"
        )
        status = serializers.CharField(help_text="waiting")

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            409: OpenApiResponse(
                description="The gold changed since ``version`` (code ``stale_version``): "
                "``error.server`` holds the current gold (links, version, adjudicator, "
                "updated_at, origin) and nothing changed; or (code ``conflict``) the pair is a "
                "trial pair, whose gold is its annotators' feedback key."
            ),
        },
    )
    def post(self, request: Request, pair_id: int) -> Response:
        pair = corpora_reads.pair_get(pair_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = adjudication.gold_clear(
            pair=pair, actor=actor(request), base_version=data.validated_data["version"]
        )
        body = {
            "pair": pair.pk,
            "changed": result.changed,
            "cleared_version": result.version,
            "version": result.version,
            "status": "waiting",
        }
        return Response(self.OutputSerializer(body).data)


class AdjudicationAcceptAgreedApi(APIView):
    """Queue an ``adjudication_accept`` job (*Accept where the annotators agree*): the majority
    of every pair of the list the filters describe that has no gold and whose submitted
    annotations are all one alignment is saved as its gold, in the caller's name. The filters
    are the list's (``GET /api/adjudication/``), its order aside; a field it does not have is
    refused rather than ignored, since a dropped filter would accept beyond the list meant.
    The job's result counts the pairs matched, accepted and skipped (adjudicated or
    re-annotated meanwhile); ``POST /api/adjudication/accept-agreed/<job_id>/undo/`` undoes it."""

    permission_classes = permissions.ADJUDICATORS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer, AdjudicationFiltersSerializer):
        """The adjudication list's filters and search; none: every pair of the list."""

        sort = None  # type: ignore[assignment]  # the order does not change which pairs match

    @extend_schema(
        request=InputSerializer,
        responses={
            201: JOB_STARTED[201],
            400: OpenApiResponse(
                description="No pair of the list has annotators who agree completely and no "
                "gold yet (nothing to accept), or a filter is not valid; nothing was queued."
            ),
            409: OpenApiResponse(
                description="A bulk accept or undo of the caller's, or of the same corpus, is "
                "still queued or running (code ``conflict``); nothing was queued."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = adjudication_bulk.adjudication_accept_job_create(
            filters=filters_of(data.validated_data), owner=actor(request)
        )
        return job_started(job)


class AdjudicationAcceptUndoApi(APIView):
    """Queue the undo (``adjudication_accept_undo``) of a bulk accept the caller may see (their
    own; an admin's, any): each gold it wrote that nobody changed since goes back to waiting.
    The job's result counts the golds cleared and those kept because they changed since."""

    permission_classes = permissions.ADJUDICATORS
    throttle_classes = throttles.JOB_STARTING

    @extend_schema(
        request=None,
        responses={
            201: JOB_STARTED[201],
            400: OpenApiResponse(description="The job is not a bulk accept."),
            404: OpenApiResponse(description="No job of that id the caller can see."),
            409: OpenApiResponse(
                description="The bulk accept is still queued or running, or was undone (or "
                "has an undo queued or running) already, or another bulk accept or undo of the "
                "caller's or of its corpus is still queued or running (code ``conflict``); "
                "or a corpus of its golds is archived (code ``corpus_archived``): restore it "
                "first. Nothing was queued."
            ),
        },
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
        undo = adjudication_bulk.adjudication_accept_undo_job_create(job=job, owner=actor(request))
        return job_started(undo)


name_nested_serializers(globals())
