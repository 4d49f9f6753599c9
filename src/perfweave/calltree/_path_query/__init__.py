"""Hatchet's call-path query language over perfweave's columnar graph (private parts).

``engine`` matches a pattern of per-step node masks with array propagation over the CSR
children/parents arrays; ``nodes`` is the node-level view of a frame those masks are
computed on; ``object_dialect`` turns object-dialect dicts (``{"name": "MPI_.*"}``) and
``conditions`` string-dialect ``WHERE`` conditions into masks, column-wise;
``string_dialect`` parses ``MATCH ... WHERE``. The public surface is
:mod:`perfweave.calltree.path_query`.
"""
