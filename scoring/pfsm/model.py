"""The pFSM/pPDA regression scorer: training by L-BFGS, prediction, Viterbi alignment, saving.

Wang & Manning 2012, §2 (Eq. 3) and §2.3; Wang & Cer 2012, §2.2. The prediction for a pair is
``y / (|s1| + |s2|) + α`` with ``y`` the log-sum over all edit sequences; training minimises

    L(θ, α) = Σ_k [ŷ_k − (y_k / (|s1_k| + |s2_k|) + α)]² + λ ‖θ‖²

(λ = 5, α not regularised) with L-BFGS from ``θ = 0, α = 0``. Features seen fewer than
``cutoff`` (5) times in the training corpus are dropped (their weight stays 0). A feature is
"seen" once for every edge of a training pair's lattice that carries it and lies on at least one
complete edit sequence: Wang & Manning 2012, §4.1.2 reports the same-word feature "fired 875,375
times" on
about 3,300 pairs, far more than the matched words, so its counts are over the lattice, not one
path.

Pooled training (Wang & Cer's (2012) scheme *All*) and the starting point: ours, not the papers'.
Wang & Manning 2012, §2.3 and Wang & Cer 2012, §2.2 call Eq. 3 convex; it is not (the square of a
convex function
minus a target), and it has stationary points of two kinds. On the three STS-2012 training files
pooled, L-BFGS from ``θ = 0, α = 0`` ends at one where the insert/delete transition weights are
large (``trans:DEL>DEL`` ≈ +5, ``trans:INS>DEL`` and ``stop:*`` ≈ −2.4), every substitution path
has negligible mass so the substitution gradients vanish, and ``y`` is about
``a (|s1|+|s2|) − b``: the prediction is a function of ``1/(|s1| + |s2|)`` alone, which fits the
subsets' mean scores (they differ in length and mean) and ranks nothing within a subset (Pearson
≈ 0 on every STS-2012 test file, against 0.38–0.61 in Wang & Cer 2012, Table 1). The other kind
ranks
within subsets; on STS-2012 it is also much lower (Eq. 3 = 3,192 against 4,095 for the pFSM),
but on small synthetic sets with extreme length/mean differences the length solution can be
slightly lower, so the choice is by starting point, not by objective value. When ``fit`` is
given ``groups`` (the training subset of each pair, two or more distinct) it first minimises
Eq. 3 with one unregularised offset ``α_g`` per group from ``θ = 0``
(:func:`grouped_training_objective`: the subsets' different means are then nothing ``θ`` must
explain), and from that ``θ``, with
``α`` at its optimum, minimises the papers' exact Eq. 3. The model, the objective it ends at a
stationary point of, and the prediction rule stay the papers'. Without ``groups`` (or with one
group) ``fit`` is the papers' procedure exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

from scoring.alignment.links import Alignment, Link
from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.measures import pearson
from scoring.pfsm.features import (
    N_FEATURES,
    SUBSTITUTION_STATES,
    Lexicon,
    MatchTables,
    ParaphraseTable,
    check_tokens,
    feature_names,
)
from scoring.pfsm.lattice import CompiledPairs, EditOp, link_posteriors, viterbi
from scoring.progress import Progress, progress_part, progress_report
from scoring.scorers.options import PFSMOptions, PPDAOptions

FORMAT_NAME = "scoring.pfsm"
FORMAT_VERSION = 1
KINDS = ("pfsm", "ppda")

TokenPair = tuple[Sequence[str], Sequence[str]]


def training_objective(
    packed: CompiledPairs,
    params: npt.NDArray[np.float64],
    kept: npt.NDArray[np.int64],
    targets: npt.NDArray[np.float64],
    l2: float,
) -> tuple[float, npt.NDArray[np.float64]]:
    """Wang & Manning 2012, Eq. 3 and its gradient. ``params = [θ_kept…, α]``; ``kept`` indexes the
    features that survived the cut-off (the others have weight 0)."""
    w = np.zeros(N_FEATURES)
    theta = params[:-1]
    w[kept] = theta
    loss, grad_w, g_alpha = packed.squared_error(w, float(params[-1]), targets)
    value = loss + l2 * float(theta @ theta)
    grad = np.empty_like(params)
    grad[:-1] = grad_w[kept] + 2.0 * l2 * theta
    grad[-1] = g_alpha
    return value, grad


def grouped_training_objective(
    packed: CompiledPairs,
    params: npt.NDArray[np.float64],
    kept: npt.NDArray[np.int64],
    targets: npt.NDArray[np.float64],
    group_index: npt.NDArray[np.int64],
    l2: float,
) -> tuple[float, npt.NDArray[np.float64]]:
    """Eq. 3 with one offset per group (ours; only used to find a starting point, see the module
    docstring) and its gradient: ``Σ_k [ŷ_k − (y_k/(|s1_k|+|s2_k|) + α_{g(k)})]² + λ‖θ‖²``.

    ``params = [θ_kept…, α_0 … α_{G−1}]`` with ``G = max(group_index) + 1``; ``group_index``
    ``(P,)`` gives each pair's group. The offsets are not regularised."""
    n_groups = int(group_index.max()) + 1
    w = np.zeros(N_FEATURES)
    theta = params[:-n_groups]
    offsets = params[-n_groups:]
    w[kept] = theta
    loss, grad_w, resid = packed.squared_error_residuals(w, targets - offsets[group_index])
    value = loss + l2 * float(theta @ theta)
    grad = np.empty_like(params)
    grad[:-n_groups] = grad_w[kept] + 2.0 * l2 * theta
    grad[-n_groups:] = -2.0 * np.bincount(group_index, weights=resid, minlength=n_groups)
    return value, grad


