"""Every model in the Django admin. Link rows are shown inline with their alignment, the first
:data:`LINKS_SHOWN` of them and read-only (alignments change through the workspace, the
adjudication page and the prefill jobs, which log and version them); the event logs are
read-only because they are append-only in the database too. The rows the services keep
consistent (assignments, annotations, prefills, jobs, a corpus's import, archive and prefill
state, which corpus a pair belongs to) are read-only here too: a change made here would skip
the checks, locks and logs of the page that makes it. Lists load the rows their names need in
the same query, so a page of a large table is a few queries."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest

from annotate import roles
from annotate.exceptions import DomainError
from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    Job,
    JobChunk,
    LoginAttempts,
    PairDisagreement,
    ScorerModel,
    SentencePair,
    WorkerHeartbeat,
)
from annotate.services.corpora import corpus_name_check
from annotate.services.jobs import job_cancel
from annotate.services.scorers import scorer_name_check
from annotate.services.users import username_check, username_twin

#: What only a superuser grants: the Django admin, superuser status, and permissions (directly
#: or through groups, which also hold the roles).
PRIVILEGE_FIELDS = ("is_superuser", "is_staff", "groups", "user_permissions")


def _username_clean(form: forms.ModelForm) -> str:  # type: ignore[type-arg]
    """The username rule of every other way of naming an account (the Users page, the API,
    imports): :func:`username_check`, and no twin of another account (``ALICE`` beside
    ``alice``)."""
    name = form.cleaned_data["username"]
    try:
        username_check(name)
    except DomainError as error:
        raise forms.ValidationError(str(error)) from None
    others = get_user_model().objects.exclude(pk=form.instance.pk)
    twin = username_twin(name, others.values_list("username", flat=True).iterator())
    if twin is not None:
        raise forms.ValidationError(f"{name!r} is the account {twin!r} spelt differently")
    return str(name)


def _has_work(user: Any) -> bool:
    """Whether anything of the annotation work names ``user``: an assignment, a gold alignment,
    a change in an annotation's or a pair's history, a job."""
    return any(
        model.objects.filter(**{field: user}).exists()
        for model, field in (
            (Assignment, "annotator"),
            (GoldAlignment, "adjudicator"),
            (GoldEvent, "actor"),
            (AnnotationEvent, "actor"),
            (Job, "owner"),
        )
    )


class AccountChangeForm(UserChangeForm):  # type: ignore[type-arg]
    def clean_username(self) -> str:
        return _username_clean(self)


class AccountCreationForm(AdminUserCreationForm):  # type: ignore[type-arg]
    def clean_username(self) -> str:
        return _username_clean(self)


class AccountAdmin(UserAdmin):  # type: ignore[type-arg]
    """Django's user admin, where nobody changes (or deletes, or sets the password of) an
    account more privileged than their own (:func:`annotate.roles.may_change_account`), only
    a superuser grants privileges, and a username follows the rule the Users page applies."""

    form = AccountChangeForm
    add_form = AccountCreationForm

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and not roles.may_change_account(request.user, obj):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Only an account with no work: the Users page deactivates accounts and never deletes
        one, and deleting an adjudicator here took their name off every gold they made and
        every change in the annotation and gold histories (and a job's owner off the job)."""
        if obj is not None and not roles.may_change_account(request.user, obj):
            return False
        if obj is not None and _has_work(obj):
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request: HttpRequest) -> Any:
        # The bulk deletion checks no row's work: accounts are deleted one at a time.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        if getattr(request.user, "is_superuser", False):
            return fields
        return fields + tuple(f for f in PRIVILEGE_FIELDS if f not in fields)


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountAdmin)


class RoleGroupAdmin(GroupAdmin):
    """Django's group admin, where only a superuser adds, renames or deletes a group: the roles
    are the groups named after them (:mod:`annotate.roles`), so renaming the annotator group
    ``admin`` made every annotator an admin, and deleting a group took its role from all."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(getattr(request.user, "is_superuser", False))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(getattr(request.user, "is_superuser", False))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(getattr(request.user, "is_superuser", False))


admin.site.unregister(Group)
admin.site.register(Group, RoleGroupAdmin)


#: Links an alignment's page shows (an alignment may have 10,000).
LINKS_SHOWN = 200


class _FirstLinks(BaseInlineFormSet):  # type: ignore[type-arg]
    def get_queryset(self) -> Any:
        if not hasattr(self, "_first"):
            self._first = super().get_queryset().order_by("i", "j")[:LINKS_SHOWN]
        return self._first


class _ViewOnly:
    """A model admin that shows its rows and neither adds, changes nor deletes one: its rows
    change only through the services, which check, lock and log each change."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _LinkInline(_ViewOnly, admin.TabularInline[Any, Any]):
    """An alignment's links, read-only, the first :data:`LINKS_SHOWN` in (i, j) order."""

    formset = _FirstLinks
    extra = 0
    can_delete = False
    verbose_name_plural = f"links (the first {LINKS_SHOWN})"


