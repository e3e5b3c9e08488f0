"""A combined similarity scorer: the papers' features in one union, one learner.

Every pair ``(tokens_1, tokens_2)`` becomes one float64 row of :func:`combined_features`, the
union of these groups (names in :data:`GROUPS`; each group can be switched off):

- ``perp`` (36): Heilman & Madnani's (2012) Table 1 edit features (intercept dropped) of the
  TERp alignment under PERP's *initial* weights (no training, so a pair's features do not
  depend on the training data), and that alignment's cost ``w₀·f``.
- ``mt`` (101): Finch, Hwang & Sumita's (2005) MT-metric features, each the mean of both
  directions (:func:`scoring.mt.features.mt_features`); NIST's information weights come from
  the training sentences, kept with the model.
- ``align`` (26): the lexical aligner's one-to-one links (:mod:`scoring.aligners.lexical`:
  identity, lowercase, Porter stem as sure links; WordNet and, with ``ppdb=PATH``, PPDB as
  possible links). Per side, the share of words, of content words (letters only, not an NLTK
  stop word) and of information content (``−log₁₀`` of the word's ``wordfreq`` frequency,
  floored at 10⁻⁹) that is aligned, by sure links and by any link; the harmonic mean and
  minimum of the two sides (Sultan, Bethard & Sumner 2015 score a pair by the harmonic mean of
  its aligned content-word proportions); and the largest information content left unaligned.
- ``overlap`` (16): word n-gram overlap of lowercased tokens (n = 1–3) and of content-word
  stems (n = 1, 2) and character n-gram overlap (n = 2–4), each as the harmonic mean of both
  containments (Šarić et al. 2012, TakeLab); number features (count, overlap, one set
  containing the other; TakeLab's, decisive on MSRpar); lengths (log of each length, relative
  difference).
- ``wordnet`` (6): TakeLab's WordNet-augmented overlap with Sultan et al.'s weighting: each
  content word's best similarity to a content word of the other sentence (1 for the same word
  or stem, else the best ``path_similarity`` of the first three synsets), averaged per side
  plainly and by information content, with the harmonic mean of the sides.
- ``encoder`` (13): a pretrained sentence encoder's graded similarity
  (:mod:`scoring.neural.encoder`, all-MiniLM-L6-v2 run in numpy): the cosine of the two sentence
  vectors, and at layers 3 and 6 the greedy soft matching of word vectors in context that
  BERTScore computes (Zhang et al. 2020): each word's best cosine to a word of the other
  sentence, averaged per side plainly and weighted by information content, with the harmonic
  mean of the sides.

The learner (``learner="svm"``, the default) is an RBF SVM on standardised features with
``C``, ``γ`` (and SVR's ``ε``) chosen by k-fold cross-validation on the training data only
(:mod:`scoring.mt.classifier`), stored as plain arrays in JSON. ``learner="ridge"`` (scores
only) is ridge regression, ``α`` by k-fold Pearson: lower capacity, for models that must carry
over to data unlike their training set. Shapes: ``(N, F)`` features, ``(N,)`` scores.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.measures import pearson
from scoring.progress import Progress, in_chunks, progress_part, progress_report
from scoring.scorers.options import GROUPS, CombinedOptions

F64 = npt.NDArray[np.float64]
TokenPair = tuple[list[str], list[str]]
#: Pairs a row-wise feature group computes between two progress reports.
FEATURE_CHUNK = 200
#: Pairs the encoder group computes between two progress reports: it takes about half a second
#: a pair on one core, so that 200 pairs would hold the job's progress still for minutes.
ENCODER_CHUNK = 20


_NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?%?")
_MIN_FREQUENCY = 1e-9


# --- word resources ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=500_000)
def information_content(word: str) -> float:
    """``−log₁₀ max(freq, 10⁻⁹)`` of the lowercased word in ``wordfreq``'s English list
    (0 for the most frequent words, 9 for unseen ones)."""
    return -math.log10(max(resources.word_frequency(word.lower()), _MIN_FREQUENCY))


def _content(word: str, stop: frozenset[str]) -> bool:
    return word.isalpha() and word.lower() not in stop


# --- feature groups ----------------------------------------------------------------------------


def perp_names() -> tuple[str, ...]:
    from scoring.edit.perp import FEATURES

    return (*(f"perp:{name}" for name in FEATURES[1:]), "perp:cost")


def perp_features(pairs: Sequence[TokenPair]) -> F64:
    """``(N, 36)``: PERP's 35 edit features under the initial weights and the cost."""
    from scoring.edit.perp import Perp, initial_weights

    w = initial_weights()
    f = Perp().features(list(pairs), w)
    out: F64 = np.column_stack([f[:, 1:], f @ w])
    return out


