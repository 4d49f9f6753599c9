"""Color index of heatmap blocks: what the page's lookup table draws for each value."""

from __future__ import annotations

import numpy as np

from perfweave.errors import ShapeError


def color_index(values: np.ndarray, scale: str) -> tuple[np.ndarray, float, float]:
    """uint8 color of every value (0: zero, 1..255 low to high) and the scale's range."""
    v = values.astype(np.float64)
    pos = v > 0
    out = np.zeros(v.shape, np.uint8)
    if not pos.any():
        return out, 0.0, 0.0
    hi = float(v[pos].max())
    if scale == "log":
        lo = float(v[pos].min())
        if hi > lo:
            t = (np.log(v[pos]) - np.log(lo)) / (np.log(hi) - np.log(lo))
        else:
            t = np.ones(int(pos.sum()))
    elif scale == "linear":
        lo = 0.0
        t = v[pos] / hi
    else:
        raise ShapeError(f"unknown color scale {scale!r}; choose linear or log")
    out[pos] = 1 + np.clip(np.floor(t * 254.999), 0, 254).astype(np.uint8)
    return out, lo, hi
