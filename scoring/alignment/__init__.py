"""Alignments and what is measured on them (Cohn, Callison-Burch & Lapata 2008, §3).

- :mod:`scoring.alignment.links` — :class:`Alignment`, the one value type for sure/possible links
  (bounds, Pharaoh notation, matrices).
- :mod:`scoring.alignment.phrases` — consistent phrase pairs with the atomic/composite split.
- :mod:`scoring.alignment.metrics` — precision, recall, F1 and AER over words and phrase pairs.
- :mod:`scoring.alignment.agreement` — the Monte Carlo chance-corrected agreement Ĉ.
- :mod:`scoring.alignment.kappa` — Fleiss κ and Krippendorff's α over alignment cells.
- :mod:`scoring.alignment.reports` — the paper's Tables 3–5 and Figure 4 for a corpus.
"""

from scoring.alignment.links import Alignment, Link

__all__ = ["Alignment", "Link"]