def _group_index(
    groups: Sequence[Any] | None, count: int
) -> tuple[npt.NDArray[np.int64], list[str]]:
    """Integer group of each pair and the group labels (sorted as strings)."""
    if groups is None:
        return np.zeros(count, dtype=np.int64), []
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence):
        raise InputError(f"groups must be a list with one label per pair, got {type(groups)}")
    if len(groups) != count:
        raise InputError(f"{count} pairs but groups has {len(groups)} labels")
    labels = []
    for index, label in enumerate(groups):
        if not isinstance(label, str | int) or isinstance(label, bool) or label == "":
            raise InputError(f"group {index} is {label!r}, not a non-empty string or integer")
        labels.append(str(label))
    names = sorted(set(labels))
    lookup = {name: g for g, name in enumerate(names)}
    return np.array([lookup[label] for label in labels], dtype=np.int64), names


def _iterations(
    progress: Progress | None, max_iter: int
) -> Callable[[npt.NDArray[np.float64]], None] | None:
    """An L-BFGS callback telling ``progress`` of each iteration, as a share of ``max_iter``."""
    if progress is None:
        return None
    report, done = progress, [0]

    def iterated(params: npt.NDArray[np.float64]) -> None:
        done[0] += 1
        report(done[0] / max_iter, f"L-BFGS iteration {done[0]} (at most {max_iter})")

    return iterated


