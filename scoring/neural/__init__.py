"""A pretrained sentence encoder run in numpy, and its fine-tuning into a link scorer.

- :mod:`scoring.neural.encoder` — MiniLM / MPNet word and sentence vectors (no torch).
- :mod:`scoring.neural.finetune` — the encoder fine-tuned as a cross-encoder over word pairs.
"""