class CorpusForm(forms.ModelForm):  # type: ignore[type-arg]
    def clean_name(self) -> str:
        try:
            return corpus_name_check(self.cleaned_data["name"])
        except DomainError as error:
            raise forms.ValidationError(str(error)) from None


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin[Corpus]):
    """A corpus's name and description change here. Its import state, archive state, prefill
    retraining and queue order are read-only: ticking *importing* hid the corpus from every
    page and, once it had been archived an hour, had the clean-up of dead imports delete it
    with all its work; the Corpora page archives and restores, and the Prefill tab sets the
    rest, checking the aligner's options and refusing an archived corpus."""

    form = CorpusForm
    list_display = (
        "name",
        "description",
        "prefill_aligner",
        "prefill_retrain_every",
        "prefill_options",
        "queue_order",
        "archived_at",
        "created_at",
    )
    list_filter = (("archived_at", admin.EmptyFieldListFilter),)
    search_fields = ("name",)
    readonly_fields = (
        "stats",
        "prefill_aligner",
        "prefill_retrain_every",
        "prefill_options",
        "queue_order",
        "archived_at",
        "importing",
        "created_at",
    )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """A corpus is deleted from the Corpora page, which states what would go, is confirmed
        by the corpus's name, and deletes in a background job; here it would be deleted inside
        the request, without either."""
        return False


