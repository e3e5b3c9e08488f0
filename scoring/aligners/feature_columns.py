"""The supervised aligner's feature columns: their names in order and the word lists and encoder
layers they are made of (:mod:`scoring.aligners.supervised` computes them)."""

from __future__ import annotations

from scoring.aligners import block_features, link_lexicon

#: Layers of the sentence encoder (:mod:`scoring.neural.encoder`; 0 = embeddings, 6 = last)
#: whose word vectors give the ``encoder*`` features: on RTE-2 (5-fold) layers 2, 4 and 6
#: gave 89.9 sure-link F1 against 89.6 for layers 3 and 6 and 89.2 without the encoder.
ENCODER_LAYERS = (2, 4, 6)
#: Layers of the larger encoder (all-mpnet-base-v2, 12 layers; option ``large_encoder``) whose
#: word vectors give the ``mpnet*`` features, the same four per layer.
MPNET_LAYERS = (3, 6, 8, 10, 12)
#: What each encoder layer gives of two words' vectors: four features.
SIMILARITY = ("cosine", "row_gap", "column_gap", "mutual_best")

FEATURES = (
    "identical",
    "lowercase",
    "stem",
    "wordnet",
    "ppdb",
    "lexical_choice",
    "source_punctuation",
    "target_punctuation",
    "source_stopword",
    "target_stopword",
    "prefix_similarity",
    "bigram_dice",
    "relative_distance",
    "em_posterior_st",
    "em_posterior_ts",
    "em_posterior_min",
    "em_viterbi_st",
    "em_viterbi_ts",
    "em_symmetrized",
    "neighbour_lexical",
    "neighbour_em",
    "neighbour_lexical_choice",
    "row_candidates",
    "column_candidates",
    "best_in_row",
    "best_in_column",
    "same_pos",
    "both_content_pos",
    "length_difference",
    "left_content_match",
    "right_content_match",
    "left_window_match",
    "right_window_match",
    "source_occurrences",
    "target_occurrences",
    "same_occurrence",
    "closest_in_column",
    "closest_in_row",
    "both_capitalized",
    "both_numeric",
    "containment",
    "source_function_word",
    "target_function_word",
    "source_idf",
    "target_idf",
    "min_idf",
    "wordnet_wup",
    "wordnet_derivation",
    "wordnet_hypernym",
    *(f"encoder{layer}_{name}" for layer in ENCODER_LAYERS for name in SIMILARITY),
    *(f"mpnet{layer}_{name}" for layer in MPNET_LAYERS for name in SIMILARITY),
)
#: Features of the pair alone (cached per pair), then its gaps and anchors (option ``blocks``)
#: and the corpus lexicon of annotated links (option ``lexicon``).
BASE_FEATURES = len(FEATURES)
FEATURES = (*FEATURES, *block_features.FEATURES, *link_lexicon.FEATURES)

#: Frequent function words and punctuation, each its own value of the ``*_function_word``
#: features (−1 for any other word): "the" and "a", "of" and "," do not align alike.
FUNCTION_WORDS = (
    "the", "a", "an", "of", "in", "to", "and", "for", "on", "by", "with", "at", "from", "as",
    "is", "was", "are", "were", "be", "has", "have", "had", "that", "this", "it", "its", "his",
    "her", "their", "he", "she", "they", "not", "will", "would", "said",
    ",", ".", "''", "``", "'s", "-", "(", ")", ":", "$",
)  # fmt: skip
FUNCTION_INDEX = {w: k for k, w in enumerate(FUNCTION_WORDS)}