ALIGN_NAMES: tuple[str, ...] = (
    *(
        f"align:{measure}:{links}:{side}"
        for measure in ("words", "content", "ic")
        for links in ("sure", "any")
        for side in ("1", "2", "hmean", "min")
    ),
    "align:unaligned_ic_max",
    "align:synonym_share",
)


def _share(weights: F64, aligned: npt.NDArray[np.bool_]) -> float:
    total = float(weights.sum())
    return float(weights[aligned].sum()) / total if total > 0 else 1.0


def _hmean(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


class _Aligner:
    """The lexical aligner, built once per option set (strict: a missing resource raises)."""

    def __init__(self, ppdb: str | None) -> None:
        from scoring.aligners import get_aligner

        self.aligner = get_aligner("lexical", ppdb=ppdb, strict_resources=True, max_length=1000)
        self.stop = resources.stopwords()

    def features(self, first: list[str], second: list[str]) -> list[float]:
        out = self.aligner.align(first, second)
        n, m = len(first), len(second)
        sure1 = np.zeros(n, bool)
        sure2 = np.zeros(m, bool)
        any1 = np.zeros(n, bool)
        any2 = np.zeros(m, bool)
        for i, j in out.possible:
            any1[i] = any2[j] = True
        for i, j in out.sure:
            sure1[i] = sure2[j] = True
        ones1, ones2 = np.ones(n), np.ones(m)
        content1 = np.array([_content(w, self.stop) for w in first], np.float64)
        content2 = np.array([_content(w, self.stop) for w in second], np.float64)
        if not content1.any():
            content1 = ones1
        if not content2.any():
            content2 = ones2
        ic1 = np.array([information_content(w) for w in first])
        ic2 = np.array([information_content(w) for w in second])
        row: list[float] = []
        for w1, w2 in ((ones1, ones2), (content1, content2), (ic1, ic2)):
            for a1, a2 in ((sure1, sure2), (any1, any2)):
                s1, s2 = _share(w1, a1), _share(w2, a2)
                row.extend((s1, s2, _hmean(s1, s2), min(s1, s2)))
        left = np.concatenate([ic1[~any1] * content1[~any1], ic2[~any2] * content2[~any2]])
        row.append(float(left.max()) if left.size else 0.0)
        links = len(out.possible)
        row.append((links - len(out.sure)) / links if links else 0.0)
        return row


def align_features(pairs: Sequence[TokenPair], ppdb: str | None = None) -> F64:
    """``(N, 26)`` aligner features (see the module docstring)."""
    aligner = _Aligner(ppdb)
    return np.array([aligner.features(a, b) for a, b in pairs], dtype=np.float64).reshape(
        len(pairs), len(ALIGN_NAMES)
    )


OVERLAP_NAMES: tuple[str, ...] = (
    "overlap:word1",
    "overlap:word2",
    "overlap:word3",
    "overlap:stem1",
    "overlap:stem2",
    "overlap:char2",
    "overlap:char3",
    "overlap:char4",
    "numbers:log_count",
    "numbers:overlap",
    "numbers:subset",
    "numbers:equal",
    "length:log1",
    "length:log2",
    "length:relative_difference",
    "length:content_relative_difference",
)


def _ngrams(items: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(items[k : k + n]) for k in range(len(items) - n + 1))


def _overlap(a: Counter[Any], b: Counter[Any]) -> float:
    """Harmonic mean of the two containments ``|a ∩ b| / |a|`` and ``|a ∩ b| / |b|``."""
    total_a, total_b = sum(a.values()), sum(b.values())
    if total_a == 0 or total_b == 0:
        return 1.0 if total_a == total_b else 0.0
    common = sum((a & b).values())
    return _hmean(common / total_a, common / total_b)


def _numbers(tokens: Sequence[str]) -> frozenset[str]:
    return frozenset(t.replace(",", "") for t in tokens if _NUMBER.fullmatch(t))


def overlap_features(pairs: Sequence[TokenPair]) -> F64:
    """``(N, 16)`` n-gram overlap, number and length features."""
    stop = resources.stopwords()
    rows = []
    for first, second in pairs:
        low1 = [w.lower() for w in first]
        low2 = [w.lower() for w in second]
        stems1 = [resources.stem(w) for w in low1 if _content(w, stop)]
        stems2 = [resources.stem(w) for w in low2 if _content(w, stop)]
        text1, text2 = " ".join(low1), " ".join(low2)
        row = [_overlap(_ngrams(low1, n), _ngrams(low2, n)) for n in (1, 2, 3)]
        row += [_overlap(_ngrams(stems1, n), _ngrams(stems2, n)) for n in (1, 2)]
        row += [_overlap(Counter(_chars(text1, n)), Counter(_chars(text2, n))) for n in (2, 3, 4)]
        num1, num2 = _numbers(first), _numbers(second)
        both = len(num1) + len(num2)
        row += [
            math.log1p(both),
            2 * len(num1 & num2) / both if both else 1.0,
            float(num1 <= num2 or num2 <= num1),
            float(num1 == num2),
        ]
        n1, n2 = len(first), len(second)
        c1, c2 = len(stems1), len(stems2)
        row += [
            math.log(n1),
            math.log(n2),
            abs(n1 - n2) / (n1 + n2),
            abs(c1 - c2) / (c1 + c2) if c1 + c2 else 0.0,
        ]
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(pairs), len(OVERLAP_NAMES))


