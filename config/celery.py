"""The Celery application: ``celery -A config worker``."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

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


worker_init.connect(_yield_to_the_web)
