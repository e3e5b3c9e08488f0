"""The aligner interface, its registry and the saved-model format.

Every prefill aligner is a subclass of :class:`Aligner`:

- ``fit(pairs, gold=None)`` learns from token pairs. ``gold``, when given, is as long as
  ``pairs`` and holds the gold :class:`~scoring.alignment.links.Alignment` of a pair or
  ``None`` for a pair nobody has annotated; unsupervised aligners ignore it, a supervised one
  learns from the annotated pairs and may still use every pair (for EM posteriors, say).
  ``fit(..., progress=...)`` tells ``progress`` (:mod:`scoring.progress`) of each step of a
  long training: ``_train`` calls :meth:`Aligner.report_progress`.
- ``align(source, target)`` returns an :class:`AlignerOutput`: sure and possible links (``S ⊆ P``),
  a confidence in ``[0, 1]`` per link of ``P`` and warnings (a resource that was missing and the
  fallback taken).
- ``to_dict()`` / ``Aligner.from_dict(data)`` give and take the trained model as JSON values
  and numeric arrays; ``save(path)`` / ``Aligner.load(path)`` write and read them as one
  ``.npz`` file (below).

Options are a frozen dataclass per aligner (:mod:`scoring.aligners.options`). Aligners are
found by name: :func:`get_aligner` (``"identity"``, ``"lexical"``, ``"em"``, ``"supervised"``)
takes the options as JSON values; an unknown name or option raises
:class:`~scoring.errors.OptionsError` listing the known ones.

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
import io
import json
import math
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Self

import numpy as np
import numpy.typing as npt

from scoring import __version__
from scoring.aligners.options import AlignerOptions
from scoring.alignment.links import Alignment, Link
from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.files import is_stream
from scoring.options import saved_options
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
            raise InputError(f"link {i}-{j} has no confidence")
        for (i, j), value in self.confidence.items():
            if (i, j) not in self.alignment.possible:
                raise InputError(f"confidence given for {i}-{j}, which is not a link")
            if not (0.0 <= value <= 1.0) or math.isnan(value):
                raise InputError(f"confidence of link {i}-{j} is {value}, outside [0, 1]")

    @property
    def sure(self) -> frozenset[Link]:
        return self.alignment.sure

    @property
    def possible(self) -> frozenset[Link]:
        return self.alignment.possible


class Aligner(ABC):
    """Base class of every aligner. Subclasses set ``name``, ``version`` and ``options_class``
    (a frozen dataclass of :mod:`scoring.aligners.options`); ``self.options`` is an instance of
    it, checked when it was built (a subclass narrows the attribute's type: ``options:
    EMOptions``)."""

    name: ClassVar[str] = ""
    version: ClassVar[int] = 1
    options_class: ClassVar[type[AlignerOptions]] = AlignerOptions
    #: ``True`` if :meth:`fit` learns from ``gold``; cross-validation retrains per fold only then.
    uses_gold: ClassVar[bool] = False
    #: ``True`` if :meth:`align` works without :meth:`fit`.
    needs_training: ClassVar[bool] = False

    options: AlignerOptions

    def __init__(self, options: AlignerOptions | None = None) -> None:
        chosen = self.options_class() if options is None else options
        if type(chosen) is not self.options_class:
            raise OptionsError(
                f"the '{self.name}' aligner takes {self.options_class.__name__}, "
                f"not {type(chosen).__name__}"
            )
        self.options = chosen
        self.trained = False
        #: The ``progress`` of the :meth:`fit` call under way, if any.
        self.progress: Progress | None = None

    @classmethod
    def training_refusal(
        cls, gold: Sequence[Alignment], options: AlignerOptions | None = None
    ) -> str | None:
        """Why :meth:`fit` would refuse to learn from the finished alignments ``gold`` (the
        pairs that have one) with ``options`` (the defaults when ``None``), before any work;
        ``None`` when it would not. The rule :meth:`fit` applies, so a caller can refuse a
        training it cannot do without running it (a prefill request, say)."""
        if cls.uses_gold and not gold:
            return f"the '{cls.name}' aligner needs gold alignments for some training pairs"
        return None

    # --- interface ----------------------------------------------------------------------------

    def fit(
        self,
        pairs: Sequence[TokenPair],
        gold: Sequence[Alignment | None] | None = None,
        *,
        progress: Progress | None = None,
    ) -> Self:
        """Learn from token pairs (and gold alignments, if the aligner uses them); ``progress``
        is told the share done and the stage at each step of the training."""
        check_training_input(pairs, gold, self.options.max_length)
        self.progress = progress
        try:
            self._train(pairs, gold)
        finally:
            self.progress = None
        self.trained = True
        return self

    def report_progress(self, fraction: float, stage: str) -> None:
        """For :meth:`_train`: the share of the training done and its stage, told to the
        ``progress`` of :meth:`fit` (if any)."""
        progress_report(self.progress, fraction, stage)

    def progress_part(self, start: float, stop: float, prefix: str = "") -> Progress | None:
        """For :meth:`_train`: the ``progress`` of a part of the training that spans ``start``
        to ``stop`` of it (a nested aligner's training, say)."""
        return progress_part(self.progress, start, stop, prefix)

    def align(self, source: Sequence[str], target: Sequence[str]) -> AlignerOutput:
        """Align one tokenized pair: sure/possible links with a confidence per link."""
        src, tgt = check_pair(source, target, self.options.max_length)
        if self.needs_training and not self.trained:
            raise ModelError(
                f"the '{self.name}' aligner is not trained: call fit() or load a saved model"
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

    def to_dict(self) -> dict[str, Any]:
        """The model as the header of the saved-model format (above) plus ``"arrays"``, its
        learned numeric arrays by name."""
        state, arrays = self._state()
        for key, array in arrays.items():
            if key == "__header__":
                raise ModelError("'__header__' is reserved in a saved model")
            if array.dtype.kind not in "biuf":
                raise ModelError(f"array {key!r} has dtype {array.dtype}; only numbers are saved")
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "aligner": self.name,
            "aligner_version": self.version,
            "scoring_version": __version__,
            "options": self.options.to_dict(),
            "trained": self.trained,
            "state": state,
            "arrays": arrays,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str | Path | None = None) -> Aligner:
        """Rebuild an aligner from :meth:`to_dict` output (``path``: the file it came from, for
        messages). Called on a subclass, the data must hold that aligner; called on
        :class:`Aligner`, any registered aligner is returned."""
        where = f"{path}: " if path is not None else ""
        header = check_header(data, where)
        name = header["aligner"]
        if cls is not Aligner and name != cls.name:
            raise ModelError(f"{where}holds a '{name}' model, not '{cls.name}'")
        klass = aligner_class(name)
        if int(header.get("aligner_version", 0)) > klass.version:
            raise ModelError(
                f"{where}'{name}' model version {header['aligner_version']} is newer than this "
                f"code (version {klass.version}); upgrade scoring"
            )
        arrays = data.get("arrays", {})
        with saved_options():  # an option beyond a bound set since it was trained is kept
            aligner = klass(klass.options_class.from_dict(header.get("options", {})))
            aligner._restore(header.get("state", {}), dict(arrays))
        aligner.trained = bool(header.get("trained", True))
        return aligner

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` to ``path`` as one ``.npz`` file (format above); returns the
        path written."""
        target = Path(path)
        with target.open("wb") as handle:
            self.write(handle)
        return target

    def write(self, handle: BinaryIO) -> None:
        """Write :meth:`to_dict` to an open binary file as :meth:`save` does (to standard
        output, say)."""
        data = self.to_dict()
        arrays = data.pop("arrays")
        blob = np.frombuffer(json.dumps(data).encode("utf-8"), dtype=np.uint8)
        np.savez_compressed(handle, __header__=blob, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> Aligner:
        """Read a model written by :meth:`save` (see :meth:`from_dict`)."""
        header, arrays = read_model_file(path)
        return cls.from_dict({**header, "arrays": arrays}, path=path)


def read_model_file(path: str | Path) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """Header and arrays of a saved model, validated; never unpickles anything."""
    source = Path(path)
    # a stream (``--model -``) is read whole first: a zip archive is read from its end
    archive_file: Path | io.BytesIO = source
    if is_stream(source):
        archive_file = io.BytesIO(source.read_bytes())
    elif not source.is_file():
        raise FormatError("no such model file", path=source)
    if not zipfile.is_zipfile(archive_file):
        # np.load would read any other file as a pickle and suggest allow_pickle=True
        raise FormatError(
            "not a saved aligner model (an .npz archive written by --save-model or save())",
            path=source,
        )
    try:
        with np.load(archive_file, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise FormatError(f"not a saved aligner model ({error})", path=source) from error
    blob = arrays.pop("__header__", None)
    if blob is None or blob.dtype != np.uint8:
        raise FormatError("not a saved aligner model (no '__header__' entry)", path=source)
    try:
        header = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FormatError(f"not JSON ({error})", path=source, field="__header__") from error
    return check_header(header, f"{source}: "), arrays


def check_header(header: object, where: str = "") -> dict[str, Any]:
    """``header`` as a saved aligner's header: of this format, a version this code reads, and
    naming an aligner; ``where`` prefixes messages (the file's path)."""
    path = where.removesuffix(": ") or None
    if not isinstance(header, Mapping) or header.get("format") != FORMAT_NAME:
        raise FormatError(f"not '{FORMAT_NAME}'", path=path, field="format")
    version = header.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise FormatError(
            f"is {version!r}; this code reads up to {FORMAT_VERSION}",
            path=path,
            field="format_version",
        )
    if not isinstance(header.get("aligner"), str):
        raise FormatError("missing", path=path, field="aligner")
    return dict(header)


# --- registry ----------------------------------------------------------------------------------


def available_aligners() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def aligner_class(name: str) -> type[Aligner]:
    """The class registered under ``name``; :class:`OptionsError` listing the known names."""
    target = _REGISTRY.get(name)
    if target is None:
        raise OptionsError(
            f"unknown aligner {name!r}; known aligners: {', '.join(available_aligners())}",
            option="aligner",
            value=name,
        )
    module_name, _, class_name = target.partition(":")
    klass = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(klass, type) and issubclass(klass, Aligner)):
        raise ModelError(f"registry entry {name!r} is not an Aligner")
    return klass


def get_aligner(name: str, **options: Any) -> Aligner:
    """A new, untrained aligner by name, its options given as JSON values, e.g.
    ``get_aligner("em", hmm_iterations=5)`` (see :meth:`scoring.options.Options.from_dict`)."""
    klass = aligner_class(name)
    return klass(klass.options_class.from_dict(options))


def register_aligner(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (for aligners defined outside this package)."""
    _REGISTRY[name] = target


def parse_option_strings(name: str, items: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` from the command line → the JSON options of aligner ``name``
    that were given (typed and checked)."""
    options = aligner_class(name).options_class.from_strings(items)
    given = {item.partition("=")[0].strip().replace("-", "_") for item in items}
    return {key: value for key, value in options.to_dict().items() if key in given}


# --- input checks ------------------------------------------------------------------------------


def check_pair(
    source: Sequence[str], target: Sequence[str], max_length: int, where: str = ""
) -> tuple[list[str], list[str]]:
    """Validate one tokenized pair; :class:`~scoring.errors.InputError` naming the side and the
    token."""
    prefix = f"{where}: " if where else ""
    out = []
    for side, tokens in (("source", source), ("target", target)):
        if isinstance(tokens, str):
            raise InputError(f"{prefix}{side} sentence must be a list of tokens, not a string")
        words = list(tokens)
        if not words:
            raise InputError(f"{prefix}{side} sentence is empty")
        if len(words) > max_length:
            raise InputError(
                f"{prefix}{side} sentence has {len(words)} tokens, more than the maximum "
                f"max_length={max_length}; split the sentence or raise the option"
            )
        for k, word in enumerate(words):
            if not isinstance(word, str) or not word or word != word.strip() or " " in word:
                raise InputError(
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
        raise InputError("no training pairs given")
    for k, pair in enumerate(pairs):
        if len(pair) != 2:
            raise InputError(f"training pair #{k + 1} is not a (source, target) pair")
        check_pair(pair[0], pair[1], max_length, where=f"training pair #{k + 1}")
    if gold is None:
        return
    if len(gold) != len(pairs):
        raise InputError(f"{len(gold)} gold alignments for {len(pairs)} training pairs")
    for k, (alignment, (src, tgt)) in enumerate(zip(gold, pairs, strict=True)):
        if alignment is not None and alignment.shape != (len(src), len(tgt)):
            raise InputError(
                f"gold alignment #{k + 1} is for a {alignment.n_source}×{alignment.n_target} "
                f"pair but the tokens are {len(src)}×{len(tgt)}"
            )
