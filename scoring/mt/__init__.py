"""MT metrics as paraphrase features (Finch, Hwang & Sumita 2005).

- :mod:`scoring.mt.metrics` — sentence BLEU, NIST, WER and PER (checked against mteval).
- :mod:`scoring.mt.features` — the feature vector of a sentence pair, both directions averaged.
- :mod:`scoring.mt.classifier` — RBF SVMs over those features: paraphrase classifier, score
  regressor.
"""
