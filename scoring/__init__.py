"""Pure algorithms for paraphrase alignment corpora.

Nothing in this package imports Django: it depends only on numpy, numba, nltk, scipy and
scikit-learn, so researchers can use it on their own files (``python -m scoring --help``).
"""

__version__ = "0.1.0"
