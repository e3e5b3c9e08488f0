"""Corpora: the list, creating one, uploading files into it, its figures, its pairs, statistics
and prefill jobs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, throttles
from annotate.apis.common import (
    MAX_ID,
    BoundedListField,
    KnownFieldsSerializer,
    KnownQueryParamsSerializer,
    PageSerializer,
    actor,
    name_nested_serializers,
    page_body,
    page_field,
    per_page_field,
)
from annotate.apis.jobs import JOB_STARTED, job_started
from annotate.models import Corpus
from annotate.selectors import corpora as corpora_reads
from annotate.services import corpora, exports, prefill, stats, uploads
from scoring import formats
from scoring.aligners import available_aligners


class CorpusListApi(APIView):
    """The corpora in use; ``archived=true`` lists the archived ones instead."""

    permission_classes = permissions.ADJUDICATORS

    class InputSerializer(KnownQueryParamsSerializer):
        archived = serializers.BooleanField(required=False, default=False)

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        n_pairs = serializers.IntegerField()
        stats = serializers.JSONField()
        prefill_aligner = serializers.CharField()
        prefill_retrain_every = serializers.IntegerField()
        prefill_options = serializers.JSONField()
        archived_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        corpora = corpora_reads.corpora_overview(archived=query.validated_data["archived"])
        return Response(self.OutputSerializer(corpora, many=True).data)


class ArchiveStateSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    archived_at = serializers.DateTimeField(allow_null=True)
    changed = serializers.BooleanField(help_text="False when the corpus was so already")


def _archive_state(corpus: Any, changed: bool) -> Any:
    corpus.refresh_from_db(fields=["archived_at"])
    body = {"id": corpus.pk, "name": corpus.name, "archived_at": corpus.archived_at}
    return ArchiveStateSerializer({**body, "changed": changed}).data


class CorpusArchiveApi(APIView):
    """Archive a corpus: it keeps everything but leaves the queues and lists until restored.
    Archiving an archived corpus changes nothing (``changed`` false)."""

    permission_classes = permissions.ADMINS

    @extend_schema(request=None, responses=ArchiveStateSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        changed = corpora.corpus_archive(corpus=corpus)
        return Response(_archive_state(corpus, changed))


class CorpusRestoreApi(APIView):
    """Bring an archived corpus back into the queues and lists."""

    permission_classes = permissions.ADMINS

    @extend_schema(request=None, responses=ArchiveStateSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        changed = corpora.corpus_restore(corpus=corpus)
        return Response(_archive_state(corpus, changed))


class CorpusDeleteApi(APIView):
    """``GET``: everything deleting the corpus would remove, counted. ``POST``: delete it; the
    body names it again (``confirm``) and may carry the counts of work the client showed
    (``annotations``, ``gold_alignments``, ``assignments``): with more work now, nothing is
    deleted (409). The corpus is archived at once and a ``corpus_delete`` job deletes it."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        confirm = serializers.CharField(max_length=100, trim_whitespace=False)
        annotations = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
        gold_alignments = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
        assignments = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
        saved_changes = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)

    class OutputSerializer(serializers.Serializer[Any]):
        pairs = serializers.IntegerField()
        prefilled_pairs = serializers.IntegerField()
        assignments = serializers.IntegerField()
        open_assignments = serializers.IntegerField()
        annotations = serializers.IntegerField()
        annotators = serializers.IntegerField()
        gold_alignments = serializers.IntegerField()
        adjudicated_gold = serializers.IntegerField()
        saved_changes = serializers.IntegerField(
            help_text="Saves of its annotations and gold alignments, counted in their history"
        )
        jobs = serializers.IntegerField()
        scorer_models = serializers.IntegerField(
            help_text="Trained on the corpus: they stay, without the link to it"
        )
        has_work = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, corpus_id: int) -> Response:
        contents = corpora_reads.corpus_contents(corpora_reads.corpus_get(corpus_id))
        return Response(self.OutputSerializer(contents).data)

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        confirm = values.pop("confirm")
        job = corpora.corpus_delete(
            corpus=corpus, confirm=confirm, seen=values or None, owner=actor(request)
        )
        return job_started(job)


