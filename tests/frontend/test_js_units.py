"""Runs the JavaScript unit tests of the grid state model and save queue with node's test runner."""

from __future__ import annotations

import shutil
import subprocess

from tests.paths import ROOT

JS_TESTS = ROOT / "tests" / "frontend" / "js"


def test_the_state_model_and_save_queue_pass_their_node_tests() -> None:
    node = shutil.which("node")
    assert node is not None, "node (20+) is needed for the JavaScript unit tests"
    result = subprocess.run(
        [node, "--test", *sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