class PFSMScorer:
    """Probabilistic edit-distance regression: a pFSM, or with :class:`PPDAOptions` a pPDA
    with jumps up to ``jump_limit`` (the papers use 1, 2, 5, 10). The options
    (:mod:`scoring.scorers.options`): ``synonyms``, the WordNet substitution state;
    ``paraphrase_table``, the path of a table for the paraphrase substitution state (or give
    the table itself as ``paraphrases``); ``block_edits``, the bigram block substitutions (the
    papers' ``n2``); ``l2`` is λ, ``cutoff`` the feature count cut-off, ``max_iter`` the L-BFGS
    iteration limit.

    Pairs are ``(source_tokens, target_tokens)``; the model edits the source into the target.
    """

    def __init__(
        self,
        options: PFSMOptions | None = None,
        *,
        paraphrases: ParaphraseTable | None = None,
    ) -> None:
        self.options = options if options is not None else PFSMOptions()
        if not isinstance(self.options, PFSMOptions):
            raise OptionsError(f"a PFSMScorer takes PFSMOptions or PPDAOptions, not {options!r}")
        if paraphrases is not None and self.options.paraphrase_table is not None:
            raise OptionsError("give the paraphrase table as a path or as a table, not both")
        self.kind = "ppda" if isinstance(self.options, PPDAOptions) else "pfsm"
        self.jump_limit = self.options.jump_limit if isinstance(self.options, PPDAOptions) else 0
        self.paraphrase_path = self.options.paraphrase_table
        self._paraphrases = paraphrases
        if self.paraphrase_path is not None:
            self._paraphrases = ParaphraseTable.load(self.paraphrase_path)
        self._lexicon: Lexicon | None = None
        self.weights: npt.NDArray[np.float64] | None = None
        self.alpha = 0.0
        self.kept: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.training: dict[str, Any] = {}

    # --- inputs --------------------------------------------------------------------------------

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = Lexicon(synonyms=self.options.synonyms, paraphrases=self._paraphrases)
        return self._lexicon

    def match_tables(self, source: Sequence[str], target: Sequence[str]) -> MatchTables:
        """Substitutions this model allows in one pair (blocks removed if ``block_edits`` off)."""
        src = check_tokens(source, "source")
        tgt = check_tokens(target, "target")
        tables = self.lexicon.match_tables(src, tgt)
        if not self.options.block_edits:
            tables.block[...] = -1
        return tables

    def _pairs_tables(self, pairs: Sequence[Any]) -> list[MatchTables]:
        if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence):
            raise InputError(f"pairs must be a list of (source, target), got {type(pairs)}")
        if len(pairs) == 0:
            raise InputError("no pairs given")
        out = []
        for index, pair in enumerate(pairs):
            if hasattr(pair, "source_tokens") and hasattr(pair, "target_tokens"):
                source, target = pair.source_tokens, pair.target_tokens
            elif isinstance(pair, Sequence) and not isinstance(pair, str) and len(pair) == 2:
                source, target = pair
            else:
                raise InputError(f"pair {index}: expected (source tokens, target tokens)")
            try:
                out.append(self.match_tables(source, target))
            except InputError as error:
                raise InputError(f"pair {index}: {error}") from None
        return out

    # --- training ------------------------------------------------------------------------------

    def fit(
        self,
        pairs: Sequence[Any],
        targets: Sequence[float] | npt.NDArray[np.float64],
        groups: Sequence[str | int] | None = None,
        *,
        progress: Progress | None = None,
    ) -> PFSMScorer:
        """Train on pairs with gold scores; returns ``self``. ``self.training`` records the run.

        ``groups``: the training subset of each pair (pooled training). With two or more
        distinct groups L-BFGS on Eq. 3 starts from the grouped-offset solution instead of
        ``θ = 0`` (ours, see the module docstring); otherwise the papers' procedure exactly.
        ``progress`` hears of the lattices and of each L-BFGS iteration (as a share of
        ``max_iter``, the most it may take)."""
        started = time.perf_counter()
        progress_report(progress, 0.0, f"edit lattices of {len(pairs)} pairs")
        tables = self._pairs_tables(pairs)
        y_hat = np.asarray(targets, dtype=np.float64)
        if y_hat.shape != (len(tables),):
            raise InputError(f"{len(tables)} pairs but targets has shape {y_hat.shape}")
        if not np.all(np.isfinite(y_hat)):
            bad = int(np.flatnonzero(~np.isfinite(y_hat))[0])
            raise InputError(f"target {bad} is {float(y_hat[bad])}, not a finite number")
        group_index, group_names = _group_index(groups, len(tables))
        packed = CompiledPairs(tables, self.jump_limit)
        featurized = time.perf_counter()
        support = packed.support()
        kept = np.flatnonzero(support >= self.options.cutoff).astype(np.int64)
        evaluations = 0

        def fun(params: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
            nonlocal evaluations
            evaluations += 1
            return training_objective(packed, params, kept, y_hat, self.options.l2)

        options = {"maxiter": self.options.max_iter}
        x0 = np.zeros(kept.size + 1)
        initial, _ = fun(x0)
        start: dict[str, Any] = {"start": "zero"}
        grouped_stage = len(group_names) >= 2
        final_from = 0.55 if grouped_stage else 0.1
        if grouped_stage:  # ours: start L-BFGS from the grouped-offset solution
            grouped = minimize(
                lambda p: grouped_training_objective(
                    packed, p, kept, y_hat, group_index, self.options.l2
                ),
                np.zeros(kept.size + len(group_names)),
                jac=True,
                method="L-BFGS-B",
                options=options,
                callback=_iterations(
                    progress_part(progress, 0.1, 0.55, "grouped: "), self.options.max_iter
                ),
            )
            theta = grouped.x[: kept.size]
            w = np.zeros(N_FEATURES)
            w[kept] = theta
            x0 = np.append(theta, np.mean(y_hat - packed.log_partitions(w) / packed.norms))
            start = {
                "start": "grouped",
                "groups": {
                    name: int(np.sum(group_index == g)) for g, name in enumerate(group_names)
                },
                "group_offsets": dict(
                    zip(group_names, grouped.x[kept.size :].tolist(), strict=True)
                ),
                "objective_grouped_stage": float(grouped.fun),
                "iterations_grouped_stage": int(grouped.nit),
            }
        result = minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            options=options,
            callback=_iterations(progress_part(progress, final_from, 1.0), self.options.max_iter),
        )
        w = np.zeros(N_FEATURES)
        w[kept] = result.x[:-1]
        self.weights = w
        self.alpha = float(result.x[-1])
        self.kept = kept
        predictions = self._predict(packed)
        finished = time.perf_counter()
        self.training = {
            "pairs": len(tables),
            "features_total": N_FEATURES,
            "features_kept": int(kept.size),
            "lattice_edges": packed.edges,
            "objective_initial": float(initial),
            "objective_final": float(result.fun),
            "iterations": int(result.nit),
            "evaluations": evaluations,
            "converged": bool(result.success),
            "message": str(result.message),
            "train_pearson": pearson(predictions, y_hat),
            **start,
            "seconds_featurize": featurized - started,
            "seconds_total": finished - started,
        }
        return self

    # --- prediction ----------------------------------------------------------------------------

    def _require_fitted(self) -> npt.NDArray[np.float64]:
        if self.weights is None:
            raise ModelError("the scorer is not trained: call fit() or from_dict() first")
        return self.weights

    def _predict(self, packed: CompiledPairs) -> npt.NDArray[np.float64]:
        w = self._require_fitted()
        return packed.log_partitions(w) / packed.norms + self.alpha

    def log_partitions(self, pairs: Sequence[Any]) -> npt.NDArray[np.float64]:
        """``y`` (Wang & Manning 2012, Eq. 2) of every pair under the trained weights."""
        w = self._require_fitted()
        return CompiledPairs(self._pairs_tables(pairs), self.jump_limit).log_partitions(w)

    def score(self, pairs: Sequence[Any]) -> npt.NDArray[np.float64]:
        """Predicted scores ``y / (|s1| + |s2|) + α``, ``(P,)``."""
        self._require_fitted()
        return self._predict(CompiledPairs(self._pairs_tables(pairs), self.jump_limit))

    def edit_sequence(
        self, source: Sequence[str], target: Sequence[str]
    ) -> tuple[float, list[EditOp]]:
        """The best (Viterbi) edit sequence of one pair and its score ``Q(e)``."""
        w = self._require_fitted()
        return viterbi(self.match_tables(source, target), w, self.jump_limit)

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """Word alignment from the best edit sequence: every substitution links its tokens
        (a block substitution links all tokens of its two spans); links are sure."""
        _, ops = self.edit_sequence(source, target)
        links: list[Link] = []
        for op in ops:
            if op.state in SUBSTITUTION_STATES:
                links.extend(
                    (i, j) for i in range(op.i, op.i + op.di) for j in range(op.j, op.j + op.dj)
                )
        return Alignment.from_links(len(source), len(target), sure=links)

    def link_posteriors(
        self, source: Sequence[str], target: Sequence[str]
    ) -> npt.NDArray[np.float64]:
        """``(N, M)`` probability of each link over all edit sequences (forward-backward): a
        confidence for the links of :meth:`align` when the model prefills a grid."""
        w = self._require_fitted()
        return link_posteriors(self.match_tables(source, target), w, self.jump_limit)

    def feature_weights(self) -> dict[str, float]:
        """Weights of the features kept after the cut-off, by name."""
        w = self._require_fitted()
        names = feature_names()
        return {names[f]: float(w[f]) for f in self.kept}

    # --- saving --------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe saved model: parameters, kept feature names and weights, α, version."""
        self._require_fitted()
        if self._paraphrases is not None and self.paraphrase_path is None:
            raise ModelError(
                "a model built with an in-memory paraphrase table cannot be saved; "
                "pass the table's path instead"
            )
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "kind": self.kind,
            "jump_limit": self.jump_limit,
            "synonyms": self.options.synonyms,
            "paraphrase_table": self.paraphrase_path,
            "block_edits": self.options.block_edits,
            "l2": self.options.l2,
            "cutoff": self.options.cutoff,
            "max_iter": self.options.max_iter,
            "alpha": self.alpha,
            "weights": self.feature_weights(),
            "training": _json_safe(self.training),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str | Path | None = None) -> PFSMScorer:
        """Rebuild a saved model. Raises :class:`FormatError` naming the bad field; ``path`` (the
        file the dict came from) is quoted in the message."""

        def fail(message: str, field: str) -> FormatError:
            return FormatError(message, path=path, field=field)

        if not isinstance(data, Mapping):
            raise fail("a saved pFSM/pPDA model must be a JSON object", "model")
        if data.get("format") != FORMAT_NAME:
            raise fail(f"expected {FORMAT_NAME!r}, got {data.get('format')!r}", "format")
        if data.get("version") != FORMAT_VERSION:
            raise fail(
                f"unsupported version {data.get('version')!r} (this code reads {FORMAT_VERSION})",
                "version",
            )
        if data.get("kind") not in KINDS:
            raise fail(f"expected one of {', '.join(KINDS)}, got {data.get('kind')!r}", "kind")
        try:
            common = {
                "synonyms": data["synonyms"],
                "paraphrase_table": data["paraphrase_table"],
                "block_edits": data["block_edits"],
                "l2": data["l2"],
                "cutoff": data["cutoff"],
                "max_iter": data["max_iter"],
            }
            options = (
                PPDAOptions(jump_limit=data["jump_limit"], **common)
                if data["kind"] == "ppda"
                else PFSMOptions(**common)
            )
            model = cls(options)
        except KeyError as error:
            raise fail("missing", str(error.args[0])) from None
        except OptionsError as error:
            raise fail(str(error), "parameters") from None
        alpha = data.get("alpha")
        if (
            isinstance(alpha, bool)
            or not isinstance(alpha, int | float)
            or not math.isfinite(alpha)
        ):
            raise fail(f"must be a finite number, got {alpha!r}", "alpha")
        weights = data.get("weights")
        if not isinstance(weights, Mapping):
            raise fail("must be an object of feature name → weight", "weights")
        index = {name: f for f, name in enumerate(feature_names())}
        w = np.zeros(N_FEATURES)
        kept = []
        for name, value in weights.items():
            if name not in index:
                raise fail(f"unknown feature {name!r}", f"weights.{name}")
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise fail(f"must be a number, got {value!r}", f"weights.{name}")
            if not math.isfinite(value):
                raise fail(f"must be finite, got {value!r}", f"weights.{name}")
            w[index[name]] = float(value)
            kept.append(index[name])
        model.weights = w
        model.kept = np.array(sorted(kept), dtype=np.int64)
        model.alpha = float(alpha)
        training = data.get("training", {})
        model.training = dict(training) if isinstance(training, Mapping) else {}
        return model


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value
