"""Hatchet's call-path query language over perfweave's columnar graph (private parts).

``engine`` matches a pattern of per-step node masks with array propagation over the CSR
children/parents arrays; ``predicates`` turns object-dialect dicts and string-dialect
conditions into those masks column-wise; ``string_dialect`` parses ``MATCH ... WHERE``.
The public surface is :mod:`perfweave.calltree.path_query`.
"""
