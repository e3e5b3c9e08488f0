"""The Celery application: ``celery -A config worker``."""

import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

AUTOGROUP = Path("/proc/self/autogroup")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _yield_to_the_web(**kwargs: Any) -> None:
    """Run jobs at a lower CPU priority (``WORKER_NICE``): on a machine shared with the web
    processes, an agreement report or an EM run must not slow the annotators' saves. The pool's
    processes are forked after this and inherit it; on a machine of its own it changes nothing."""
    from django.conf import settings

    target = settings.WORKER_NICE
    if target > os.getpriority(os.PRIO_PROCESS, 0):
        os.setpriority(os.PRIO_PROCESS, 0, target)
    if _session_is_own():
        _nice_autogroup(target)


def _session_is_own() -> bool:
    """Whether the worker's session holds nothing but the worker: it leads it, or its leader
    has gone (a daemon's double fork)."""
    leader = os.getsid(0)
    return leader == os.getpid() or not Path(f"/proc/{leader}").exists()


def _nice_autogroup(target: int, path: Path = AUTOGROUP) -> None:
    """Under Linux's autogroup scheduling (``sched_autogroup_enabled``), the scheduler first
    shares the CPU between sessions as equals and applies a process's nice only inside its own:
    a niced worker in a session of its own still takes a whole core from the web server's
    session. The session's group has a nice of its own, which this raises (never lowers).
    Nothing happens where the kernel has no autogroups."""
    try:
        current = int(path.read_text().rsplit("nice", 1)[1])
        if target > current:
            path.write_text(f"{target}\n")
    except (OSError, ValueError, IndexError):
        return


worker_init.connect(_yield_to_the_web)
