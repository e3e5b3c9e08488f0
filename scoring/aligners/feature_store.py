"""Per-pair feature matrices on disk, shared by every process that reads the same folder.

The supervised aligner's per-pair features (the sentence encoder's cosines, WordNet relations,
EM posteriors…; :meth:`~scoring.aligners.supervised.SupervisedAligner.base_features`) cost
about a tenth of a second a pair to compute and do not depend on the gold: the same corpus
gives the same numbers at every retraining. A process keeps them in memory, but a prefill is
trained in one process and aligned in chunks by others (a pool's processes, other workers), so
without a shared store each of them computed every pair again. A :class:`FeatureStore` keeps
them as one ``.npy`` file a pair (``numpy.save``, read with ``allow_pickle=False``), named by a
digest of everything the numbers depend on (the caller's key: the model, the options, the code)
and the pair's tokens, so a file is never read for other inputs.

Concurrent writers and readers are safe without locks: a file is written under a name of its
own and renamed into place (atomic on one file system), so a reader sees a whole file or none,
and two writers of one key write the same bytes. A file that does not read back as the
expected matrix (cut short by a full disk, say) is a miss and is removed.

The folder is bounded: :meth:`FeatureStore.prune` removes the least recently used files (a hit
refreshes a file's modification time) until the folder holds at most ``max_bytes``, and the
unfinished files of writers that died; a store prunes by itself once it has written a tenth of
``max_bytes`` since its last pruning, so the folder exceeds the bound by at most a tenth of it
per process writing.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

#: A stored matrix's file ends so, in a subfolder named by the first two hex digits of its
#: digest (256 folders, none of them huge); an unfinished one ends in :data:`PARTIAL`.
SUFFIX = ".npy"
PARTIAL = ".partial"
#: An unfinished file older than this (seconds) belongs to a writer that died.
PARTIAL_AGE = 3600.0


def digest(*parts: object) -> str:
    """A hex digest of JSON-serialisable ``parts`` (lists, strings, numbers, dicts)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()


def array_digest(arrays: Mapping[str, npt.NDArray[Any]]) -> str:
    """A hex digest of named arrays: names, dtypes, shapes and bytes."""
    h = hashlib.blake2b(digest_size=20)
    for name in sorted(arrays):
        value = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{value.dtype.str}:{value.shape};".encode())
        h.update(value.tobytes())
    return h.hexdigest()


def file_identity(path: str | os.PathLike[str] | None) -> list[object] | None:
    """A file's resolved path, size and modification time (``None`` for no file): another
    file at that path later keys other features."""
    if path is None:
        return None
    path = Path(path).expanduser()
    try:
        stat = path.stat()
    except OSError:
        return [str(path)]
    return [str(path.resolve()), stat.st_size, stat.st_mtime_ns]


@functools.cache
def code_digest(modules: tuple[str, ...]) -> str:
    """A digest of the source of ``modules`` (their full names): stored features are keyed by
    the code that computed them, so an edit to it never reads numbers the old code computed."""
    sources = []
    for name in modules:
        module = importlib.import_module(name)
        sources.append(Path(str(module.__file__)).read_text(encoding="utf-8"))
    return digest(sources)


class FeatureStore:
    """Feature matrices of sentence pairs under ``root``, at most about ``max_bytes``."""

    def __init__(self, root: str | os.PathLike[str], max_bytes: int) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be 1 or more, not {max_bytes}")
        self.root = Path(root)
        self.max_bytes = int(max_bytes)
        self._written = 0
        self._lock = threading.Lock()

    def path(self, key: str, source: Sequence[str], target: Sequence[str]) -> Path:
        """The file of a pair's features under the caller's ``key``."""
        name = digest(key, list(source), list(target))
        return self.root / name[:2] / f"{name}{SUFFIX}"

    def get(
        self, key: str, source: Sequence[str], target: Sequence[str], columns: int
    ) -> F32 | None:
        """The ``(len(source)·len(target), columns)`` float32 matrix stored for the pair, or
        ``None``."""
        path = self.path(key, source, target)
        try:
            with path.open("rb") as handle:
                value = np.load(handle, allow_pickle=False)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError):  # cut short or not an .npy file
            _remove(path)
            return None
        expected = (len(source) * len(target), columns)
        if (
            not isinstance(value, np.ndarray)
            or value.dtype != np.float32
            or value.shape != expected
        ):
            _remove(path)
            return None
        with suppress(OSError):  # pruned meanwhile: the matrix read is still good
            os.utime(path)  # recently used: pruned last
        return value

    def put(self, key: str, source: Sequence[str], target: Sequence[str], value: F32) -> None:
        """Store the pair's float32 matrix. Best effort: a full or read-only disk leaves the
        store as it was (the features are computed again next time)."""
        if value.dtype != np.float32 or value.ndim != 2:
            raise ValueError(f"a float32 matrix is stored, not {value.dtype} of {value.ndim} dims")
        path = self.path(key, source, target)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}{PARTIAL}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with partial.open("wb") as handle:
                np.save(handle, np.ascontiguousarray(value), allow_pickle=False)
            os.replace(partial, path)
        except OSError:
            _remove(partial)
            return
        with self._lock:
            self._written += value.nbytes
            due = self._written > self.max_bytes // 10
            if due:
                self._written = 0
        if due:
            with suppress(OSError):  # a folder it may not list: the hourly clean-up tries again
                self.prune()

    def prune(self, *, now: float | None = None) -> int:
        """Remove the least recently used files until the store holds at most ``max_bytes``
        (down to nine tenths of it, so that pruning is not needed again at the next file), and
        unfinished files older than :data:`PARTIAL_AGE`; returns how many files went."""
        now = time.time() if now is None else now
        files: list[tuple[float, int, Path]] = []
        removed = 0
        if not self.root.is_dir():
            return 0
        for folder in self.root.iterdir():
            if not folder.is_dir():
                continue
            for entry in os.scandir(folder):
                try:
                    stat = entry.stat()
                except OSError:  # removed meanwhile by another process
                    continue
                if entry.name.endswith(PARTIAL):
                    if now - stat.st_mtime > PARTIAL_AGE and _remove(Path(entry.path)):
                        removed += 1
                elif entry.name.endswith(SUFFIX):
                    files.append((stat.st_mtime, stat.st_size, Path(entry.path)))
        total = sum(size for _, size, _ in files)
        if total <= self.max_bytes:
            return removed
        goal = self.max_bytes * 9 // 10
        for _, size, path in sorted(files, key=lambda item: item[0]):
            if total <= goal:
                break
            if _remove(path):
                total -= size
                removed += 1
        return removed

    def size(self) -> int:
        """Bytes of the stored matrices."""
        if not self.root.is_dir():
            return 0
        return sum(path.stat().st_size for path in self.root.glob(f"*/*{SUFFIX}") if path.is_file())


def _remove(path: Path) -> bool:
    """Remove a file if it is there and may be removed (best effort, as the whole store)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        return False
    return True


# The store this process's aligners keep their per-pair features in (None: not kept).
_ACTIVE: FeatureStore | None = None


def use(store: FeatureStore | None) -> None:
    """Keep (``None``: stop keeping) the per-pair features of every aligner of this process that
    keeps them (the supervised aligner's ``base_features``) in ``store``."""
    global _ACTIVE
    _ACTIVE = store


def active() -> FeatureStore | None:
    """The store set by :func:`use`, if any."""
    return _ACTIVE
