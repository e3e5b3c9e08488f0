"""Edit-rate scorers: TER (Snover et al. 2006), TERp (Snover et al. 2009) and PERP (Heilman &
Madnani 2012).

- :mod:`scoring.edit.ter` — TER with shifts, edit for edit as tercom 0.8.0.
- :mod:`scoring.edit.terp` — TERp: stem, synonym and phrase substitutions with tunable costs.
- :mod:`scoring.edit.perp` — PERP: TERp's edits as features of an averaged perceptron.
"""
