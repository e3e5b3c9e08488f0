"""Corpus file formats: pure readers and writers of :class:`~scoring.corpus.PairRecord`.

Every format is registered in :data:`FORMATS` under its name::

    from scoring.formats import get_format

    spec = get_format("msrp")
    for record in spec.read([Path("msr_paraphrase_train.txt")]):
        ...
    get_format("pharaoh").write(records, Path("out/"), alignment=select_annotator("alice"))

Contract, the same for every format:

- ``read(paths, **options)`` returns an iterator. Records are produced lazily, so memory stays
  flat however large the input (``rte2`` reads its 3×800 pairs first: it must compare the
  annotators). Options a format does not know are an error; :attr:`FormatSpec.options` lists them.
- The first problem raises :class:`~scoring.errors.FormatError` naming file, line and field:
  bad syntax, wrong column count, a link outside the sentence, non-UTF-8 bytes, an empty file, a
  duplicate id, annotators that disagree. Nothing is written by a reader, so an importer that
  consumes the whole iterator before (or inside a transaction while) writing is all-or-nothing.
- ``write(records, output, alignment=…)`` consumes an iterable and writes through temporary files
  renamed into place at the end, so a failure leaves no partial output. Formats that hold one
  alignment per pair write ``alignment(record)`` (``None`` → no links); without a selector,
  :func:`default_alignment`. ``jsonl`` keeps every alignment and takes no selector
  (:attr:`FormatSpec.selects_alignment`).
- :attr:`FormatSpec.input_kind` / :attr:`FormatSpec.output_kind` say whether each path is a
  file or a directory (``pharaoh``: a directory; ``sts``: files or directories).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats import jacana, jsonl, msrp, multimwa, pharaoh, rte2, sts
from scoring.formats._common import (
    MAX_LINE_BYTES,
    MAX_TOKENS,
    AlignmentSelector,
    damaged_zip,
    decode_line,
    default_alignment,
)
from scoring.formats.guess import guess_format

__all__ = [
    "FORMATS",
    "MAX_LINE_BYTES",
    "MAX_TOKENS",
    "AlignmentSelector",
    "FormatSpec",
    "damaged_zip",
    "decode_line",
    "default_alignment",
    "format_names",
    "get_format",
    "read_corpus",
    "select_annotator",
    "select_gold",
    "select_prefill",
    "writable_formats",
    "write_corpus",
]

PathKind = Literal["file", "directory", "file or directory"]
Reader = Callable[..., Iterator[PairRecord]]
Writer = Callable[..., None]


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One corpus format: how to read it, whether and how to write it."""

    name: str
    description: str
    reader: Reader
    writer: Writer | None
    input_kind: PathKind
    output_kind: Literal["file", "directory"] | None
    #: How many input paths one import takes: (minimum, maximum or None for any number).
    input_count: tuple[int, int | None]
    #: Keyword options ``read`` accepts, with their meaning.
    options: Mapping[str, str]
    #: Whether ``write`` writes one chosen alignment per pair (``alignment=`` selector).
    selects_alignment: bool

    @property
    def writable(self) -> bool:
        return self.writer is not None

    def read(self, paths: Sequence[Path], **options: Any) -> Iterator[PairRecord]:
        """Records of ``paths``; see the module docstring for the contract."""
        paths = [Path(p) for p in paths]
        low, high = self.input_count
        if len(paths) < low or (high is not None and len(paths) > high):
            wanted = f"{low}" if low == high else f"{low} to {high}" if high else f"at least {low}"
            raise FormatError(
                f"the {self.name} format takes {wanted} input path(s), got {len(paths)}",
                path=paths[0] if paths else None,
                field="(paths)",
            )
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(self.options) or "none"
            raise FormatError(
                f"the {self.name} format has no option {unknown[0]!r} (its options: {known})",
                field=unknown[0],
            )
        given = {key: value for key, value in options.items() if value is not None}
        return self._hinted(self.reader(paths, **given))

    def _hinted(self, records: Iterator[PairRecord]) -> Iterator[PairRecord]:
        """``records``, an error in a file that looks like another format saying which."""
        try:
            yield from records
        except FormatError as error:
            looks = guess_format(Path(error.path)) if error.path else None
            if looks is None or looks == self.name or looks not in FORMATS:
                raise
            raise FormatError(
                f"{error.message} (the file looks like the {looks} format: read it as {looks})",
                path=error.path,
                line=error.line,
                field=error.field,
            ) from error

    def write(
        self,
        records: Iterable[PairRecord],
        output: Path,
        *,
        alignment: Callable[[PairRecord], Alignment | None] | None = None,
    ) -> None:
        """Write ``records`` to ``output`` (a file or a directory, see :attr:`output_kind`)."""
        if self.writer is None:
            raise FormatError(
                f"the {self.name} format can be read but not written; writable formats: "
                f"{', '.join(writable_formats())}",
                path=output,
                field="format",
            )
        self.writer(records, Path(output), alignment=alignment)


