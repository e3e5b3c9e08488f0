"""The Celery application: workers yield the CPU to the web processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

SCRIPT = """
import os
import django
django.setup()
from config.celery import _yield_to_the_web
_yield_to_the_web()
_yield_to_the_web()  # a second signal must not lower it further
print(os.getpriority(os.PRIO_PROCESS, 0))
"""


@pytest.mark.parametrize(("setting", "target"), [(None, 10), ("4", 4), ("0", 0)])
def test_a_worker_lowers_its_priority_to_the_configured_niceness(
    setting: str | None, target: int
) -> None:
    # Never raised: a worker started niced already stays as it is.
    expected = max(target, os.getpriority(os.PRIO_PROCESS, 0))
    env = {k: v for k, v in os.environ.items() if k != "WORKER_NICE"}
    if setting is not None:
        env["WORKER_NICE"] = setting
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) == expected
