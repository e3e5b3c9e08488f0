"""The aligner interface, its registry and the saved-model format.

Every prefill aligner is a subclass of :class:`Aligner`:

- ``train(pairs, gold=None, progress=None)`` learns from token pairs. ``gold``, when given, is
  as long as ``pairs`` and holds the gold :class:`~scoring.alignment.links.Alignment` of a pair
  or ``None`` for a pair nobody has annotated; unsupervised aligners ignore it, a supervised
  one learns from the annotated pairs and may still use every pair (for EM posteriors, say).
  ``progress`` (:mod:`scoring.progress`) hears of each step of a long training: ``_train``
  calls :meth:`Aligner.report_progress`.
- ``align(source, target)`` returns an :class:`AlignerOutput`: sure and possible links (``S ⊆ P``),
  a confidence in ``[0, 1]`` per link of ``P`` and warnings (a resource that was missing and the
  fallback taken).
- ``save(path)`` / ``Aligner.load(path)`` write and read one ``.npz`` file (below).

Aligners are found by name: :func:`get_aligner` (``"identity"``, ``"lexical"``, ``"em"``);
an unknown name or option raises :class:`AlignerError` listing the known ones.

Saved-model format, version 1
-----------------------------
One NumPy ``.npz`` archive, written with ``numpy.savez_compressed`` and read with
``allow_pickle=False``, so loading a file never runs code. It holds:

- ``__header__``: a ``uint8`` array, the UTF-8 bytes of a JSON object
  ``{"format": "scoring-aligner", "format_version": 1, "aligner": NAME, "aligner_version": INT,
  "scoring_version": STR, "options": {...}, "state": {...}}``, where ``state`` holds the aligner's
  JSON-serialisable learned values (vocabularies, scalars, training log);
- one entry per learned array, named by the aligner (numeric dtypes only).

A file of another format, a newer format version or a different aligner name is refused with a
clear message.
"""

from __future__ import annotations

import importlib
import json
import math
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from scoring import __version__
from scoring.alignment.links import Alignment, Link
from scoring.errors import ScoringError
from scoring.progress import Progress, progress_part, progress_report

TokenPair = tuple[list[str], list[str]]

FORMAT_NAME = "scoring-aligner"
FORMAT_VERSION = 1

#: Registry: aligner name → ``"module:Class"``; imported on first use so that naming an aligner
#: does not pay for numba compilation of another.
_REGISTRY: dict[str, str] = {
    "identity": "scoring.aligners.lexical:IdentityAligner",
    "lexical": "scoring.aligners.lexical:LexicalAligner",
    "em": "scoring.aligners.em:EMAligner",
    "supervised": "scoring.aligners.supervised:SupervisedAligner",
}


class AlignerError(ScoringError, ValueError):
    """Bad input to an aligner: an empty or too long sentence, an unknown name or option, an
    untrained model, an unreadable model file."""


@dataclass(frozen=True, slots=True)
class AlignerOutput:
    """An aligner's answer for one pair.

    ``alignment`` holds ``S`` and ``P``; ``confidence`` maps every link of ``P`` to a value in
    ``[0, 1]``; ``warnings`` says when a resource was missing and which fallback was used;
    ``metadata`` carries aligner-specific details (for example the matching rule of each link).
    """

    alignment: Alignment
    confidence: Mapping[Link, float]
    warnings: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = self.alignment.possible - set(self.confidence)
        if missing:
            i, j = sorted(missing)[0]
            raise AlignerError(f"link {i}-{j} has no confidence")
        for (i, j), value in self.confidence.items():
            if (i, j) not in self.alignment.possible:
                raise AlignerError(f"confidence given for {i}-{j}, which is not a link")
            if not (0.0 <= value <= 1.0) or math.isnan(value):
                raise AlignerError(f"confidence of link {i}-{j} is {value}, outside [0, 1]")

    @property
    def sure(self) -> frozenset[Link]:
        return self.alignment.sure

    @property
    def possible(self) -> frozenset[Link]:
        return self.alignment.possible


