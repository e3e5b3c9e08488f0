"""Compiling the numba kernels ahead of use: every kernel that caches its code is found and
reached by a warm-up group, and a warm cache is recognised without running any."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scoring import kernels
from scoring.cli import main
from scoring.errors import InputError, ResourceMissingError
from tests.paths import ROOT

PACKAGE = ROOT / "scoring"


def _caches(decorator: ast.expr) -> bool:
    """``@njit(cache=True)``, ``@numba.njit(..., cache=True)``, ``@jit(cache=True, ...)``."""
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"njit", "jit"} and any(
        keyword.arg == "cache"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
        for keyword in decorator.keywords
    )


def decorated_kernels() -> set[str]:
    """``module.function`` of every function of the package decorated to cache its code, read
    from the source (independently of how :mod:`scoring.kernels` finds them)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(map(_caches, node.decorator_list)):
                found.add(f"{module}.{node.name}")
    return found


def test_it_finds_every_kernel_that_caches_its_code() -> None:
    found = kernels.cached_kernels()
    assert set(found) == decorated_kernels()
    assert len(found) > 70


@pytest.mark.slow
def test_the_warm_up_reaches_every_kernel_in_a_fresh_process() -> None:
    """A new kernel that no group of :data:`scoring.kernels.GROUPS` calls (directly, or from a
    kernel a group calls) fails here: it would compile on its first use in a job or request."""
    code = (
        "import json; from scoring import kernels; "
        "report = kernels.warm(force=True); "
        "print(json.dumps({'unreached': report.unreached, 'skipped': report.skipped}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"unreached": [], "skipped": {}}


def test_it_reads_how_many_signatures_numbas_cache_holds() -> None:
    from scoring.alignment.phrases import extract_phrase_pairs

    extract_phrase_pairs(np.eye(3, dtype=np.bool_))
    counts = kernels.cached_signatures()
    assert counts is not None, "this numba keeps its cache otherwise: update cached_signatures"
    assert set(counts) == set(kernels.cached_kernels())
    assert counts["scoring.alignment.phrases._extract"] >= 1


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, int]:
    """What numba's cache holds, by kernel, as the test sets it; the note goes to tmp_path and
    nothing is dropped from the real cache."""
    counts = {"m.first": 2, "m.second": 1}
    monkeypatch.setattr(kernels, "_stamp_path", lambda: tmp_path / kernels.STAMP_NAME)
    monkeypatch.setattr(kernels, "cached_signatures", lambda: dict(counts))
    monkeypatch.setattr(kernels, "_flush", lambda names: None)
    return counts


def test_the_cache_is_current_while_it_holds_what_the_last_warm_up_left(
    cache: dict[str, int],
) -> None:
    assert not kernels.cache_is_current()  # never warmed up
    kernels._stamp_write()
    assert kernels.cache_is_current()
    cache["m.first"] = 3  # a kernel compiled for one more type since
    assert kernels.cache_is_current()
    cache["m.first"] = 1  # an edited module, another numba or another CPU: compiled afresh
    assert not kernels.cache_is_current()
    cache["m.first"] = 2
    cache["m.third"] = 1  # a kernel added since
    assert not kernels.cache_is_current()


def test_a_current_cache_runs_no_group(
    monkeypatch: pytest.MonkeyPatch, cache: dict[str, int]
) -> None:
    ran: list[str] = []
    monkeypatch.setattr(kernels, "GROUPS", (kernels.Group("g", "tests", lambda: ran.append("g")),))
    kernels._stamp_write()
    assert kernels.warm().current
    assert ran == []
    assert not kernels.warm(force=True).current
    assert ran == ["g"]