def _chars(text: str, n: int) -> list[str]:
    return [text[k : k + n] for k in range(len(text) - n + 1)]


WORDNET_NAMES: tuple[str, ...] = tuple(
    f"wordnet:{weight}:{side}" for weight in ("mean", "ic") for side in ("1", "2", "hmean")
)
_SYNSETS_PER_WORD = 3


@functools.lru_cache(maxsize=200_000)
def _first_synsets(word: str) -> tuple[Any, ...]:
    return tuple(resources.wordnet().synsets(word)[:_SYNSETS_PER_WORD])


def _pos(synset: Any) -> str:
    tag = str(synset.pos())
    return "a" if tag == "s" else tag  # adjective satellites are adjectives


@functools.lru_cache(maxsize=1_000_000)
def word_similarity(a: str, b: str) -> float:
    """1 for the same lowercase word or Porter stem, else the largest WordNet
    ``path_similarity`` between the first three synsets of each word of one part of speech
    (0 when there is none)."""
    if a == b or resources.stem(a) == resources.stem(b):
        return 1.0
    best = 0.0
    for s in _first_synsets(a):
        for t in _first_synsets(b):
            if _pos(s) == _pos(t):
                best = max(best, float(s.path_similarity(t) or 0.0))
    return best


def wordnet_features(pairs: Sequence[TokenPair]) -> F64:
    """``(N, 6)`` WordNet soft-matching features (see the module docstring)."""
    stop = resources.stopwords()
    rows = []
    for first, second in pairs:
        words = []
        for tokens in (first, second):
            low = [w.lower() for w in tokens]
            words.append([w for w in low if _content(w, stop)] or low)
        means, weighted = [], []
        for mine, other in ((words[0], words[1]), (words[1], words[0])):
            best = np.array([max(word_similarity(*sorted((w, v))) for v in other) for w in mine])
            ic = np.array([information_content(w) for w in mine])
            means.append(float(best.mean()))
            weighted.append(float(best @ ic / ic.sum()) if ic.sum() > 0 else means[-1])
        rows.append([*means, _hmean(*means), *weighted, _hmean(*weighted)])
    return np.array(rows, dtype=np.float64).reshape(len(pairs), len(WORDNET_NAMES))


