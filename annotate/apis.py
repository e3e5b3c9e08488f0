"""HTTP API of the workspace: one APIView per operation.

Body of every view: validate input → call a service or selector → serialise. Domain errors
(:mod:`annotate.exceptions`) become HTTP statuses in the single exception handler; views never
build error payloads. Visibility: annotators reach only their own assignments (others' are
404), adjudication needs the adjudicator or admin role, admin operations the admin role.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import roles
from annotate import selectors_workspace as sel
from annotate.exceptions import DomainError, NotFound, PermissionDenied
from annotate.models import Assignment, Corpus, Job, ScorerModel
from annotate.selectors import scorer_models
from annotate.services import adjudication, assignments, guidelines, prefill, scorers
from annotate.services import annotations as edits
from annotate.services.annotations import LinkMap, links_list, links_parse
from annotate.services.jobs import job_create
from scoring.aligners import available_aligners
from scoring.scorers.base import scorer_kinds

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _link_field() -> serializers.ListField:
    """``[[i, j, "S"|"P"], ...]``; the content is checked by ``links_parse``."""
    return serializers.ListField(child=serializers.JSONField(), allow_empty=True)


def _actor(request: Request) -> User:
    """The logged-in user (every view requires authentication)."""
    user = request.user
    if not isinstance(user, get_user_model()):
        raise PermissionDenied("log in first")
    return user


def _links(request_links: list[Any], *, n_source: int, n_target: int) -> LinkMap:
    return links_parse(request_links, n_source=n_source, n_target=n_target)


class JobOutputSerializer(serializers.ModelSerializer[Job]):
    corpus = serializers.CharField(source="corpus.name", default=None)
    owner = serializers.CharField(source="owner.username", default=None)

    class Meta:
        model = Job
        fields = (
            "id",
            "kind",
            "status",
            "progress",
            "message",
            "error",
            "corpus",
            "owner",
            "parameters",
            "seed",
            "created_at",
            "started_at",
            "finished_at",
        )


# --- the user and their queue -----------------------------------------------------------------


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        roles = serializers.ListField(child=serializers.CharField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        data = {"username": request.user.get_username(), "roles": sel.role_names(request.user)}
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
        queue = sel.queue_of(request.user)
        return Response(
            {
                "counts": queue.counts,
                "continue_id": queue.continue_id,
                "next_id": queue.next_id,
                "assignments": self.ItemSerializer(queue.assignments, many=True).data,
            }
        )


# --- one assignment ---------------------------------------------------------------------------


class AssignmentOpenApi(APIView):
    """Open (idempotently) the user's assignment: the pair, the prefill and the annotation,
    created from the prefill on first open."""

    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        annotation = edits.annotation_open(assignment=assignment, actor=_actor(request))
        assignment.refresh_from_db()
        return Response(
            sel.workspace_of(user=request.user, assignment=assignment, annotation=annotation)
        )


class AnnotationSaveApi(APIView):
    """Save the whole link set on top of ``version``; 409 with the server's state if stale."""

    class InputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField(min_value=1)
        links = _link_field()
        client = serializers.DictField(required=False)

    class OutputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField()
        changed = serializers.BooleanField()
        status = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        links = _links(
            data.validated_data["links"],
            n_source=assignment.pair.n_source,
            n_target=assignment.pair.n_target,
        )
        client = data.validated_data.get("client") or {}
        result = edits.annotation_save(
            assignment=assignment,
            actor=_actor(request),
            base_version=data.validated_data["version"],
            links=links,
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
    class InputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField(min_value=1)
        flags = serializers.ListField(child=serializers.CharField(), required=False, default=list)
        comment = serializers.CharField(required=False, allow_blank=True, default="")
        rating = serializers.FloatField(required=False, allow_null=True, default=None)

    class OutputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField()
        next_id = serializers.IntegerField(allow_null=True)
        trial = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = edits.annotation_submit(
            assignment=assignment,
            actor=_actor(request),
            base_version=data.validated_data["version"],
            flags=data.validated_data["flags"],
            comment=data.validated_data["comment"],
            rating=data.validated_data["rating"],
        )
        return Response(
            self.OutputSerializer(
                {
                    "version": annotation.version,
                    "next_id": sel.next_open_assignment(user=request.user, after=assignment),
                    "trial": sel.is_trial(assignment.pair),
                }
            ).data
        )


class AnnotationReopenApi(APIView):
    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        annotation = edits.annotation_reopen(assignment=assignment, actor=_actor(request))
        return Response({"version": annotation.version, "status": Assignment.Status.IN_PROGRESS})


class HeartbeatApi(APIView):
    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        updated = edits.activity_heartbeat(assignment=assignment)
        return Response({"active_seconds": round(updated.active_seconds, 1)})


class TrialFeedbackApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = sel.assignment_of_user(user=request.user, assignment_id=assignment_id)
        return Response(sel.trial_feedback(assignment=assignment))


# --- assignment management (admin) ------------------------------------------------------------


def _user(username: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise DomainError(f"there is no user {username!r}")
    return user


class AssignmentsPlanApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        annotators = serializers.ListField(child=serializers.CharField(), allow_empty=False)
        per_pair = serializers.IntegerField(min_value=1, default=1)
        double_fraction = serializers.FloatField(min_value=0.0, max_value=1.0, default=0.0)
        seed = serializers.IntegerField(required=False, allow_null=True, default=None)

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request, corpus_id: int) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        corpus = sel.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = assignments.assignments_plan(
            corpus=corpus,
            annotators=[_user(name) for name in data.validated_data["annotators"]],
            per_pair=data.validated_data["per_pair"],
            double_fraction=data.validated_data["double_fraction"],
            seed=data.validated_data["seed"],
        )
        return Response(report.__dict__, status=status.HTTP_201_CREATED)


class AssignmentReassignApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        annotator = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request, assignment_id: int) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        assignment = Assignment.objects.filter(pk=assignment_id).first()
        if assignment is None:
            raise NotFound(f"there is no assignment {assignment_id}")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = assignments.assignment_reassign(
            assignment=assignment, to=_user(data.validated_data["annotator"]), actor=_actor(request)
        )
        return Response({"id": updated.pk, "annotator": updated.annotator.get_username()})


class AssignmentsReleaseApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        idle_hours = serializers.FloatField(min_value=0.0)

    @extend_schema(request=InputSerializer, responses=dict)
    def post(self, request: Request) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = assignments.assignments_release_abandoned(
            idle=timedelta(hours=data.validated_data["idle_hours"]), actor=_actor(request)
        )
        return Response(report)


# --- corpora and jobs -------------------------------------------------------------------------


class CorpusListApi(APIView):
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        n_pairs = serializers.IntegerField()
        stats = serializers.JSONField()
        prefill_aligner = serializers.CharField()
        prefill_retrain_every = serializers.IntegerField()
        prefill_options = serializers.JSONField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        sel.require_role(request.user, roles.ADMIN, roles.ADJUDICATOR)
        return Response(self.OutputSerializer(sel.corpora_overview(), many=True).data)


class CorpusStatsJobApi(APIView):
    """Admins queue a ``corpus_stats`` job that recomputes a corpus's statistics."""

    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        corpus = sel.corpus_get(corpus_id)
        job = job_create(
            kind="corpus_stats",
            parameters={"corpus": corpus.name},
            owner=_actor(request),
            corpus=corpus,
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)


class CorpusPrefillJobApi(APIView):
    """Admins queue a prefill job; ``retrain_every`` also sets automatic retraining (0: off);
    ``options`` are the aligner's options (also used by the retraining), checked by the service."""

    class InputSerializer(serializers.Serializer[Any]):
        aligner = serializers.ChoiceField(choices=available_aligners())
        retrain_every = serializers.IntegerField(
            min_value=0, max_value=prefill.MAX_RETRAIN_EVERY, required=False, allow_null=True
        )
        options = serializers.DictField(required=False)

    @extend_schema(request=InputSerializer, responses=JobOutputSerializer)
    def post(self, request: Request, corpus_id: int) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        corpus = sel.corpus_get(corpus_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = prefill.prefill_queue(
            corpus=corpus,
            aligner=data.validated_data["aligner"],
            retrain_every=data.validated_data.get("retrain_every"),
            owner=_actor(request),
            trigger="api",
            options=data.validated_data.get("options"),
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)


class JobListApi(APIView):
    LIMIT = 50

    @extend_schema(responses=JobOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        jobs = sel.jobs_visible(request.user)[: self.LIMIT]
        return Response(JobOutputSerializer(jobs, many=True).data)


class JobDetailApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = sel.job_visible(user=request.user, job_id=job_id)
        return Response(JobOutputSerializer(job).data)


# --- adjudication -----------------------------------------------------------------------------


class AdjudicationListApi(APIView):
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        corpus = serializers.CharField(source="corpus.name")
        external_id = serializers.CharField()
        n_submitted = serializers.IntegerField()
        has_gold = serializers.SerializerMethodField()

        def get_has_gold(self, pair: Any) -> bool:
            return hasattr(pair, "gold")

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        sel.require_role(request.user, roles.ADJUDICATOR, roles.ADMIN)
        pairs = sel.pairs_for_adjudication().select_related("gold")[:500]
        return Response(self.OutputSerializer(pairs, many=True).data)


class AdjudicationDetailApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, pair_id: int) -> Response:
        sel.require_role(request.user, roles.ADJUDICATOR, roles.ADMIN)
        return Response(sel.adjudication_of(sel.pair_get(pair_id)))


class GoldSaveApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        links = _link_field()

    @extend_schema(request=InputSerializer, responses=dict)
    def put(self, request: Request, pair_id: int) -> Response:
        sel.require_role(request.user, roles.ADJUDICATOR, roles.ADMIN)
        pair = sel.pair_get(pair_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        links = _links(data.validated_data["links"], n_source=pair.n_source, n_target=pair.n_target)
        gold = adjudication.gold_save(pair=pair, links=links, adjudicator=_actor(request))
        return Response({"pair": pair.pk, "links": links_list(links), "id": gold.pk})


# --- guidelines -------------------------------------------------------------------------------


class GuidelinesApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        markdown = serializers.CharField(allow_blank=True, trim_whitespace=False)

    @extend_schema(responses=dict)
    def get(self, request: Request) -> Response:
        text = guidelines.guidelines_get()
        return Response({"markdown": text, "html": guidelines.guidelines_html(text)})

    @extend_schema(request=InputSerializer, responses=dict)
    def put(self, request: Request) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text = guidelines.guidelines_set(text=data.validated_data["markdown"])
        return Response({"markdown": text, "html": guidelines.guidelines_html(text)})


def _name_nested_serializers() -> None:
    """Give each nested ``InputSerializer``/``OutputSerializer`` a unique OpenAPI component name
    (``MeApiOutput`` …); otherwise every one of them would be called ``Input`` or ``Output``."""
    for view in list(globals().values()):
        if isinstance(view, type) and issubclass(view, APIView):
            for attr, nested in list(vars(view).items()):
                if isinstance(nested, type) and issubclass(nested, serializers.BaseSerializer):
                    name = f"{view.__name__}{attr.removesuffix('Serializer')}"
                    setattr(view, attr, extend_schema_serializer(component_name=name)(nested))


_name_nested_serializers()


# --- similarity scorers ---------------------------------------------------------------


class ScorerModelOutputSerializer(serializers.ModelSerializer[ScorerModel]):
    corpus = serializers.CharField(source="corpus.name", default=None)

    class Meta:
        model = ScorerModel
        fields = (
            "id",
            "name",
            "kind",
            "corpus",
            "training",
            "parameters",
            "evaluation",
            "created_at",
        )


class ScorerListApi(APIView):
    """Every logged-in user may list the trained scorers and their evaluations."""

    @extend_schema(responses=ScorerModelOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        _actor(request)
        return Response(ScorerModelOutputSerializer(scorer_models(), many=True).data)


class ScoreApi(APIView):
    """Score raw sentence pairs with a stored model (``model``: its id or name)."""

    class InputSerializer(serializers.Serializer[Any]):
        model = serializers.CharField()
        pairs = serializers.ListField(
            child=serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2),
            allow_empty=False,
        )

    class OutputSerializer(serializers.Serializer[Any]):
        model = serializers.CharField()
        kind = serializers.CharField()
        task = serializers.CharField()
        scores = serializers.ListField(child=serializers.FloatField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        _actor(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        model = scorers.scorer_model_get(data.validated_data["model"])
        scores = scorers.scorer_score_texts(
            model=model, pairs=[tuple(p) for p in data.validated_data["pairs"]]
        )
        body = {
            "model": model.name,
            "kind": model.kind,
            "task": model.training.get("task", "regression"),
            "scores": scores,
        }
        return Response(self.OutputSerializer(body).data)


class ScorerTrainJobApi(APIView):
    """Admins queue a ``train_scorer`` job on a corpus split."""

    class InputSerializer(serializers.Serializer[Any]):
        kind = serializers.ChoiceField(choices=scorer_kinds())
        corpus = serializers.CharField()
        train_split = serializers.CharField()
        test_split = serializers.CharField(required=False, allow_null=True, default=None)
        target = serializers.ChoiceField(choices=scorers.TARGETS, default="gold_score")
        options = serializers.DictField(required=False, default=dict)
        name = serializers.CharField(required=False, allow_null=True, default=None)

    @extend_schema(request=InputSerializer, responses=JobOutputSerializer)
    def post(self, request: Request) -> Response:
        sel.require_role(request.user, roles.ADMIN)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = dict(data.validated_data)
        corpus = Corpus.objects.filter(name=params.pop("corpus")).first()
        if corpus is None:
            raise NotFound("no such corpus")
        job = job_create(
            kind="train_scorer", parameters=params, owner=_actor(request), corpus=corpus
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)
