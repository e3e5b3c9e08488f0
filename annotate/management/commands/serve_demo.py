"""Run the web server and a Celery worker together on the embedded defaults (``make demo``).

Ctrl-C (or SIGTERM) stops both: the worker gets a warm shutdown, finishing its current task,
and is killed only if it has not stopped within the grace period.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

GRACE_SECONDS = 15


class Command(BaseCommand):
    help = "Start the web server and a Celery worker (with beat); Ctrl-C stops both cleanly."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args: Any, **options: Any) -> None:
        var = Path(settings.VAR_DIR)
        var.mkdir(parents=True, exist_ok=True)
        python = sys.executable
        celery = str(Path(python).with_name("celery"))
        worker = subprocess.Popen(
            [
                celery,
                "-A",
                "config",
                "worker",
                "--beat",
                "--loglevel",
                "INFO",
                "--concurrency",
                "2",
                "--schedule",
                str(var / "celerybeat-schedule"),
            ],
            start_new_session=True,
        )
        address = f"{options['host']}:{options['port']}"
        server = subprocess.Popen(
            [python, "manage.py", "runserver", "--noreload", address], start_new_session=True
        )
        children = (server, worker)
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        self.stdout.write(
            self.style.SUCCESS(f"\nThe workbench is running at http://{address}/")
            + f"\n  admin: http://{address}/admin/"
            + f"\n  database: {settings.DATABASES['default']['NAME']}"
            + f"\n  broker: {settings.CELERY_BROKER_URL}   (Ctrl-C stops server and worker)\n"
        )
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.3)
        finally:
            # The worker's main process alone: it stops its pool itself after the running
            # tasks (a signal to the whole group would kill them mid-task).
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + GRACE_SECONDS
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
        failed = [c for c in children if c.returncode not in (0, -signal.SIGTERM, None)]
        if failed and not stopping:
            self.stderr.write("a process exited unexpectedly; see its output above")
            sys.exit(1)
        self.stdout.write("stopped server and worker")
