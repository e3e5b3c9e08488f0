"""Reads of the annotate app, one module per resource. Nothing here writes."""
