from __future__ import annotations

from typing import Any

from annotate.exceptions import quoted
from annotate.management.commands._base import DomainCommand
from annotate.services.demo import DEMO_CORPUS_NAME, DEMO_USERS, demo_setup


class Command(DomainCommand):
    help = "Create the demo users and the sample corpus (idempotent) and print the passwords."

    def handle(self, *args: Any, **options: Any) -> None:
        report = demo_setup()
        state = "loaded" if report.corpus_created else "already present"
        name = quoted(DEMO_CORPUS_NAME)
        self.stdout.write(f"sample corpus {name}: {report.pairs} pairs ({state})")
        self.stdout.write("demo users (username / password / role):")
        for username, role in DEMO_USERS:
            self.stdout.write(f"  {username:<8} {report.credentials[username]:<14} {role}")