ENCODER_LAYERS: tuple[int, ...] = (3, 6)
ENCODER_NAMES: tuple[str, ...] = (
    "encoder:cosine",
    *(
        f"encoder:match:{layer}:{weight}:{side}"
        for layer in ENCODER_LAYERS
        for weight in ("mean", "ic")
        for side in ("1", "2", "hmean")
    ),
)


def encoder_features(pairs: Sequence[TokenPair]) -> F64:
    """``(N, 13)`` sentence-encoder features (see the module docstring)."""
    from scoring.neural import encoder

    model = encoder.load()
    rows = []
    for first, second in pairs:
        a, b = model.encode_words(first), model.encode_words(second)
        row = [float(a.sentence @ b.sentence)]
        ic1 = np.array([information_content(w) for w in first])
        ic2 = np.array([information_content(w) for w in second])
        for layer in ENCODER_LAYERS:
            # a word without a vector (past the 256 word pieces) matches nothing: cosine −1
            sim = np.nan_to_num(encoder.cosine_matrix(a.words[layer], b.words[layer]), nan=-1.0)
            best1, best2 = sim.max(axis=1), sim.max(axis=0)
            ok1, ok2 = ~np.isnan(a.words[layer][:, 0]), ~np.isnan(b.words[layer][:, 0])
            means, weighted = [], []
            for best, ok, ic in ((best1, ok1, ic1), (best2, ok2, ic2)):
                if not ok.any():
                    means.append(0.0)
                    weighted.append(0.0)
                    continue
                means.append(float(best[ok].mean()))
                total = float(ic[ok].sum())
                weighted.append(float(best[ok] @ ic[ok] / total) if total > 0 else means[-1])
            row += [*means, _hmean(*means), *weighted, _hmean(*weighted)]
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(pairs), len(ENCODER_NAMES))


# --- the union ---------------------------------------------------------------------------------


def check_groups(groups: Sequence[str]) -> tuple[str, ...]:
    if isinstance(groups, str) or not groups:
        raise OptionsError(f"groups must be a non-empty list of {', '.join(GROUPS)}")
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise OptionsError(f"unknown feature group {unknown[0]!r}; known: {', '.join(GROUPS)}")
    return tuple(g for g in GROUPS if g in groups)


def feature_names(groups: Sequence[str] = GROUPS) -> tuple[str, ...]:
    from scoring.mt.features import FEATURE_NAMES

    names: dict[str, tuple[str, ...]] = {
        "perp": perp_names(),
        "mt": tuple(f"mt:{n}" for n in FEATURE_NAMES),
        "align": ALIGN_NAMES,
        "overlap": OVERLAP_NAMES,
        "wordnet": WORDNET_NAMES,
        "encoder": ENCODER_NAMES,
    }
    return tuple(name for group in check_groups(groups) for name in names[group])