class CorpusStatsJobApi(APIView):
    """Admins queue a ``corpus_stats`` job that recomputes a corpus's statistics."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    @extend_schema(request=None, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        job = stats.corpus_stats_job_create(corpus=corpus, owner=actor(request))
        return job_started(job)


class CorpusPrefillJobApi(APIView):
    """Admins queue a prefill job; ``retrain_every`` also sets automatic retraining (0: off);
    ``options`` are the aligner's options (also used by the retraining), checked by the service."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        aligner = serializers.ChoiceField(choices=available_aligners())
        retrain_every = serializers.IntegerField(
            min_value=0, max_value=prefill.MAX_RETRAIN_EVERY, required=False, allow_null=True
        )
        options = serializers.DictField(required=False)

    @extend_schema(
        request=InputSerializer,
        responses={
            **JOB_STARTED,
            409: OpenApiResponse(
                description="Another prefill of the corpus is queued or running (code "
                "``prefill_busy``): wait for it to end, or cancel it."
            ),
        },
    )
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = prefill.prefill_queue(
            corpus=corpus,
            aligner=data.validated_data["aligner"],
            retrain_every=data.validated_data.get("retrain_every"),
            owner=actor(request),
            trigger="api",
            options=data.validated_data.get("options"),
        )
        return job_started(job)


class CorpusQueueOrderApi(APIView):
    """Set which of an annotator's planned pairs of the corpus opens next: ``position`` (corpus
    order) or the least sure prefill first. Refused on an archived corpus (409,
    ``corpus_archived``), as all new work there is."""

    permission_classes = permissions.ADMINS

    class InputSerializer(KnownFieldsSerializer):
        order = serializers.ChoiceField(choices=Corpus.QueueOrder.choices)

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        queue_order = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            409: OpenApiResponse(
                description="The corpus is archived (code ``corpus_archived``): restore it "
                "first; nothing changed."
            ),
        },
    )
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        corpus = prefill.corpus_queue_order_set(corpus=corpus, order=data.validated_data["order"])
        body = {"id": corpus.pk, "name": corpus.name, "queue_order": corpus.queue_order}
        return Response(self.OutputSerializer(body).data)


