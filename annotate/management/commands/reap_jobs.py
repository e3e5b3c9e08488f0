from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from annotate.services.jobs import jobs_reap_stale


class Command(BaseCommand):
    help = "Mark failed every running job whose worker stopped sending heartbeats."

    def handle(self, *args: Any, **options: Any) -> None:
        count = jobs_reap_stale()
        self.stdout.write(f"{count} stale job(s) marked failed")
