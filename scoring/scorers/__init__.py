"""One interface over every similarity scorer, and the combined scorer.

- :mod:`scoring.scorers.base` — the registry: ``scorer_kinds``, ``parse_options``,
  ``scorer_from_dict`` and the common ``fit`` / ``score`` / ``to_dict`` contract.
- :mod:`scoring.scorers.combined` — every family's features in one learner.
- :mod:`scoring.scorers.papers` — the figures the papers report, printed beside ours.
"""
