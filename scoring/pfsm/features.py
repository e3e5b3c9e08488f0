"""Edit-operation states, transition features and per-pair match tables for pFSM/pPDA.

Wang & Manning (2012) §2 and §3; Wang & Cer (2012) §2.

States (one per edit operation, §2 of both papers):

- ``INS`` consumes one target token, ``DEL`` one source token (the model transforms the source
  ``s1`` into the target ``s2``, as the papers transform *ref* into *sys*).
- Substitutions are only allowed between matching tokens: ``S_WORD`` (same word),
  ``S_LEMMA`` (same Porter stem), ``S_PUNC`` (same punctuation), and the §3 substitutions
  ``S_SYN`` (the two words share a WordNet synset) and ``S_PARA`` (the pair is in a paraphrase
  table). A token pair gets the first type that applies in that order (punctuation first, so a
  comma matched with a comma is ``S_PUNC``, not ``S_WORD``); the types are mutually exclusive,
  so every substitution has exactly one state.
- Bigram block substitutions (one-to-many and many-to-many, Wang & Manning 2012, §3.2, the ``n2``
models of
  its Table 1): spans of 1×2, 2×1 or 2×2 tokens, ``B_WORD`` when the spans are the same string
  once lower-cased and written without spaces (``cannot`` / ``can not``, or an identical
  bigram), else ``B_LEMMA`` when their stems written together agree, else ``B_PARA`` when the
  phrase pair is in the paraphrase table.
- pPDA jumps (Wang & Manning 2012, §2.2): ``J1`` the forward jump, ``J2`` the jump back into the
gap, ``J3``
  the jump that resumes after the swapped region. Jumps on either side share these states.

Features (§2): binary identity features of the current state (``state:S``) and of the
transition from the previous state (``trans:P>S``), plus the transition into the stop state
(``stop:P``). The start state enters the first edit state "with a constant unit cost", i.e.
without a feature of its own.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring.errors import FormatError, InputError
from scoring.formats import MAX_LINE_BYTES, decode_line

STATE_NAMES: tuple[str, ...] = (
    "INS",
    "DEL",
    "S_WORD",
    "S_LEMMA",
    "S_PUNC",
    "S_SYN",
    "S_PARA",
    "B_WORD",
    "B_LEMMA",
    "B_PARA",
    "J1",
    "J2",
    "J3",
)
N_STATES = len(STATE_NAMES)
(
    ST_INS,
    ST_DEL,
    ST_SWORD,
    ST_SLEMMA,
    ST_SPUNC,
    ST_SSYN,
    ST_SPARA,
    ST_BWORD,
    ST_BLEMMA,
    ST_BPARA,
    ST_J1,
    ST_J2,
    ST_J3,
) = range(N_STATES)
SUBSTITUTION_STATES = frozenset(range(ST_SWORD, ST_BPARA + 1))
JUMP_STATES = frozenset((ST_J1, ST_J2, ST_J3))

#: Block shapes in the last axis of :attr:`MatchTables.block`: (source tokens, target tokens).
BLOCK_SHAPES: tuple[tuple[int, int], ...] = ((1, 2), (2, 1), (2, 2))

N_FEATURES = N_STATES + N_STATES * N_STATES + N_STATES


def unigram_feature(state: int) -> int:
    return state


def transition_feature(previous: int, state: int) -> int:
    return N_STATES + previous * N_STATES + state


def stop_feature(previous: int) -> int:
    return N_STATES + N_STATES * N_STATES + previous


def feature_names() -> list[str]:
    """Names of all :data:`N_FEATURES` features, indexed as the kernels index them."""
    names = [f"state:{s}" for s in STATE_NAMES]
    names += [f"trans:{p}>{s}" for p in STATE_NAMES for s in STATE_NAMES]
    names += [f"stop:{p}" for p in STATE_NAMES]
    return names


@dataclass(frozen=True, slots=True)
class MatchTables:
    """Which substitutions are possible in one sentence pair.

    ``single``: int8 ``(N, M)``, the substitution state of source token ``i`` with target token
    ``j`` or −1. ``block``: int8 ``(N, M, 3)``, the block state of the spans starting at
    ``(i, j)`` with the shapes of :data:`BLOCK_SHAPES`, or −1 (also −1 where a span would run
    past the end of its sentence).
    """

    single: npt.NDArray[np.int8]
    block: npt.NDArray[np.int8]

    @property
    def shape(self) -> tuple[int, int]:
        n, m = self.single.shape
        return int(n), int(m)


class ParaphraseTable:
    """A set of lexical or phrasal paraphrase pairs, used as a symmetric relation.

    Wang & Manning 2012, §3.2 pruned TERp's table to unigrams and bigrams; we keep phrases of one
    or two
    tokens likewise. The model's paraphrase features are binary (a pair is or is not in the
    table), so a table's probabilities are not needed; lines may carry them in a third field,
    which is read and ignored.
    """

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self._pairs: set[tuple[str, str]] = set()
        for a, b in pairs:
            self.add(a, b)

    def add(self, a: str, b: str) -> None:
        key_a = " ".join(a.lower().split())
        key_b = " ".join(b.lower().split())
        if not key_a or not key_b or key_a == key_b:
            return
        if key_a.count(" ") > 1 or key_b.count(" ") > 1:
            return
        self._pairs.add((key_a, key_b))
        self._pairs.add((key_b, key_a))

    def __contains__(self, pair: object) -> bool:
        return pair in self._pairs

    def __len__(self) -> int:
        return len(self._pairs) // 2

    @classmethod
    def load(cls, path: str | Path) -> ParaphraseTable:
        """Read ``phrase<TAB>phrase[<TAB>anything]`` or ``phrase ||| phrase [||| …]`` lines.

        Blank lines and lines starting with ``#`` are skipped, and so are pairs whose phrase is
        only whitespace or control characters (the PPDB file has one such line). Raises
        :class:`FormatError` naming the file, the line and the field for a line with fewer than
        two phrases or an empty one.
        """
        table = cls()
        file = Path(path)
        try:
            handle = file.open("rb")
        except OSError as error:
            raise FormatError(f"cannot read the paraphrase table: {error}", path=file) from None
        with handle:
            for number, raw in enumerate(handle, start=1):
                if len(raw) > MAX_LINE_BYTES + 2:
                    raise FormatError(
                        f"the line is longer than {MAX_LINE_BYTES:,} bytes",
                        path=file,
                        line=number,
                        field="(line)",
                    )
                # not UTF-8 (or UTF-16) is refused naming the line, as a corpus file's text
                line = decode_line(raw, path=file, line=number, field="phrase1")
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.split(" ||| ") if " ||| " in line else line.split("\t")
                if len(fields) < 2:
                    raise FormatError(
                        "expected two phrases separated by a tab or ' ||| '",
                        path=file,
                        line=number,
                        field="phrase2",
                    )
                for name, value in (("phrase1", fields[0]), ("phrase2", fields[1])):
                    if not value:
                        raise FormatError("the phrase is empty", path=file, line=number, field=name)
                table.add(fields[0], fields[1])
        return table


def is_punctuation(token: str) -> bool:
    """True for a token made only of punctuation or symbol characters (``,`` ``--`` ``$``)."""
    return bool(token) and all(unicodedata.category(ch)[0] in "PS" for ch in token)


class Lexicon:
    """Per-token information the match tables need, cached per word form.

    ``synonyms``: use WordNet 3.0 through :mod:`scoring.resources` (raises
    :class:`~scoring.errors.ResourceMissingError` when WordNet is not installed).
    """

    def __init__(self, *, synonyms: bool, paraphrases: ParaphraseTable | None) -> None:
        from scoring import resources

        self._stem = resources.stem
        self._wordnet = resources.wordnet() if synonyms else None
        self.paraphrases = paraphrases
        self._synsets: dict[str, frozenset[str]] = {}

    def stem(self, lower: str) -> str:
        return self._stem(lower)

    def synsets(self, lower: str) -> frozenset[str]:
        if self._wordnet is None:
            return frozenset()
        found = self._synsets.get(lower)
        if found is None:
            if is_punctuation(lower) or lower.isdigit():
                found = frozenset()
            else:
                found = frozenset(s.name() for s in self._wordnet.synsets(lower))
            self._synsets[lower] = found
        return found

    def match_tables(self, source: Sequence[str], target: Sequence[str]) -> MatchTables:
        """The :class:`MatchTables` of one pair of token lists (both non-empty)."""
        n, m = len(source), len(target)
        xs = [t.lower() for t in source]
        ys = [t.lower() for t in target]
        x_stem = [self.stem(t) for t in xs]
        y_stem = [self.stem(t) for t in ys]
        x_punc = [is_punctuation(t) for t in xs]
        y_punc = [is_punctuation(t) for t in ys]
        use_syn = self._wordnet is not None
        x_syn = [self.synsets(t) for t in xs] if use_syn else []
        y_syn = [self.synsets(t) for t in ys] if use_syn else []
        para = self.paraphrases
        single = np.full((n, m), -1, dtype=np.int8)
        for i in range(n):
            for j in range(m):
                a, b = xs[i], ys[j]
                if x_punc[i] or y_punc[j]:
                    if a == b:
                        single[i, j] = ST_SPUNC
                    continue
                if a == b:
                    single[i, j] = ST_SWORD
                elif x_stem[i] == y_stem[j]:
                    single[i, j] = ST_SLEMMA
                elif use_syn and not x_syn[i].isdisjoint(y_syn[j]):
                    single[i, j] = ST_SSYN
                elif para is not None and (a, b) in para:
                    single[i, j] = ST_SPARA
        block = np.full((n, m, len(BLOCK_SHAPES)), -1, dtype=np.int8)
        for t, (da, db) in enumerate(BLOCK_SHAPES):
            for i in range(n - da + 1):
                xw = "".join(xs[i : i + da])
                xl = "".join(x_stem[i : i + da])
                xp = " ".join(xs[i : i + da])
                for j in range(m - db + 1):
                    if "".join(ys[j : j + db]) == xw:
                        block[i, j, t] = ST_BWORD
                    elif "".join(y_stem[j : j + db]) == xl:
                        block[i, j, t] = ST_BLEMMA
                    elif para is not None and (xp, " ".join(ys[j : j + db])) in para:
                        block[i, j, t] = ST_BPARA
        return MatchTables(single, block)


def check_tokens(tokens: object, what: str) -> list[str]:
    """Validate one tokenized sentence: a non-empty list of non-empty strings."""
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise InputError(f"{what}: expected a list of tokens, got {type(tokens).__name__}")
    out = list(tokens)
    if not out:
        raise InputError(f"{what}: the sentence has no tokens")
    for position, token in enumerate(out):
        if not isinstance(token, str) or not token or token.isspace():
            raise InputError(f"{what}: token {position} is {token!r}, not a non-empty word")
    return out
