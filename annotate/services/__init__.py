"""Writes of the annotate app, one module per entity (house style §1)."""
