"""Columns of numpy arrays to widget-message buffers and back, with exact dtypes.

A message carries a JSON header ``[{"key", "dtype", "shape"}, ...]`` and one binary buffer
per column (two for a string column: UTF-8 bytes and uint32 end offsets). The front end
(``js/src/lib/columns.js``) views each buffer as the typed array of the same dtype, so an
int64 count arrives as a BigInt64Array and a float64 as a Float64Array: nothing is cut to
float32/int32 and nothing is sent as one JSON object per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError

#: dtypes the front end has a typed array for (little-endian on the wire)
DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
DTYPES += ("float32", "float64")


def pack(columns: Mapping[str, np.ndarray | Sequence[str]]) -> tuple[list[dict], list[bytes]]:
    """Header and buffers for ``columns`` (numeric arrays, or sequences of str)."""
    header: list[dict[str, Any]] = []
    buffers: list[bytes] = []
    for key, col in columns.items():
        if isinstance(col, np.ndarray) and col.dtype.kind in "biuf":
            arr = col.astype(col.dtype.newbyteorder("<"), copy=False)
            if arr.dtype.kind == "b":
                arr = arr.astype(np.uint8)
            if arr.dtype.name not in DTYPES:
                raise ShapeError(f"column {key!r}: dtype {arr.dtype} cannot cross to the browser")
            header.append({"key": key, "dtype": arr.dtype.name, "shape": list(arr.shape)})
            buffers.append(np.ascontiguousarray(arr).tobytes())
        else:
            data, ends = _utf8(col)
            header.append({"key": key, "dtype": "str", "shape": [len(ends)]})
            buffers += [data, ends.tobytes()]
    return header, buffers


def _utf8(strings: Sequence[Any]) -> tuple[bytes, np.ndarray]:
    """UTF-8 bytes of the strings one after another, and where each ends. A long column
    encodes each distinct string once (names repeat: a calltree's, a heatmap's labels)."""
    values = np.asarray(strings, dtype=object) if len(strings) >= 2048 else None
    if (
        values is None
        or values.ndim != 1
        or pd.api.types.infer_dtype(values, skipna=False) != "string"
    ):
        encoded = [str(s).encode("utf-8", "surrogatepass") for s in strings]
        ends = np.cumsum([len(b) for b in encoded], dtype=np.uint64).astype("<u4")
        return b"".join(encoded), ends
    codes, uniques = pd.factorize(values)
    once = np.array([str(u).encode("utf-8", "surrogatepass") for u in uniques], dtype=object)
    sizes = np.fromiter((len(b) for b in once), dtype=np.uint64, count=len(once))
    return b"".join(once[codes].tolist()), np.cumsum(sizes[codes]).astype("<u4")


def unpack(header: Sequence[dict], buffers: Sequence[bytes | memoryview]) -> dict[str, Any]:
    """Inverse of :func:`pack` (used by tests and by Python-side consumers)."""
    out: dict[str, Any] = {}
    i = 0
    for col in header:
        if col["dtype"] == "str":
            data = bytes(buffers[i])
            ends = np.frombuffer(bytes(buffers[i + 1]), "<u4").astype(np.int64)
            starts = np.concatenate([[0], ends[:-1]])
            out[col["key"]] = [
                data[s:e].decode("utf-8", "surrogatepass") for s, e in zip(starts, ends)
            ]
            i += 2
        else:
            arr = np.frombuffer(bytes(buffers[i]), np.dtype(col["dtype"]).newbyteorder("<"))
            out[col["key"]] = arr.reshape(col["shape"])
            i += 1
    return out


def with_state(payload: dict, buffers: list[bytes]) -> dict:
    """A first reply sent with a widget's state (the value of a ``first_*`` trait): the page
    draws it at once instead of asking the kernel, which may still be running the cell."""
    return {"reply": payload, "buffers": buffers}


def dropped(sent: dict) -> dict:
    """``sent`` (a :func:`with_state` value) taken out of the state once its view is gone.

    Its buffers stay where they were, emptied: a notebook's saved widget state keeps each
    buffer by its path until one replaces it (nbclient), and a saved page puts them back at
    those paths, which must still exist (else the page draws no widget at all).
    """
    return {"buffers": [b""] * len(sent.get("buffers", []))}


def js_number_text(value: float) -> str:
    """The text JavaScript's ``String(value)`` gives a float64 (``1024``, ``0.0002``,
    ``1e-7``): bqplot looks an axis's ``tick_labels`` up by it."""
    from decimal import Decimal

    x = float(value)
    if x == 0:
        return "0"
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if x < 0 else ""
    t = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    k = len(digits)
    n = int(t.exponent) + k  # the value is 0.<digits> x 10^n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        rest = f".{digits[1:]}" if k > 1 else ""
        body = f"{digits[0]}{rest}e{'+' if n - 1 > 0 else '-'}{abs(n - 1)}"
    return sign + body
