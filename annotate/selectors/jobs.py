"""Reads of background jobs: admins see every job, everyone else only their own. Nothing
here writes."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet, TextField
from django.db.models.functions import Cast

from annotate import roles
from annotate.exceptions import NotFound
from annotate.models import (
    Job,
)

User = AbstractBaseUser | AnonymousUser


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