_ANNOTATOR = "import the alignment as this annotator's work instead of the gold alignment"
_SPLIT = "the pairs' split, part of their ids (else the split their folder's name says)"

FORMATS: Mapping[str, FormatSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            FormatSpec(
                name="jsonl",
                description="the project's lossless format, one pair per line",
                reader=jsonl.read,
                writer=jsonl.write,
                input_kind="file",
                output_kind="file",
                input_count=(1, None),
                options={},
                selects_alignment=False,
            ),
            FormatSpec(
                name="pharaoh",
                description="directory of source.txt, target.txt, alignment.txt (+ ids.txt)",
                reader=pharaoh.read,
                writer=pharaoh.write,
                input_kind="directory",
                output_kind="directory",
                input_count=(1, None),
                options={"annotator": _ANNOTATOR},
                selects_alignment=True,
            ),
            FormatSpec(
                name="jacana",
                description="Edinburgh++/jacana JSON: a sure file, optionally its sure+poss file",
                reader=jacana.read,
                writer=jacana.write,
                input_kind="file",
                output_kind="file",
                input_count=(1, 2),
                options={"annotator": _ANNOTATOR},
                selects_alignment=True,
            ),
            FormatSpec(
                name="multimwa",
                description="MultiMWA benchmark TSV: id, sentences, sure and possible links",
                reader=multimwa.read,
                writer=multimwa.write,
                input_kind="file",
                output_kind="file",
                input_count=(1, None),
                options={"annotator": _ANNOTATOR},
                selects_alignment=True,
            ),
            FormatSpec(
                name="rte2",
                description="MSR RTE-2 alignments, one file per annotator (…_A.align.txt, …)",
                reader=rte2.read,
                writer=None,
                input_kind="file",
                output_kind=None,
                input_count=(1, None),
                options={},
                selects_alignment=True,
            ),
            FormatSpec(
                name="msrp",
                description="MSR Paraphrase Corpus TSV (binary label as gold label)",
                reader=msrp.read,
                writer=None,
                input_kind="file",
                output_kind=None,
                input_count=(1, None),
                options={},
                selects_alignment=False,
            ),
            FormatSpec(
                name="sts",
                description="SemEval STS.input.X.txt with STS.gs.X.txt beside it (gold score)",
                reader=sts.read,
                writer=None,
                input_kind="file or directory",
                output_kind=None,
                input_count=(1, None),
                options={"split": _SPLIT},
                selects_alignment=False,
            ),
        )
    }
)


def format_names() -> tuple[str, ...]:
    return tuple(FORMATS)


def writable_formats() -> tuple[str, ...]:
    return tuple(name for name, spec in FORMATS.items() if spec.writable)


def get_format(name: str, *, path: str | Path | None = None, field: str = "format") -> FormatSpec:
    """The format called ``name``; an unknown name is a :class:`FormatError` listing the known.

    ``path`` and ``field`` let a caller name the file and the option the name came from.
    """
    spec = FORMATS.get(name)
    if spec is None:
        raise FormatError(
            f"unknown format {name!r}; known formats: {', '.join(FORMATS)}",
            path=path,
            field=field,
        )
    return spec


def read_corpus(name: str, paths: Sequence[Path], **options: Any) -> Iterator[PairRecord]:
    """``get_format(name).read(paths, **options)``."""
    return get_format(name).read(paths, **options)


def write_corpus(
    name: str,
    records: Iterable[PairRecord],
    output: Path,
    *,
    alignment: AlignmentSelector | None = None,
) -> None:
    """``get_format(name).write(records, output, alignment=alignment)``."""
    get_format(name).write(records, output, alignment=alignment)


def select_annotator(name: str) -> AlignmentSelector:
    """Selector writing annotator ``name``'s submitted alignment. Pairs they did not annotate
    or have not submitted get none: work in progress (a pair only opened still holds the
    prefill) is not their alignment."""

    def select(record: PairRecord) -> Alignment | None:
        annotation = record.annotations.get(name)
        if annotation is None or annotation.status != "submitted":
            return None
        return annotation.alignment

    return select


def select_prefill(record: PairRecord) -> Alignment | None:
    """Selector writing the automatic prefill."""
    return record.prefill


def select_gold(record: PairRecord) -> Alignment | None:
    """Selector writing the adjudicated gold alignment."""
    return record.gold_alignment