def combined_features(
    pairs: Sequence[TokenPair],
    groups: Sequence[str] = GROUPS,
    *,
    ppdb: str | None = None,
    info_refs: Sequence[Sequence[str]] | None = None,
    progress: Progress | None = None,
) -> F64:
    """The feature union ``(N, len(feature_names(groups)))`` of tokenized pairs; ``progress``
    hears of each group."""
    from scoring.mt.features import mt_features

    chosen = check_groups(groups)
    row_wise: dict[str, Callable[[Sequence[TokenPair]], F64]] = {
        "mt": lambda part: np.asarray(mt_features(list(part), info_refs=info_refs)),
        "perp": perp_features,
        "overlap": overlap_features,
        "wordnet": wordnet_features,
        "encoder": encoder_features,
    }
    blocks: list[F64] = []
    for done, group in enumerate(chosen):
        stage = f"{group} features of {len(pairs)} pairs"
        progress_report(progress, done / len(chosen), stage)
        if group == "mt" and info_refs is None:  # the pairs are their own NIST references
            blocks.append(np.asarray(mt_features(list(pairs), info_refs=info_refs)))
        elif group == "align":
            blocks.append(align_features(pairs, ppdb))
        else:
            # a chunk at a time, each a report where a cancelled job stops (the encoder's
            # features of a few thousand pairs take minutes on a busy machine)
            share = progress_part(progress, done / len(chosen), (done + 1) / len(chosen))
            chunks = [
                row_wise[group](part)
                for part in in_chunks(
                    pairs,
                    ENCODER_CHUNK if group == "encoder" else FEATURE_CHUNK,
                    share,
                    f"{group} features:",
                )
            ]
            blocks.append(np.concatenate(chunks) if chunks else row_wise[group](pairs))
    out: F64 = np.ascontiguousarray(np.column_stack(blocks))
    return out


# --- the model ---------------------------------------------------------------------------------


class RidgeModel:
    """Ridge regression on standardised features, ``α`` by k-fold Pearson (shuffled folds,
    seeded), refit on all the data: ``ŷ = ((x − mean) / scale) · coef + intercept``."""

    def __init__(
        self,
        feature_names: Sequence[str],
        *,
        seed: int = 0,
        folds: int = 5,
        alpha_grid: Sequence[float] = CombinedOptions().alpha_grid,
    ) -> None:
        if not alpha_grid or min(alpha_grid) <= 0:
            raise OptionsError("the alpha grid must hold positive numbers")
        if folds < 2:
            raise OptionsError(f"folds must be an integer ≥ 2, got {folds!r}")
        self.feature_names = tuple(feature_names)
        self.seed = int(seed)
        self.folds = int(folds)
        self.alpha_grid = tuple(float(a) for a in alpha_grid)
        self.mean = np.zeros(0)
        self.scale = np.ones(0)
        self.coef = np.zeros(0)
        self.intercept = 0.0
        self.hyperparameters: dict[str, float] = {}
        self.cv_score = math.nan

    @staticmethod
    def _solve(x: F64, y: F64, alpha: float) -> tuple[F64, F64, F64, float]:
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        z = (x - mean) / scale
        coef = np.linalg.solve(z.T @ z + alpha * np.eye(z.shape[1]), z.T @ (y - y.mean()))
        return mean, scale, coef, float(y.mean())

    def fit(self, x: F64, y: F64) -> RidgeModel:
        from sklearn.model_selection import KFold

        from scoring.mt.classifier import cross_validation_refusal

        refusal = cross_validation_refusal(y, folds=self.folds, classification=False)
        if refusal is not None:
            raise InputError(refusal)
        cv = KFold(self.folds, shuffle=True, random_state=self.seed)
        best: tuple[float, float] | None = None
        for alpha in self.alpha_grid:
            predicted = np.zeros_like(y)
            for train, test in cv.split(x):
                mean, scale, coef, intercept = self._solve(x[train], y[train], alpha)
                predicted[test] = ((x[test] - mean) / scale) @ coef + intercept
            r = pearson(y, predicted)
            r = -1.0 if r is None else r
            if best is None or r > best[0]:
                best = (r, alpha)
        assert best is not None
        self.cv_score, alpha = best
        self.mean, self.scale, self.coef, self.intercept = self._solve(x, y, alpha)
        self.hyperparameters = {"alpha": alpha}
        return self

    def predict(self, x: F64) -> F64:
        out: F64 = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "feature_names": list(self.feature_names),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "hyperparameters": self.hyperparameters,
            "cv_score": self.cv_score,
        }

    @classmethod
    def from_dict(
        cls,
        data: Any,
        feature_names: Sequence[str],
        *,
        seed: int = 0,
        folds: int = 5,
        alpha_grid: Sequence[float] = CombinedOptions().alpha_grid,
    ) -> RidgeModel:
        model = cls(feature_names, seed=seed, folds=folds, alpha_grid=alpha_grid)
        width = len(model.feature_names)
        try:
            arrays = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef")]
            intercept = float(data["intercept"])
            model.hyperparameters = {str(k): float(v) for k, v in data["hyperparameters"].items()}
            model.cv_score = float(data.get("cv_score", math.nan))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise FormatError(f"field 'estimator': malformed ridge model ({error!r})") from None
        if any(a.shape != (width,) or not np.all(np.isfinite(a)) for a in arrays):
            raise FormatError(f"field 'estimator': expected {width} finite values per array")
        if np.any(arrays[1] <= 0) or not math.isfinite(intercept):
            raise FormatError("field 'estimator': scales must be positive, intercept finite")
        model.mean, model.scale, model.coef = arrays
        model.intercept = intercept
        return model


