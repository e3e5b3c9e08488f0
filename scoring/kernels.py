"""The numba kernels: finding them, and compiling them ahead of use.

Every kernel is ``@njit(cache=True)``. numba compiles a kernel the first time a process calls it
with a new combination of argument types, and writes the machine code to its cache: a
``__pycache__`` folder next to the module, or numba's per-user cache folder when that one cannot
be written (``NUMBA_CACHE_DIR`` overrides both). Later processes load the code from there in a
few milliseconds a kernel, for as long as the module's source is unchanged (numba keeps a hash
of it with the code) and the numba version and CPU are the same.

Compiling every kernel takes minutes on a small machine, and whoever calls a kernel first pays
for it: a job that seems frozen, a request that takes seconds. :func:`warm` compiles them ahead
of use (``python -m scoring warm``): it runs each group of kernels (:data:`GROUPS`) once on tiny
inputs, through the public functions that the product calls, so that the argument types, and
with them the compiled signatures, are those of real work. Then it notes the hash of each
kernel module and how many signatures numba's cache holds for each kernel; while both still
hold (same sources, numba and CPU), the next call only checks that and returns in a second.

numba checks only a kernel's own module: a kernel calling a kernel of another module keeps the
callee's code it was compiled with after that module changes. :func:`warm` drops such kernels
from the cache (:func:`stale_kernels`) so that they compile again.

:func:`cached_kernels` finds every caching kernel of the package, and :func:`unreached_kernels`
those that no group reached (the tests check that there are none).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import json
import re
import time
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.errors import InputError, ResourceMissingError
from scoring.progress import Progress, progress_report

_PACKAGE = Path(__file__).resolve().parent
_NJIT = re.compile(r"^@njit\(", re.MULTILINE)
#: The file, in numba's cache folder of the first kernel, where :func:`warm` notes what the
#: cache held after a complete warm-up.
STAMP_NAME = "scoring-kernels-warm.json"


def kernel_modules() -> list[str]:
    """The modules of :mod:`scoring` that define numba kernels (``@njit`` at the start of a line),
    as dotted names, sorted."""
    names = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        if _NJIT.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts))
    return names


@functools.cache
def cached_kernels() -> dict[str, Any]:
    """Every numba kernel of :mod:`scoring` that caches its code (``cache=True``), by
    ``module.function``."""
    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    found: dict[str, Any] = {}
    for name in kernel_modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if (
                isinstance(value, CPUDispatcher)
                and value.py_func.__module__ == name
                and not isinstance(value._cache, NullCache)  # type: ignore[attr-defined]
            ):
                found[f"{name}.{attribute}"] = value
    return found


# --- tiny workloads ------------------------------------------------------------------------------

_SOURCE = ["The", "cat", "sat", "on", "the", "mat", "."]
_TARGET = ["A", "cat", "was", "sitting", "on", "a", "mat", "."]
_PAIRS = [
    (_SOURCE, _TARGET),
    (["He", "left", "the", "office", "early"], ["He", "went", "home", "early"]),
    (["Prices", "rose", "sharply", "today"], ["Prices", "went", "up", "a", "lot", "today"]),
    (["Nobody", "came", "."], ["No", "one", "came", "to", "the", "party", "."]),
    (["It", "is", "raining"], ["It", "rains"]),
    (["She", "reads", "books"], ["She", "likes", "reading", "novels"]),
]
_TARGETS = [4.0, 3.0, 4.5, 2.0, 4.0, 2.5]


def _alignments() -> list[Any]:
    from scoring.alignment.links import Alignment

    return [
        Alignment.from_links(
            7, 8, sure=[(1, 1), (3, 4), (5, 6), (6, 7)], possible=[(2, 2), (2, 3)]
        ),
        Alignment.from_links(7, 8, sure=[(0, 0), (1, 1), (5, 6)], possible=[(3, 4), (6, 7)]),
        Alignment.from_links(7, 8, sure=[(1, 1), (2, 3), (5, 6), (6, 7)]),
    ]


def _phrases() -> None:
    import numpy as np

    from scoring.alignment.phrase_table import phrase_table_build
    from scoring.alignment.phrases import (
        drop_identical,
        extract_phrase_pairs,
        extract_phrase_pairs_batch,
    )

    alignments = _alignments()
    for use in ("possible", "sure"):
        for boundary_rule in (True, False):
            extract_phrase_pairs(alignments[0], use=use, boundary_rule=boundary_rule)
            extract_phrase_pairs_batch(
                alignments, use=use, boundary_rule=boundary_rule, max_length=7
            )
    matrices = [a.possible_matrix().astype(np.bool_) for a in alignments]
    drop_identical(extract_phrase_pairs(matrices[0], max_length=3), _SOURCE, _TARGET)
    extract_phrase_pairs_batch(matrices, max_length=7)
    # Grows its buffers once: far more pairs than the three per source word it starts with.
    extract_phrase_pairs_batch([np.ones((6, 6), np.bool_)], boundary_rule=False)
    phrase_table_build([(_SOURCE, _TARGET, a) for a in alignments])


def _agreement() -> None:
    from scoring.alignment.agreement import (
        AgreementPair,
        AgreementParams,
        chance_corrected_agreement,
    )

    prefill, a, b = _alignments()
    pairs = [AgreementPair("warm", _SOURCE, _TARGET, prefill, a, b)]
    for boundary_rule in (True, False):
        chance_corrected_agreement(
            pairs, params=AgreementParams(samples=4, boundary_rule=boundary_rule)
        )


def _em() -> None:
    from scoring.aligners.base import get_aligner

    pairs = [(s, t) for s, t in _PAIRS]
    for options in (
        {"model1_iterations": 1, "hmm_iterations": 1},
        {"model1_iterations": 1, "hmm_iterations": 1, "decode": "posterior"},
        {"model1_iterations": 1, "hmm_iterations": 1, "decode": "agreement"},
        {
            "model1_iterations": 1,
            "hmm_iterations": 1,
            "training": "agreement",
            "possible": "grow-diag-final",
            "start": "learned",
            "end": "learned",
            "learn_null": True,
        },
    ):
        aligner = get_aligner("em", **options).fit(pairs)
        aligner.align(_SOURCE, _TARGET)


def _trees() -> None:
    import numpy as np

    from scoring.aligners.trees import TreeEnsemble

    # One tree: the root splits feature 0 at 0.5 into two leaves, arrays of the dtypes that an
    # ensemble copied from scikit-learn has.
    stump = TreeEnsemble(
        {
            "feature": np.zeros(3, np.int64),
            "threshold": np.array([0.5, 0.0, 0.0]),
            "left": np.array([1, 0, 0], np.int64),
            "right": np.array([2, 0, 0], np.int64),
            "is_leaf": np.array([False, True, True]),
            "missing_left": np.array([True, False, False]),
            "value": np.array([0.0, -1.0, 1.0]),
            "offset": np.array([0, 3], np.int64),
        },
        0.0,
    )
    stump.predict(np.array([[0.2, 1.0], [0.8, np.nan]]))


def _edit_machine(jump_limit: int) -> Callable[[], None]:
    def run() -> None:
        from scoring.pfsm import PFSMScorer
        from scoring.scorers.options import PFSMOptions, PPDAOptions

        options = (
            PPDAOptions(max_iter=2, cutoff=1, jump_limit=jump_limit)
            if jump_limit
            else PFSMOptions(max_iter=2, cutoff=1)
        )
        model = PFSMScorer(options).fit(_PAIRS, _TARGETS)
        model.score(_PAIRS[:2])
        model.align(_SOURCE, _TARGET)
        model.link_posteriors(_SOURCE, _TARGET)

    return run


def _perp() -> None:
    from scoring.edit.terp import Terp
    from scoring.scorers.base import get_scorer

    get_scorer("perp", epochs=2).fit(_PAIRS, _TARGETS).predict(_PAIRS[:2])
    Terp().score(_SOURCE, _TARGET)


def _ter() -> None:
    from scoring.edit.ter import ter, ter_batch

    ter(" ".join(_SOURCE), " ".join(_TARGET))
    ter_batch([" ".join(s) for s, _ in _PAIRS], [" ".join(t) for _, t in _PAIRS])


def _mt() -> None:
    from scoring.mt.features import mt_features
    from scoring.mt.metrics import both_directions

    both_directions([s for s, _ in _PAIRS], [t for _, t in _PAIRS])
    # Given tags: the tagger would only slow the warm-up down; the kernels see tag ids either way.
    tags = [(["NN"] * len(s), ["NN"] * len(t)) for s, t in _PAIRS]
    mt_features(_PAIRS, tags=tags)
    mt_features(_PAIRS[:2], tags=tags[:2], info_refs=[s for s, _ in _PAIRS])


@dataclass(frozen=True)
class Group:
    """Kernels that one workload reaches: what they serve and how to run them once."""

    name: str
    serves: str
    run: Callable[[], None]


GROUPS: tuple[Group, ...] = (
    Group("phrases", "phrase-pair extraction, phrase tables and exports", _phrases),
    Group("agreement", "the Monte Carlo agreement Ĉ", _agreement),
    Group("em", "the EM aligner (IBM Model 1, HMM)", _em),
    Group("trees", "the supervised aligner's tree ensembles", _trees),
    Group("ter", "TER", _ter),
    Group("perp", "the PERP scorer and TERp", _perp),
    Group("pfsm", "the pFSM scorer", _edit_machine(0)),
    Group("ppda", "the pPDA scorer", _edit_machine(5)),
    Group("mt", "the MT-metric features and scorer", _mt),
)


@dataclass
class WarmReport:
    """What :func:`warm` did: seconds per group run, groups skipped for a missing resource (with
    the reason), kernels no group reached, kernels whose cached code it dropped because a kernel
    they call changed (:func:`stale_kernels`), and whether the cache already held everything
    (``current``: then no group ran)."""

    seconds: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    unreached: list[str] = field(default_factory=list)
    current: bool = False
    recompiled: list[str] = field(default_factory=list)


def group_names() -> tuple[str, ...]:
    return tuple(group.name for group in GROUPS)


def warm(
    names: Sequence[str] | None = None,
    *,
    progress: Progress | None = None,
    force: bool = False,
) -> WarmReport:
    """Compile (or, from a warm cache, load) the kernels of the named groups, all by default.

    Without names and without ``force``, nothing runs when numba's cache still holds what the
    last complete warm-up left in it; without names, the kernels :func:`stale_kernels` names
    are dropped from the cache first, so that they compile again with the current code of the
    modules they depend on. A group whose workload needs an NLTK resource that is not installed
    is skipped, the resource's install command as the reason; its kernels then compile on first
    use. ``progress`` hears of each group before it runs, the stage being what the group's
    kernels serve ("the PERP scorer and TERp").
    """
    chosen = _chosen(names)
    if names is None and not force and cache_is_current():
        return WarmReport(current=True)
    report = WarmReport()
    if names is None:
        stale = stale_kernels()
        held = cached_signatures() or {}
        # Named in the report only when there was code to drop (not on a cold cache).
        report.recompiled = [name for name in stale if held.get(name, 1)]
        _flush(stale)
    for number, group in enumerate(chosen):
        progress_report(progress, number / len(chosen), group.serves)
        start = time.perf_counter()
        try:
            group.run()
        except ResourceMissingError as error:
            report.skipped[group.name] = str(error)
        report.seconds[group.name] = time.perf_counter() - start
    if names is None:
        report.unreached = unreached_kernels()
        if not report.skipped and not report.unreached:
            _stamp_write()
    return report


def _chosen(names: Iterable[str] | None) -> list[Group]:
    if names is None:
        return list(GROUPS)
    by_name = {group.name: group for group in GROUPS}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise InputError(
            f"unknown kernel group(s) {', '.join(unknown)}; groups: {', '.join(by_name)}"
        )
    return [by_name[name] for name in names]


# --- what numba's cache holds --------------------------------------------------------------------


def _callees(kernel: Any) -> list[Any]:
    """The kernels that ``kernel`` calls: by a global name, or as an attribute of a module."""
    from numba.core.registry import CPUDispatcher

    names = kernel.py_func.__code__.co_names
    found = []
    for name in names:
        value = kernel.py_func.__globals__.get(name)
        if isinstance(value, CPUDispatcher):
            found.append(value)
        elif isinstance(value, types.ModuleType):
            found += [
                attribute
                for attribute in (getattr(value, other, None) for other in names)
                if isinstance(attribute, CPUDispatcher)
            ]
    return found


@functools.cache
def _imported_names(module: str) -> dict[str, str]:
    """The names ``module`` imports from other modules of :mod:`scoring` (``from scoring.x import
    name``), each with the module it comes from."""
    tree = ast.parse(Path(_module_file(module)).read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and node.module.startswith("scoring.")
        for alias in node.names
    }


def _direct_dependencies(kernel: Any) -> set[str]:
    """The kernel's module, and the modules of :mod:`scoring` it takes a global from: numba
    compiles a global's value into the kernel as a constant."""
    own = kernel.py_func.__module__
    modules = {own}
    imported = _imported_names(own)
    for name in kernel.py_func.__code__.co_names:
        value = kernel.py_func.__globals__.get(name)
        if isinstance(value, types.ModuleType) and value.__name__.startswith("scoring."):
            modules.add(value.__name__)
        elif name in imported:
            modules.add(imported[name])
    return modules


