"""Reads of background jobs: admins see every job, everyone else only their own; what a job
produced only while its reader holds the role the job needs. Nothing here writes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet, TextField
from django.db.models.functions import Cast

from annotate import roles
from annotate.exceptions import NotFound, PermissionDenied
from annotate.models import (
    Job,
)

User = AbstractBaseUser | AnonymousUser

#: The role that starting a job of each kind takes. What a job produced (its result, its file)
#: is read only by a holder of that role, checked at every read: an admin demoted to annotator
#: no longer reads the exports (every annotator's work) and reports they started.
JOB_OUTPUT_ROLES: dict[str, str | None] = {
    "corpus_stats": roles.ADMIN,
    "prefill": roles.ADMIN,
    "agreement_report": roles.ADMIN,
    "train_scorer": roles.ADMIN,
    "export": roles.ADMIN,
    "assignments_plan": roles.ADMIN,
    "assignments_hand_over": roles.ADMIN,
    "assignments_release": roles.ADMIN,
    "corpus_import": roles.ADMIN,
    "corpus_delete": roles.ADMIN,
    # Started by adjudicators (and admins): counts of the golds it wrote, for whoever sees it.
    "adjudication_accept": None,
    "adjudication_accept_undo": None,
    # Any signed-in user may score pairs with a stored model: the scores are theirs.
    "score_pairs": None,
}


#: The parameters a job of each kind adds as it runs, from the corpus's work: part of what it
#: produced (an agreement report's chance model, chosen from how the annotations started, and
#: each annotator's fitted edit model), read only as its output is.
JOB_RUN_PARAMETERS: dict[str, tuple[str, ...]] = {
    "agreement_report": ("chance_model", "chance_model_reason", "edit_models"),
}


def job_parameters_shown(*, user: User | None, job: Job) -> dict[str, Any]:
    """The parameters of ``job`` that ``user`` reads: all of them while they hold the role its
    output needs (:data:`JOB_OUTPUT_ROLES`), else those its request set (an admin demoted
    since sees what they asked for, not what the job learnt from the corpus's work)."""
    parameters = dict(job.parameters or {})
    role = JOB_OUTPUT_ROLES.get(job.kind, roles.ADMIN)
    if role is None or (user is not None and roles.has_role(user, role)):
        return parameters
    for name in JOB_RUN_PARAMETERS.get(job.kind, ()):
        parameters.pop(name, None)
    if job.kind == "agreement_report" and "chance_model_requested" in parameters:
        parameters["chance_model"] = parameters.pop("chance_model_requested")
    return parameters


def _jobs_of(user: User) -> QuerySet[Job]:
    """Newest first, without the input snapshot (an agreement report's every annotation, which
    only the job itself reads) and with ``has_result``."""
    jobs = (
        Job.objects.select_related("corpus", "owner")
        .defer("snapshot")
        .annotate(
            has_result=ExpressionWrapper(Q(result__isnull=False), output_field=BooleanField())
        )
        .order_by("-created_at", "-id")
    )
    if roles.has_role(user, roles.ADMIN):
        return jobs
    return jobs.filter(owner_id=user.pk)


def jobs_visible(user: User) -> QuerySet[Job]:
    """The jobs a list shows: their results are left out too (a report can be megabytes, and
    the jobs page asks for the list every few seconds)."""
    return _jobs_of(user).defer("result")


def job_result_text(*, user: User, job_id: int) -> tuple[Job, str | None]:
    """A job the user may see (its result left out) and its result as the JSON text the
    database holds: a report of 10,000 pairs is megabytes, which decoding and encoding again
    would spend most of a second on."""
    job = jobs_visible(user).filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"there is no job {job_id} you can see")
    _require_output_role(user, job)
    text = (
        Job.objects.filter(pk=job_id)
        .annotate(text=Cast("result", TextField()))
        .values_list("text", flat=True)
        .first()
    )
    return job, text


def job_visible(*, user: User, job_id: int) -> Job:
    """One job the user may see; its result (megabytes for a report) is read only if used."""
    job = jobs_visible(user).filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"there is no job {job_id} you can see")
    return job


def job_output_visible(*, user: User, job_id: int) -> Job:
    """A job whose result or file ``user`` may read: one they see (:func:`job_visible`), while
    they hold the role its kind needs (:data:`JOB_OUTPUT_ROLES`)."""
    job = job_visible(user=user, job_id=job_id)
    _require_output_role(user, job)
    return job


def _require_output_role(user: User, job: Job) -> None:
    role = JOB_OUTPUT_ROLES.get(job.kind, roles.ADMIN)
    if role is not None and not roles.has_role(user, role):
        raise PermissionDenied(f"what job {job.pk} produced is for the {role} role only")