class Aligner(ABC):
    """Base class of every aligner. Subclasses set ``name``, ``version`` and ``defaults``.

    ``defaults`` maps each option to its default value; an option's type is the type of its
    default (``None`` defaults accept a string). ``choices`` lists the allowed values of the
    options that take one of a few words. ``max_length`` (tokens per sentence) is common to all
    aligners.
    """

    name: ClassVar[str] = ""
    version: ClassVar[int] = 1
    defaults: ClassVar[dict[str, Any]] = {}
    choices: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: ``True`` if :meth:`train` learns from ``gold``; cross-validation retrains per fold only then.
    uses_gold: ClassVar[bool] = False
    #: ``True`` if :meth:`align` works without :meth:`train`.
    needs_training: ClassVar[bool] = False

    common_defaults: ClassVar[dict[str, Any]] = {"max_length": 250}

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        """Every option of this aligner with its default (the common ones included)."""
        return {**cls.common_defaults, **cls.defaults}

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = _validated_options(
            self.name, self.option_defaults(), options
        )
        for key, allowed in self.choices.items():
            if self.options[key] not in allowed:
                raise AlignerError(
                    f"option '{key}' must be one of {', '.join(allowed)}, got {self.options[key]!r}"
                )
        self.trained = False
        #: The ``progress`` of the :meth:`train` call under way, if any.
        self.progress: Progress | None = None

    # --- interface ----------------------------------------------------------------------------

    def train(
        self,
        pairs: Sequence[TokenPair],
        gold: Sequence[Alignment | None] | None = None,
        *,
        progress: Progress | None = None,
    ) -> None:
        """Learn from token pairs (and gold alignments, if the aligner uses them); ``progress``
        is told the share done and the stage at each step of the training."""
        check_training_input(pairs, gold, self.options["max_length"])
        self.progress = progress
        try:
            self._train(pairs, gold)
        finally:
            self.progress = None
        self.trained = True

    def report_progress(self, fraction: float, stage: str) -> None:
        """For :meth:`_train`: the share of the training done and its stage, told to the
        ``progress`` of :meth:`train` (if any)."""
        progress_report(self.progress, fraction, stage)

    def progress_part(self, start: float, stop: float, prefix: str = "") -> Progress | None:
        """For :meth:`_train`: the ``progress`` of a part of the training that spans ``start``
        to ``stop`` of it (a nested aligner's training, say)."""
        return progress_part(self.progress, start, stop, prefix)

    def align(self, source: Sequence[str], target: Sequence[str]) -> AlignerOutput:
        """Align one tokenized pair: sure/possible links with a confidence per link."""
        src, tgt = check_pair(source, target, self.options["max_length"])
        if self.needs_training and not self.trained:
            raise AlignerError(
                f"the '{self.name}' aligner is not trained: call train() or load a saved model"
            )
        return self._align(src, tgt)

    def align_many(self, pairs: Sequence[TokenPair]) -> list[AlignerOutput]:
        return [self.align(s, t) for s, t in pairs]

    # --- to implement -------------------------------------------------------------------------

    def _train(  # noqa: B027 - optional hook: aligners without parameters learn nothing
        self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None
    ) -> None:
        """Default: nothing to learn."""

    @abstractmethod
    def _align(self, source: list[str], target: list[str]) -> AlignerOutput: ...

    def _state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        """Learned values to save: JSON-serialisable state and numeric arrays."""
        return {}, {}

    def _restore(  # noqa: B027 - optional hook, the inverse of _state
        self, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]
    ) -> None:
        """Inverse of :meth:`_state`."""

    # --- persistence --------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` (format above); returns the path written."""
        target = Path(path)
        state, arrays = self._state()
        header = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "aligner": self.name,
            "aligner_version": self.version,
            "scoring_version": __version__,
            "options": self.options,
            "trained": self.trained,
            "state": state,
        }
        for key, array in arrays.items():
            if key == "__header__":
                raise AlignerError("'__header__' is reserved in a saved model")
            if array.dtype.kind not in "biuf":
                raise AlignerError(f"array {key!r} has dtype {array.dtype}; only numbers are saved")
        blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
        with target.open("wb") as handle:
            np.savez_compressed(handle, __header__=blob, **arrays)  # type: ignore[arg-type]
        return target

    @classmethod
    def load(cls, path: str | Path) -> Aligner:
        """Read a model written by :meth:`save`. Called on a subclass, the file must hold that
        aligner; called on :class:`Aligner`, any registered aligner is returned."""
        header, arrays = read_model_file(path)
        name = header["aligner"]
        if cls is not Aligner and name != cls.name:
            raise AlignerError(f"{path}: holds a '{name}' model, not '{cls.name}'")
        klass = aligner_class(name)
        if int(header.get("aligner_version", 0)) > klass.version:
            raise AlignerError(
                f"{path}: '{name}' model version {header['aligner_version']} is newer than this "
                f"code (version {klass.version}); upgrade scoring"
            )
        aligner = klass(**header.get("options", {}))
        aligner._restore(header.get("state", {}), arrays)
        aligner.trained = bool(header.get("trained", True))
        return aligner