@functools.cache
def kernel_dependencies() -> dict[str, frozenset[str]]:
    """For each kernel, the modules whose code its compiled code holds: its own, those it takes
    constants from and those of the kernels it calls, directly or through others (numba
    compiles a callee into its caller)."""
    out = {}
    for name, kernel in cached_kernels().items():
        seen = {id(kernel)}
        modules = _direct_dependencies(kernel)
        todo = [kernel]
        while todo:
            for callee in _callees(todo.pop()):
                if id(callee) not in seen:
                    seen.add(id(callee))
                    modules |= _direct_dependencies(callee)
                    todo.append(callee)
        out[name] = frozenset(modules)
    return out


def source_hashes() -> dict[str, str]:
    """The SHA-256 of the source of every module a kernel depends on, by module."""
    modules = set().union(*kernel_dependencies().values())
    return {
        name: hashlib.sha256(Path(_module_file(name)).read_bytes()).hexdigest()
        for name in sorted(modules)
    }


def _module_file(name: str) -> str:
    path = _PACKAGE.parent.joinpath(*name.split("."))
    return str(path / "__init__.py" if path.is_dir() else path.with_suffix(".py"))


def cached_signatures() -> dict[str, int] | None:
    """How many signatures numba's cache holds for each kernel (:func:`cached_kernels`), valid
    for this source, numba version and CPU; ``None`` if this numba keeps its cache otherwise.

    This reads numba's cache index the way numba does before it loads a kernel (through
    attributes that are not numba's public interface, hence the ``None``)."""
    kernels = cached_kernels()
    try:
        counts = {}
        for name, kernel in kernels.items():
            machine = kernel.targetctx.codegen().magic_tuple()
            index = kernel._cache._cache_file._load_index()
            counts[name] = sum(1 for key in index if key[1] == machine)
    except Exception:  # another numba: the caller warms up all the same
        return None
    return counts


