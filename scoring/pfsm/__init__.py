"""pFSM and pPDA: probabilistic edit-distance regression (Wang & Manning 2012; Wang & Cer 2012).

Wang & Manning 2012 and Wang & Cer 2012. A probabilistic finite state machine whose states are edit
operations
(insert, delete, same-word / same-lemma / same-punctuation substitution, WordNet-synonym and
paraphrase substitution, bigram block substitutions) scores every edit sequence that turns the
source sentence into the target with log-linear transition features; ``y`` is the log-sum of
those scores over all sequences, and ``y / (|s1| + |s2|) + α`` predicts the gold score. The
pushdown extension (pPDA) adds non-nested jumps that let a short stretch be edited out of order.

Jump constraints (Wang & Manning 2012, §2.2), with ``D`` the jump limit:

- a forward jump skips ``1..D`` tokens of one side (leaving a gap) and is followed at once by a
  substitution; the machine then edits past the landing point, at most ``D`` tokens on the jump
  side (so the resuming jump below is within the limit too);
- after at least one substitution it jumps back to the start of the gap; there every operation
  is allowed except the jump side's own one (insert when the gap is in the target, delete when it
  is in the source) until a substitution has been made;
- on reaching the landing point the only move is the jump forward to where it left off, which
  clears the memory. Jumps do not nest.

Public API: :class:`PFSMScorer` (``fit``, ``score``, ``align`` — the Viterbi edit sequence as an
:class:`~scoring.alignment.links.Alignment` —, ``link_posteriors`` as per-link confidences, and
``to_dict``/``from_dict``); the dynamic programs are in :mod:`scoring.pfsm.lattice`, the states
and features in :mod:`scoring.pfsm.features`.
"""

from scoring.pfsm.features import (
    N_FEATURES,
    STATE_NAMES,
    Lexicon,
    MatchTables,
    ParaphraseTable,
    feature_names,
)
from scoring.pfsm.lattice import (
    EditOp,
    expected_counts,
    link_posteriors,
    log_partition,
    viterbi,
)
from scoring.pfsm.model import PFSMScorer, grouped_training_objective, training_objective

__all__ = [
    "N_FEATURES",
    "STATE_NAMES",
    "EditOp",
    "Lexicon",
    "MatchTables",
    "PFSMScorer",
    "ParaphraseTable",
    "expected_counts",
    "feature_names",
    "grouped_training_objective",
    "link_posteriors",
    "log_partition",
    "training_objective",
    "viterbi",
]
