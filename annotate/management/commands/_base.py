"""Shared behaviour of the project's management commands: domain errors become one clean line
on stderr and a non-zero exit status, never a traceback."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.exceptions import DomainError
from scoring.errors import ScoringError


class DomainCommand(BaseCommand):
    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except (DomainError, ScoringError) as error:
            raise CommandError(str(error)) from error