def _stamp_path() -> Path | None:
    kernels = cached_kernels()
    if not kernels:
        return None
    try:
        folder = kernels[min(kernels)]._cache._cache_path
    except AttributeError:
        return None
    return Path(folder) / STAMP_NAME


def _stamp_read() -> dict[str, Any] | None:
    """The note of the last complete warm-up: ``sources`` (module → hash) and ``signatures``
    (kernel → count); ``None`` if there is none (or not in this format)."""
    path = _stamp_path()
    if path is None:
        return None
    try:
        noted = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (
        isinstance(noted, dict)
        and isinstance(noted.get("sources"), dict)
        and isinstance(noted.get("signatures"), dict)
    ):
        return None
    return noted


def cache_is_current() -> bool:
    """True if no kernel module changed since the last complete :func:`warm` and numba's cache
    holds, for every kernel, at least the signatures it held then (so none of them would compile
    on first use, and none runs code compiled from an older callee)."""
    noted = _stamp_read()
    counts = cached_signatures()
    if noted is None or counts is None or noted["sources"] != source_hashes():
        return False
    signatures = noted["signatures"]
    if set(signatures) != set(counts):
        return False
    return all(counts[name] >= int(signatures[name]) for name in counts)


def _stamp_write() -> None:
    path = _stamp_path()
    counts = cached_signatures()
    if path is None or counts is None:
        return
    note = {"sources": source_hashes(), "signatures": counts}
    # A folder numba can write to but this process cannot: the next call warms up again.
    with contextlib.suppress(OSError):
        path.write_text(json.dumps(note, indent=0, sort_keys=True), encoding="utf-8")


