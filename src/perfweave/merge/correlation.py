"""Correlation matrix of all HEMs from the subexperiments that read each pair together.

For every pair of HEMs, the rows of each subexperiment holding both are pooled after
removing that subexperiment's outliers (z-score >= 3 of the squared distance from the
subexperiment's means), and one Pearson correlation is taken over the pooled rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import pandas as pd

from perfweave.errors import MergeError
from perfweave.merge._blocks import float_blocks, keep_mask


@cache
def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Column index pairs (a < b) of a k-column block."""
    return np.triu_indices(k, 1)


def correlation_matrix(subexperiments: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """HEM x HEM Pearson correlations, labelled by HEM name in order of first appearance.

    Differs from mergingTools on purpose: there, a subexperiment with no outlier for a
    pair contributes no rows at all (an indexing slip, ``x[-integer(0), ]``); here it
    contributes all its rows. A pair of HEMs never read together raises :class:`MergeError`.
    """
    return correlation_from_blocks(float_blocks(subexperiments))


def correlation_from_blocks(blocks: list[tuple[list[str], np.ndarray]]) -> pd.DataFrame:
    """:func:`correlation_matrix` of subexperiments given as (names, float values) blocks."""
    hems = list(dict.fromkeys(name for names, _ in blocks for name in names))
    h = len(hems)
    pos = {name: i for i, name in enumerate(hems)}
    # pooled sufficient statistics per (i, j) pair, i < j, merged block by block
    count = np.zeros((h, h))
    mean_x = np.zeros((h, h))
    mean_y = np.zeros((h, h))
    cxx = np.zeros((h, h))
    cyy = np.zeros((h, h))
    cxy = np.zeros((h, h))
    for names, values in blocks:
        k = len(names)
        if k < 2:
            continue
        gid = np.array([pos[n] for n in names])
        a, b = _pairs(k)
        swap = gid[a] > gid[b]
        a, b = np.where(swap, b, a), np.where(swap, a, b)  # x is the earlier HEM
        sq = (values - values.mean(axis=0)) ** 2
        keep = keep_mask(sq[:, a] + sq[:, b])  # rows x pairs
        x, y = values[:, a], values[:, b]
        n_b = keep.sum(axis=0).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = np.where(keep, x, 0).sum(axis=0) / n_b
            my = np.where(keep, y, 0).sum(axis=0) / n_b
        dx = np.where(keep, x - mx, 0)
        dy = np.where(keep, y - my, 0)
        i, j = gid[a], gid[b]
        # Chan et al.'s pairwise update of the pooled centred sums (stable for large counts)
        n_a = count[i, j]
        total = n_a + n_b
        with np.errstate(invalid="ignore", divide="ignore"):
            ddx = mx - mean_x[i, j]
            ddy = my - mean_y[i, j]
            w = np.where(total > 0, n_a * n_b / total, 0)
            upd = n_b > 0
            cxx[i, j] += np.where(upd, (dx * dx).sum(axis=0) + w * ddx * ddx, 0)
            cyy[i, j] += np.where(upd, (dy * dy).sum(axis=0) + w * ddy * ddy, 0)
            cxy[i, j] += np.where(upd, (dx * dy).sum(axis=0) + w * ddx * ddy, 0)
            mean_x[i, j] += np.where(upd, ddx * n_b / total, 0)
            mean_y[i, j] += np.where(upd, ddy * n_b / total, 0)
        count[i, j] = total

    iu, ju = np.triu_indices(h, 1)
    never = count[iu, ju] == 0
    if never.any():
        pairs = [f"({hems[p]}, {hems[q]})" for p, q in zip(iu[never], ju[never], strict=True)]
        shown = ", ".join(pairs[:5]) + (f" and {len(pairs) - 5} more" if len(pairs) > 5 else "")
        raise MergeError(
            f"{len(pairs)} HEM pair(s) never read in the same subexperiment: {shown}; "
            "MUCH needs every pair co-measured (see pair_covering_design)"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cxy[iu, ju] / np.sqrt(cxx[iu, ju] * cyy[iu, ju])
    flat = ~np.isfinite(r)
    if flat.any():
        p, q = iu[flat][0], ju[flat][0]
        raise MergeError(
            f"correlation of ({hems[p]}, {hems[q]}) is undefined: one of them is constant on "
            "the rows where both were read"
        )
    out = np.eye(h)
    out[iu, ju] = r
    out[ju, iu] = r
    return pd.DataFrame(out, index=pd.Index(hems), columns=pd.Index(hems))