class CorpusExportApi(APIView):
    """What a corpus can export (formats, annotators with work, prefill, gold), and queueing an
    export job; its file is downloaded from ``/api/jobs/<id>/download/`` when it is done."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING

    class InputSerializer(KnownFieldsSerializer):
        format = serializers.ChoiceField(choices=list(exports.EXPORT_FORMATS))
        which = serializers.ChoiceField(choices=exports.WHICH, default="all")
        annotator = serializers.CharField(required=False, allow_blank=True, max_length=150)
        use = serializers.ChoiceField(choices=exports.PHRASE_USES, default="possible")
        max_length = serializers.IntegerField(
            min_value=1, max_value=exports.MAX_PHRASE_LENGTH, default=7
        )
        keep_identical = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer[Any]):
        formats = serializers.DictField(child=serializers.CharField())
        annotators = serializers.ListField(child=serializers.CharField())
        prefill = serializers.BooleanField()
        gold = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        body = {"formats": exports.EXPORT_FORMATS, **exports.export_sources(corpus)}
        return Response(self.OutputSerializer(body).data)

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        job = exports.export_job_create(
            corpus=corpus,
            owner=actor(request),
            format_name=values["format"],
            which=values["which"],
            annotator=values.get("annotator", ""),
            use=values["use"],
            max_length=values["max_length"],
            keep_identical=values["keep_identical"],
        )
        return job_started(job)


class CorpusCreateApi(APIView):
    permission_classes = permissions.ADMINS

    class InputSerializer(KnownFieldsSerializer):
        name = serializers.CharField(max_length=100)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        corpus = corpora.corpus_create(**data.validated_data)
        return Response(self.OutputSerializer(corpus).data, status=status.HTTP_201_CREATED)


class CorpusImportApi(APIView):
    """Upload files in one import format into a corpus (created if new). The files are stored
    and a ``corpus_import`` job imports them, all or nothing; its result is the import's report
    (``corpus_id``, ``pairs``, ``annotations``, …), its error names the file, line and field.
    With ``onto_existing`` the files add annotations and gold alignments to the corpus's pairs
    (``annotated_pairs``, ``annotations_unchanged``, ``gold_unchanged`` in the report) and add
    no pair."""

    permission_classes = permissions.ADMINS
    throttle_classes = throttles.JOB_STARTING
    parser_classes = [MultiPartParser]

    class InputSerializer(KnownFieldsSerializer):
        corpus = serializers.CharField(max_length=100)
        format = serializers.ChoiceField(choices=sorted(formats.FORMATS))
        files = BoundedListField(
            # an empty file is refused by the import, naming it (DRF's message names none)
            child=serializers.FileField(allow_empty_file=True),
            min_length=1,
            max_length=20,
        )
        annotator = serializers.CharField(max_length=150, required=False, allow_blank=True)
        subcorpus = serializers.CharField(max_length=100, required=False, allow_blank=True)
        split = serializers.CharField(max_length=50, required=False, allow_blank=True)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
        onto_existing = serializers.BooleanField(
            required=False,
            default=False,
            help_text="add the files' annotations and gold alignments to the corpus's pairs of "
            "the same ids and tokens instead of adding pairs",
        )

    @extend_schema(request=InputSerializer, responses=JOB_STARTED)
    def post(self, request: Request) -> Response:
        fields = {**request.POST.dict(), "files": request.FILES.getlist("files")}
        data = self.InputSerializer(data=fields)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        job = uploads.corpus_import_job_create(
            corpus=values["corpus"].strip(),
            format_name=values["format"],
            files=values["files"],
            annotator=values.get("annotator") or None,
            subcorpus=values.get("subcorpus") or None,
            split=values.get("split") or None,
            description=values.get("description", ""),
            owner=actor(request),
            onto_existing=values["onto_existing"],
        )
        return job_started(job)


class CorpusDetailApi(APIView):
    """A corpus and the figures of its page (aggregated in SQL)."""

    permission_classes = permissions.ADMINS

    @extend_schema(responses=dict)
    def get(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        return Response(
            {
                "id": corpus.pk,
                "name": corpus.name,
                "description": corpus.description,
                "stats": corpus.stats,
                "overview": corpora_reads.corpus_overview(corpus),
            }
        )


NO_LABEL = "(none)"


class CorpusPairsApi(APIView):
    """A page of a corpus's pairs: filters, search, sorting."""

    permission_classes = permissions.ADMINS

    class InputSerializer(KnownQueryParamsSerializer):
        subcorpus = serializers.CharField(required=False, allow_blank=True)
        split = serializers.CharField(required=False, allow_blank=True)
        status = serializers.ChoiceField(
            choices=corpora_reads.PAIR_STATUSES, required=False, allow_blank=True
        )
        annotator = serializers.CharField(required=False, allow_blank=True)
        min_length = serializers.IntegerField(min_value=0, max_value=1_000_000, required=False)
        max_length = serializers.IntegerField(min_value=0, max_value=1_000_000, required=False)
        q = serializers.CharField(required=False, allow_blank=True, max_length=200)
        sort = serializers.ChoiceField(
            choices=sorted(corpora_reads.PAIR_SORTS), required=False, default="position"
        )
        page = page_field()
        per_page = per_page_field()

    class RowSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        external_id = serializers.CharField()
        subcorpus = serializers.CharField()
        split = serializers.CharField()
        n_source = serializers.IntegerField()
        n_target = serializers.IntegerField()
        source_text = serializers.CharField()
        target_text = serializers.CharField()
        assigned = serializers.IntegerField()
        submitted = serializers.IntegerField()
        has_gold = serializers.BooleanField()

    class OutputSerializer(PageSerializer):
        total = serializers.IntegerField(help_text="pairs matching the filters")
        results = serializers.ListField(child=serializers.DictField())

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer)
    def get(self, request: Request, corpus_id: int) -> Response:
        corpus = corpora_reads.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        page, per_page = values.pop("page"), values.pop("per_page")
        sort = values.pop("sort")
        search = values.pop("q", "")
        filters = {
            key: value
            for key, value in values.items()
            if value not in ("", None) or (key in ("subcorpus", "split") and value == "")
        }
        rows, total = corpora_reads.corpus_pairs_page(
            corpus, page=page, per_page=per_page, search=search, sort=sort, **filters
        )
        results = self.RowSerializer(rows, many=True).data
        body = page_body(results, request=request, total=total, page=page, per_page=per_page)
        return Response(self.OutputSerializer(body).data)


name_nested_serializers(globals())
