"""Benchmarks run by ``make bench``: each prints its figures beside a peer measured in the same
run and exits 1 when a target is missed (see benchmarks/README.md)."""