@admin.register(SentencePair)
class SentencePairAdmin(admin.ModelAdmin[SentencePair]):
    """A pair's texts, id, gold score and metadata change here; not its corpus (its work would
    move with it, out of the corpus's agreement and exports), sub-corpus or split (the
    adjudication list keeps a copy of both), nor its tokens (the links index them). Pairs are
    added by imports (a pair added here had no tokens: a server error) and deleted with their
    corpus from the Corpora page (deleting one here deleted its annotators' work)."""

    list_display = ("external_id", "corpus", "subcorpus", "split", "n_source", "n_target")
    list_filter = ("corpus", "subcorpus", "split")
    search_fields = ("external_id", "source_text", "target_text")
    readonly_fields = (
        "corpus",
        "subcorpus",
        "split",
        "n_source",
        "n_target",
        "source_tokens",
        "target_tokens",
        "position",
    )
    list_select_related = ("corpus",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class AutoLinkInline(_LinkInline):
    model = AutoLink


@admin.register(AutoAlignment)
class AutoAlignmentAdmin(_ViewOnly, admin.ModelAdmin[AutoAlignment]):
    """Read-only: prefills are made by the prefill jobs; one moved to another pair here had
    links outside its sentences."""

    list_display = ("pair", "aligner", "aligner_version", "created_at")
    list_filter = ("aligner",)
    raw_id_fields = ("pair",)
    list_select_related = ("pair__corpus",)
    inlines = (AutoLinkInline,)


@admin.register(Assignment)
class AssignmentAdmin(_ViewOnly, admin.ModelAdmin[Assignment]):
    """Read-only. Assignments are planned, handed over and released on the Assignments tab, and
    submitted and reopened in the workspace, which log the change and keep the pair's
    disagreement figure, which the adjudication list sorts on. Here an annotator's work moved
    to another account (one without the role, or one with work on the pair already) or onto
    another pair (its links outside the sentences), and a deletion deleted the work."""

    list_display = ("pair", "annotator", "status", "assigned_at", "submitted_at", "active_seconds")
    list_filter = ("status", "pair__corpus")
    search_fields = ("annotator__username", "pair__external_id")
    list_select_related = ("pair__corpus", "annotator")


class AnnotationLinkInline(_LinkInline):
    """An annotator's links change only through the workspace, which logs every change and
    keeps the annotation's edit count."""

    model = AnnotationLink


@admin.register(Annotation)
class AnnotationAdmin(_ViewOnly, admin.ModelAdmin[Annotation]):
    """Read-only: an annotation changes in the workspace, which versions and logs each change
    (a comment, flag or rating changed here bumped no version and left no event; its link count
    and assignment were editable)."""

    list_display = ("assignment", "version", "rating", "updated_at")
    list_select_related = ("assignment__annotator",)
    inlines = (AnnotationLinkInline,)


@admin.register(AnnotationEvent)
class AnnotationEventAdmin(admin.ModelAdmin[AnnotationEvent]):
    list_display = ("annotation", "version", "kind", "actor", "created_at")
    list_filter = ("kind",)
    list_select_related = ("annotation__assignment__annotator", "actor")

    def get_queryset(self, request: HttpRequest) -> QuerySet[AnnotationEvent]:
        # An event's links can be 10,000 pairs of numbers: the list shows none of them.
        return super().get_queryset(request).defer("added", "removed", "payload")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class GoldLinkInline(_LinkInline):
    """Gold changes go through the adjudication page, which versions them and logs them as
    gold events."""

    model = GoldLink


@admin.register(GoldAlignment)
class GoldAlignmentAdmin(admin.ModelAdmin[GoldAlignment]):
    """Read-only: a gold alignment changes on the adjudication page, which versions the change
    and logs it, with who and when, in the pair's gold history. One added here took version 1
    of a pair whose history had it already (every later save of that gold failed on the log's
    unique version), and one deleted or moved to another pair left no trace in either
    history; *Back to waiting* removes a gold and logs it."""

    list_display = ("pair", "version", "adjudicator", "source", "updated_at")
    raw_id_fields = ("pair",)
    list_select_related = ("pair__corpus", "adjudicator")
    readonly_fields = ("version", "adjudicator", "source")
    inlines = (GoldLinkInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(GoldEvent)
class GoldEventAdmin(admin.ModelAdmin[GoldEvent]):
    list_display = ("pair", "version", "kind", "actor", "created_at")
    list_filter = ("kind",)
    list_select_related = ("pair__corpus", "actor")

    def get_queryset(self, request: HttpRequest) -> QuerySet[GoldEvent]:
        # A change's links can be 10,000 pairs of numbers: the list shows none of them.
        return super().get_queryset(request).defer("added", "removed")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(PairDisagreement)
class PairDisagreementAdmin(admin.ModelAdmin[PairDisagreement]):
    """Read-only: kept by submit, reopen and import (``annotate.services.disagreement``)."""

    list_display = ("pair", "submitted", "lowest_f1")
    raw_id_fields = ("pair",)
    list_select_related = ("pair__corpus",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class JobChunkInline(admin.TabularInline[Any, Any]):
    """The job's chunks computing now, as their workers mark them (read only: the reaper
    fails a stale job that still holds one)."""

    model = JobChunk
    extra = 0
    readonly_fields = ("key", "worker", "started_at")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Job)
class JobAdmin(_ViewOnly, admin.ModelAdmin[Job]):
    """Read-only, but for cancelling through :func:`job_cancel`. Jobs are made by the pages and
    the API, which check their input and who may start them: one added here was sent to the
    workers by the resend of lost jobs (a ``corpus_delete`` without the typed name), one changed
    here ran other work or handed its download to another owner, and a running one deleted here
    left its worker writing to nothing."""

    list_display = ("id", "kind", "status", "progress", "message", "owner", "created_at")
    list_filter = ("kind", "status")
    list_select_related = ("owner",)
    # A job's input snapshot can be megabytes (every annotation of a report, a job's pairs).
    exclude = ("snapshot",)
    inlines = (JobChunkInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Job]:
        return super().get_queryset(request).defer("snapshot", "result")

    actions = ("cancel_jobs",)

    @admin.action(description="Cancel the selected pending or running jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        cancelled = sum(job_cancel(job=job) for job in queryset)
        self.message_user(request, f"{cancelled} job(s) cancelled")


class ScorerModelForm(forms.ModelForm):  # type: ignore[type-arg]
    def clean_name(self) -> str:
        try:
            name = scorer_name_check(self.cleaned_data["name"])
        except DomainError as error:
            raise forms.ValidationError(str(error)) from None
        if name is None:
            raise forms.ValidationError("a scorer model needs a name")
        return name


@admin.register(ScorerModel)
class ScorerModelAdmin(admin.ModelAdmin[ScorerModel]):
    """A scorer is trained by a job; here only its name changes (and it can be deleted): its
    kind, weights, parameters and training data are what training produced, and a scorer
    added or edited here with weights its kind cannot read failed every request scoring
    with it."""

    form = ScorerModelForm
    list_display = ("name", "kind", "corpus", "created_at")
    list_filter = ("kind",)
    list_select_related = ("corpus",)
    readonly_fields = (
        "kind",
        "corpus",
        "training",
        "parameters",
        "weights",
        "evaluation",
        "job",
        "created_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(LoginAttempts)
class LoginAttemptsAdmin(admin.ModelAdmin[LoginAttempts]):
    """The login lockout's counts, keyed by a hash of the account and address, or of the
    address (see ``annotate.services.logins``). Deleting a row lifts its lock; ``manage.py
    axes_reset_username NAME`` and ``axes_reset_ip ADDRESS`` find the rows by name."""

    list_display = ("key", "account", "address", "count", "last_attempt_at")
    readonly_fields = ("key", "account", "address", "count", "last_attempt_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin[WorkerHeartbeat]):
    """The workers' signs of life, written by the workers themselves: read only here."""

    list_display = ("hostname", "pid", "queues", "broker", "started_at", "beat_at")
    readonly_fields = ("hostname", "pid", "queues", "broker", "started_at", "beat_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