MODEL_VERSION = 1


class CombinedModel:
    """The feature union of :func:`combined_features` and an RBF SVM (see the module docstring).

    ``task``: ``"regression"`` (SVR, ``C``/``γ``/``ε`` chosen by k-fold Pearson) or
    ``"classification"`` (SVC on 0/1 labels, ``C``/``γ`` by stratified k-fold accuracy).
    ``options`` (:class:`~scoring.scorers.options.CombinedOptions`): the feature ``groups``,
    ``ppdb`` (path of a PPDB lexical table for the aligner; ``None``: WordNet only; the path is
    stored, not the table), the ``learner`` (``"ridge"``: ridge regression, ``α`` from
    ``alpha_grid`` by k-fold Pearson, regression only) and the searches. ``γ`` is searched as
    ``factor / n_features``.
    """

    def __init__(self, task: str = "regression", options: CombinedOptions | None = None) -> None:
        self.options = options if options is not None else CombinedOptions()
        if task not in ("regression", "classification"):
            raise OptionsError(
                f"task must be regression or classification, got {task!r}", option="task"
            )
        if self.options.learner == "ridge" and task == "classification":
            raise OptionsError(
                "the ridge learner does regression only; use learner=svm", option="learner"
            )
        self.task = task
        self.info_refs: list[list[str]] = []
        self.svm: Any = None

    @property
    def feature_names(self) -> tuple[str, ...]:
        return feature_names(self.options.groups)

    def features(self, pairs: Sequence[TokenPair], progress: Progress | None = None) -> F64:
        """``(N, F)`` features of ``pairs`` (NIST weights from the training sentences)."""
        return combined_features(
            pairs,
            self.options.groups,
            ppdb=self.options.ppdb,
            info_refs=self.info_refs or None,
            progress=progress,
        )

    def fit(
        self,
        pairs: Sequence[TokenPair],
        targets: Sequence[float] | F64,
        x: F64 | None = None,
        *,
        progress: Progress | None = None,
    ) -> CombinedModel:
        """Train on ``pairs``; ``x``: their features if already computed with this model's
        settings and these pairs' sentences as NIST references. ``progress`` hears of each
        feature group and each fit of the grid search."""
        from scoring.mt.classifier import MtClassifier, MtRegressor
        from scoring.mt.features import normalise

        tagging = progress_part(progress, 0.0, 0.1)
        self.info_refs = []
        for part in in_chunks(pairs, FEATURE_CHUNK, tagging, "tagged"):  # a report per chunk
            self.info_refs += [normalise(s, resources.pos_tag(s)) for pair in part for s in pair]
        features = progress_part(progress, 0.1, 0.6)
        m = self.features(pairs, features) if x is None else np.asarray(x, dtype=np.float64)
        search = progress_part(progress, 0.6, 1.0)
        y = np.asarray(targets, dtype=np.float64)
        if m.shape != (len(pairs), len(self.feature_names)) or y.shape != (len(pairs),):
            raise InputError(
                f"{len(pairs)} pairs, features of shape {m.shape}, {y.shape[0]} targets"
            )
        o = self.options
        if o.learner == "ridge":
            self.svm = RidgeModel(
                self.feature_names, seed=o.seed, folds=o.folds, alpha_grid=o.alpha_grid
            ).fit(m, y)
        elif self.task == "classification":
            self.svm = MtClassifier(self.feature_names, o.svm()).fit(
                m, y.astype(np.int64), progress=search
            )
        else:
            self.svm = MtRegressor(self.feature_names, o.svm()).fit(m, y, progress=search)
        return self

    def predict(self, pairs: Sequence[TokenPair], x: F64 | None = None) -> F64:
        """Scores (regression) or 0/1 labels (classification), float64 ``(N,)``."""
        if self.svm is None:
            raise ModelError("the combined model is not trained")
        m = self.features(pairs) if x is None else x
        return np.asarray(self.svm.predict(m), dtype=np.float64)

    @property
    def hyperparameters(self) -> dict[str, float]:
        return dict(self.svm.hyperparameters) if self.svm is not None else {}

    def to_dict(self) -> dict[str, Any]:
        if self.svm is None:
            raise ModelError("the combined model is not trained")
        o = self.options
        return {
            "kind": "combined",
            "version": MODEL_VERSION,
            "task": self.task,
            "groups": list(o.groups),
            "feature_names": list(self.feature_names),
            "ppdb": o.ppdb,
            "seed": o.seed,
            "folds": o.folds,
            "c_grid": list(o.c_grid),
            "gamma_factors": list(o.gamma_factors),
            "epsilon_grid": list(o.epsilon_grid),
            "learner": o.learner,
            "alpha_grid": list(o.alpha_grid),
            "info_refs": self.info_refs,
            "estimator": self.svm.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> CombinedModel:
        """Rebuild a trained model from :meth:`to_dict` output; raises
        :class:`~scoring.errors.FormatError` naming the field at fault."""
        from scoring.mt.classifier import MtClassifier, MtRegressor

        if not isinstance(data, dict) or data.get("kind") != "combined":
            raise FormatError("not a combined model (field 'kind' is not 'combined')")
        if data.get("version") != MODEL_VERSION:
            raise FormatError(
                f"field 'version': combined model version {data.get('version')!r} is not "
                f"supported (this code reads {MODEL_VERSION})"
            )
        try:
            options = CombinedOptions.from_dict({key: data[key] for key in CombinedOptions.names()})
            model = cls(str(data["task"]), options)
            refs = data["info_refs"]
            if not isinstance(refs, list) or not all(
                isinstance(s, list) and all(isinstance(w, str) for w in s) for s in refs
            ):
                raise FormatError("field 'info_refs': expected lists of words")
            model.info_refs = [list(s) for s in refs]
        except KeyError as error:
            raise FormatError(f"field {error.args[0]!r} is missing") from None
        except OptionsError as error:
            raise FormatError(f"malformed combined model: {error}", field=error.option) from None
        if list(data.get("feature_names", [])) != list(model.feature_names):
            raise FormatError(
                "field 'feature_names': the saved features differ from this version's"
            )
        if "estimator" not in data:
            raise FormatError("field 'estimator' is missing")
        if options.learner == "ridge":
            model.svm = RidgeModel.from_dict(
                data["estimator"],
                model.feature_names,
                seed=options.seed,
                folds=options.folds,
                alpha_grid=options.alpha_grid,
            )
        else:
            svm_class = MtClassifier if model.task == "classification" else MtRegressor
            model.svm = svm_class.from_dict(data["estimator"])
        if model.svm.feature_names != model.feature_names:
            raise FormatError("field 'estimator': its features differ from the model's")
        return model
