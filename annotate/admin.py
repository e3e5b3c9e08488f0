"""Every model in the Django admin. Link rows are edited inline with their alignment;
the event log is read-only because it is append-only in the database too."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldLink,
    Job,
    ScorerModel,
    SentencePair,
    WorkerHeartbeat,
)
from annotate.services.jobs import job_cancel


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin[Corpus]):
    list_display = (
        "name",
        "description",
        "prefill_aligner",
        "prefill_retrain_every",
        "prefill_options",
        "created_at",
    )
    search_fields = ("name",)
    # options are checked against the aligner by the prefill command and API, not by this form
    readonly_fields = ("stats", "prefill_options", "created_at")


@admin.register(SentencePair)
class SentencePairAdmin(admin.ModelAdmin[SentencePair]):
    list_display = ("external_id", "corpus", "subcorpus", "split", "n_source", "n_target")
    list_filter = ("corpus", "subcorpus", "split")
    search_fields = ("external_id", "source_text", "target_text")
    readonly_fields = ("n_source", "n_target", "source_tokens", "target_tokens", "position")
    list_select_related = ("corpus",)


class AutoLinkInline(admin.TabularInline[AutoLink, Any]):
    model = AutoLink
    extra = 0


@admin.register(AutoAlignment)
class AutoAlignmentAdmin(admin.ModelAdmin[AutoAlignment]):
    list_display = ("pair", "aligner", "aligner_version", "created_at")
    list_filter = ("aligner",)
    raw_id_fields = ("pair",)
    inlines = (AutoLinkInline,)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin[Assignment]):
    list_display = ("pair", "annotator", "status", "assigned_at", "submitted_at", "active_seconds")
    list_filter = ("status", "pair__corpus")
    search_fields = ("annotator__username", "pair__external_id")
    raw_id_fields = ("pair",)


class AnnotationLinkInline(admin.TabularInline[AnnotationLink, Any]):
    """Read-only: an annotator's links change only through the workspace, which logs every
    change and keeps the annotation's edit count."""

    model = AnnotationLink
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin[Annotation]):
    list_display = ("assignment", "version", "rating", "updated_at")
    raw_id_fields = ("assignment",)
    readonly_fields = ("version", "prefill_edits")
    inlines = (AnnotationLinkInline,)


@admin.register(AnnotationEvent)
class AnnotationEventAdmin(admin.ModelAdmin[AnnotationEvent]):
    list_display = ("annotation", "version", "kind", "actor", "created_at")
    list_filter = ("kind",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class GoldLinkInline(admin.TabularInline[GoldLink, Any]):
    model = GoldLink
    extra = 0


@admin.register(GoldAlignment)
class GoldAlignmentAdmin(admin.ModelAdmin[GoldAlignment]):
    list_display = ("pair", "adjudicator", "source", "updated_at")
    raw_id_fields = ("pair",)
    inlines = (GoldLinkInline,)


@admin.register(Job)
class JobAdmin(admin.ModelAdmin[Job]):
    list_display = ("id", "kind", "status", "progress", "message", "owner", "created_at")
    list_filter = ("kind", "status")
    actions = ("cancel_jobs",)

    @admin.action(description="Cancel the selected pending or running jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        cancelled = sum(job_cancel(job=job) for job in queryset)
        self.message_user(request, f"{cancelled} job(s) cancelled")

    readonly_fields = (
        "status",
        "progress",
        "message",
        "result",
        "error",
        "worker",
        "attempts",
        "started_at",
        "heartbeat_at",
        "finished_at",
    )


@admin.register(ScorerModel)
class ScorerModelAdmin(admin.ModelAdmin[ScorerModel]):
    list_display = ("name", "kind", "corpus", "created_at")
    list_filter = ("kind",)


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin[WorkerHeartbeat]):
    """The workers' signs of life, read-only: the workers write them."""

    list_display = ("hostname", "pid", "started_at", "beat_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
