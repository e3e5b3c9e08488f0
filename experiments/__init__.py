"""Reproductions of the papers' experiments and one-off studies, run by ``make reproduce``
(see experiments/README.md)."""