def stale_kernels() -> list[str]:
    """The kernels whose cached code may hold an older version of a kernel they call.

    numba invalidates a kernel's cache when the kernel's own module changes, not when another
    module it depends on does ("changes in symbols defined in another file are not detected"):
    a caller would run a callee's old code, or an old value of a constant it imports, until its
    own module changes. These are the kernels depending on another module that changed since the
    last complete warm-up (:func:`kernel_dependencies`); with no note of one, every kernel that
    depends on another module."""
    noted = _stamp_read()
    before = noted["sources"] if noted is not None else {}
    now = source_hashes()
    changed = {module for module, digest in now.items() if before.get(module) != digest}
    return sorted(
        name
        for name, modules in kernel_dependencies().items()
        if modules - {cached_kernels()[name].py_func.__module__} & changed
    )


def _flush(names: Iterable[str]) -> None:
    """Empty numba's cache of these kernels, so that their next call compiles them."""
    kernels = cached_kernels()
    for name in names:
        kernels[name]._cache.flush()


def unreached_kernels() -> list[str]:
    """The cached kernels this process has neither called nor compiled into a kernel it called.

    A kernel that another kernel calls is compiled into its caller; when the caller's code comes
    from the cache, the callee is never loaded on its own and has no signature in this process.
    It counts as reached when a reached kernel calls it, directly or through others.
    """
    kernels = cached_kernels()
    reached = {id(kernel) for kernel in kernels.values() if kernel.signatures}
    todo = [kernel for kernel in kernels.values() if kernel.signatures]
    while todo:
        for callee in _callees(todo.pop()):
            if id(callee) not in reached:
                reached.add(id(callee))
                todo.append(callee)
    return [name for name, kernel in kernels.items() if id(kernel) not in reached]