def read_model_file(path: str | Path) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """Header and arrays of a saved model, validated; never unpickles anything."""
    source = Path(path)
    if not source.is_file():
        raise AlignerError(f"{source}: no such model file")
    try:
        with np.load(source, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise AlignerError(f"{source}: not a saved aligner model ({error})") from error
    blob = arrays.pop("__header__", None)
    if blob is None or blob.dtype != np.uint8:
        raise AlignerError(f"{source}: not a saved aligner model (no '__header__' entry)")
    try:
        header = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AlignerError(f"{source}: field '__header__' is not JSON ({error})") from error
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise AlignerError(f"{source}: field 'format' is not '{FORMAT_NAME}'")
    version = header.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise AlignerError(
            f"{source}: field 'format_version' is {version!r}; this code reads up to "
            f"{FORMAT_VERSION}"
        )
    if not isinstance(header.get("aligner"), str):
        raise AlignerError(f"{source}: field 'aligner' is missing")
    return header, arrays


# --- registry ----------------------------------------------------------------------------------


def available_aligners() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def aligner_class(name: str) -> type[Aligner]:
    """The class registered under ``name``; :class:`AlignerError` listing the known names."""
    target = _REGISTRY.get(name)
    if target is None:
        raise AlignerError(
            f"unknown aligner {name!r}; known aligners: {', '.join(available_aligners())}"
        )
    module_name, _, class_name = target.partition(":")
    klass = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(klass, type) and issubclass(klass, Aligner)):
        raise AlignerError(f"registry entry {name!r} is not an Aligner")
    return klass


def get_aligner(name: str, **options: Any) -> Aligner:
    """A new, untrained aligner by name, e.g. ``get_aligner("em", hmm_iterations=5)``."""
    return aligner_class(name)(**options)


def register_aligner(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (for aligners defined outside this package)."""
    _REGISTRY[name] = target


def parse_option_strings(name: str, items: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` from the command line → typed options for aligner ``name``."""
    klass = aligner_class(name)
    known = klass.option_defaults()
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise AlignerError(f"option {item!r} is not KEY=VALUE")
        if key not in known:
            raise AlignerError(
                f"unknown option {key!r} for aligner '{name}'; known options: "
                f"{', '.join(sorted(known))}"
            )
        out[key] = _coerce_text(name, key, text.strip(), known[key])
    return out


def _coerce_text(aligner: str, key: str, text: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError as error:
        raise AlignerError(
            f"option {key!r} of aligner '{aligner}' must be a {type(default).__name__}, "
            f"got {text!r}"
        ) from error
    if default is None and text.lower() in ("", "none"):
        return None
    return text


def _validated_options(
    name: str, known: dict[str, Any], given: Mapping[str, Any]
) -> dict[str, Any]:
    out = dict(known)
    for key, value in given.items():
        if key not in known:
            raise AlignerError(
                f"unknown option {key!r} for aligner '{name}'; known options: "
                f"{', '.join(sorted(known))}"
            )
        default = known[key]
        if default is None:
            if value is not None and not isinstance(value, str | Path):
                raise AlignerError(f"option {key!r} of aligner '{name}' must be a path or None")
            out[key] = None if value is None else str(value)
            continue
        expected: type = type(default)
        ok = isinstance(value, expected)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if expected is int and isinstance(value, bool):
            ok = False
        if not ok:
            raise AlignerError(
                f"option {key!r} of aligner '{name}' must be a {expected.__name__}, got {value!r}"
            )
        out[key] = value
    return out


# --- input checks ------------------------------------------------------------------------------


def check_pair(
    source: Sequence[str], target: Sequence[str], max_length: int, where: str = ""
) -> tuple[list[str], list[str]]:
    """Validate one tokenized pair; :class:`AlignerError` naming the side and the token."""
    prefix = f"{where}: " if where else ""
    out = []
    for side, tokens in (("source", source), ("target", target)):
        if isinstance(tokens, str):
            raise AlignerError(f"{prefix}{side} sentence must be a list of tokens, not a string")
        words = list(tokens)
        if not words:
            raise AlignerError(f"{prefix}{side} sentence is empty")
        if len(words) > max_length:
            raise AlignerError(
                f"{prefix}{side} sentence has {len(words)} tokens, more than the maximum "
                f"max_length={max_length}; split the sentence or raise the option"
            )
        for k, word in enumerate(words):
            if not isinstance(word, str) or not word or word != word.strip() or " " in word:
                raise AlignerError(
                    f"{prefix}{side} token #{k + 1} ({word!r}) is not a non-empty token "
                    "without spaces"
                )
        out.append(words)
    return out[0], out[1]


def check_training_input(
    pairs: Sequence[TokenPair],
    gold: Sequence[Alignment | None] | None,
    max_length: int,
) -> None:
    if len(pairs) == 0:
        raise AlignerError("no training pairs given")
    for k, pair in enumerate(pairs):
        if len(pair) != 2:
            raise AlignerError(f"training pair #{k + 1} is not a (source, target) pair")
        check_pair(pair[0], pair[1], max_length, where=f"training pair #{k + 1}")
    if gold is None:
        return
    if len(gold) != len(pairs):
        raise AlignerError(f"{len(gold)} gold alignments for {len(pairs)} training pairs")
    for k, (alignment, (src, tgt)) in enumerate(zip(gold, pairs, strict=True)):
        if alignment is not None and alignment.shape != (len(src), len(tgt)):
            raise AlignerError(
                f"gold alignment #{k + 1} is for a {alignment.n_source}×{alignment.n_target} "
                f"pair but the tokens are {len(src)}×{len(tgt)}"
            )
