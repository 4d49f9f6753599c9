"""What readers outside calltree share with calltree's readers (an Ensemble's Thicket
JSON, Caliper timeseries, Extra-P's inputs), so that every file is read by one rule:

- :func:`load_json`: JSON from a path, a JSON string or a parsed object, of any depth;
  malformed JSON a ParseError naming the file, line and column;
- :func:`to_int`, :func:`is_int64`: integers of a file (counts, ids, ranks) within int64,
  or a ParseError naming the value;
- :data:`CALIPER_RENAMES`, :func:`node_order_key`: Caliper's attribute names as the
  columns every reader uses, and the sibling order its node-order attribute records.

The implementations are in ``readers/_common.py``, beside the rest that only calltree's
readers use.
"""

from perfweave.calltree.readers._common import (
    CALIPER_RENAMES,
    is_int64,
    load_json,
    node_order_key,
    to_int,
)

__all__ = ["CALIPER_RENAMES", "is_int64", "load_json", "node_order_key", "to_int"]