def test_a_group_missing_a_resource_is_skipped_and_leaves_no_note(
    monkeypatch: pytest.MonkeyPatch, cache: dict[str, int], tmp_path: Path
) -> None:
    def missing() -> None:
        raise ResourceMissingError("install it with `python -m nltk.downloader wordnet`")

    monkeypatch.setattr(kernels, "GROUPS", (kernels.Group("g", "tests", missing),))
    monkeypatch.setattr(kernels, "unreached_kernels", lambda: [])
    report = kernels.warm()
    assert "nltk.downloader wordnet" in report.skipped["g"]
    assert not (tmp_path / kernels.STAMP_NAME).exists()


def test_a_kernel_depends_on_the_modules_of_its_callees_and_of_its_constants() -> None:
    dependencies = kernels.kernel_dependencies()
    assert dependencies["scoring.alignment.agreement_kernels.pair_kernel"] == {
        "scoring.alignment.agreement_kernels",
        "scoring.alignment.phrases",  # span_tables, write_keys, … compiled into it
    }
    assert "scoring.pfsm.features" in dependencies["scoring.pfsm.walk.sweep"]  # its state ids
    assert dependencies["scoring.alignment.phrases._extract"] == {"scoring.alignment.phrases"}


def test_after_a_module_changes_the_kernels_that_depend_on_it_are_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """numba notices a change of a kernel's own module only; a caller of a changed callee
    would keep running the callee's old code from the cache."""
    noted = kernels.source_hashes()
    monkeypatch.setattr(kernels, "_stamp_read", lambda: {"sources": noted, "signatures": {}})
    assert kernels.stale_kernels() == []
    noted["scoring.alignment.phrases"] = "the hash of an older phrases.py"
    assert kernels.stale_kernels() == [
        "scoring.alignment.agreement_kernels._side",
        "scoring.alignment.agreement_kernels.pair_kernel",
    ]
    monkeypatch.setattr(kernels, "_stamp_read", lambda: None)  # a cache never warmed up
    assert set(kernels.stale_kernels()) == {
        name for name, modules in kernels.kernel_dependencies().items() if len(modules) > 1
    }


def test_a_complete_warm_up_drops_stale_kernels_from_the_cache_first(
    monkeypatch: pytest.MonkeyPatch, cache: dict[str, int]
) -> None:
    events: list[str] = []
    monkeypatch.setattr(kernels, "stale_kernels", lambda: ["m.caller", "m.never_compiled"])
    cache["m.caller"], cache["m.never_compiled"] = 1, 0
    monkeypatch.setattr(kernels, "_flush", lambda names: events.append(f"flush {names}"))
    monkeypatch.setattr(kernels, "unreached_kernels", lambda: [])
    monkeypatch.setattr(
        kernels, "GROUPS", (kernels.Group("g", "tests", lambda: events.append("run")),)
    )
    assert kernels.warm().recompiled == ["m.caller"]
    assert events == ["flush ['m.caller', 'm.never_compiled']", "run"]
    events.clear()
    kernels.warm(["g"])  # one group: nothing dropped
    assert events == ["run"]


def test_an_unknown_group_is_refused_naming_the_groups() -> None:
    with pytest.raises(InputError, match="phrases"):
        kernels.warm(["nope"])


def test_the_command_line_warms_one_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["warm", "--group", "trees"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("compiling scoring's numba kernels into numba's cache")
    assert "[1/1] " in out and "tree ensembles …" in out
    assert "numba kernels compiled or loaded from its cache" in out


def test_the_command_line_counts_the_kernels_of_skipped_groups_instead_of_warning_of_each(
    monkeypatch: pytest.MonkeyPatch, cache: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    def missing() -> None:
        raise ResourceMissingError("install it with `python -m nltk.downloader wordnet`")

    monkeypatch.setattr(kernels, "GROUPS", (kernels.Group("g", "tests", missing),))
    monkeypatch.setattr(kernels, "unreached_kernels", lambda: ["m.first", "m.second"])
    assert main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "warning: g: install it with `python -m nltk.downloader wordnet`" in err
    assert "2 kernels compile on first use" in err and "no warm-up group calls" not in err
