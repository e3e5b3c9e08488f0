"""Reads of background jobs: admins see every job, everyone else only their own. Nothing
here writes."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from annotate import roles
from annotate.exceptions import NotFound
from annotate.models import (
    Job,
)

User = AbstractBaseUser | AnonymousUser


def jobs_visible(user: User) -> QuerySet[Job]:
    jobs = Job.objects.select_related("corpus", "owner").order_by("-created_at", "-id")
    if roles.has_role(user, roles.ADMIN):
        return jobs
    return jobs.filter(owner_id=user.pk)


def job_visible(*, user: User, job_id: int) -> Job:
    job = jobs_visible(user).filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"there is no job {job_id} you can see")
    return job
