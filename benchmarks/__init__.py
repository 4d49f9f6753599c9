"""perfweave benchmarks: ``python -m benchmarks PART`` (calltree, ensemble, counts, classes, merge, all)."""
