"""Writes of the annotate app, one module per entity."""
