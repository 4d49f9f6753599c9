"""HRM merge: line subexperiments up by the rank of an anchor HEM measured in each of them.

Every subexperiment reads the anchor HEM (e.g. PROCESSOR_CYCLES). Sorting each one by its
anchor and putting them side by side pairs the k-th fastest run of every subexperiment;
the anchor itself becomes the quantiles of all its pooled readings (Vilardell et al.,
IEEE TCAD 2020).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from perfweave.errors import MergeError
from perfweave.merge.quantiles import quantile_type2, r_seq_probs
from perfweave.merge.subexperiments import make_unique


def _check(subexperiments: Sequence[pd.DataFrame], anchor_hem: str) -> None:
    if len(subexperiments) == 0:
        raise MergeError("hrm_merge: no subexperiments given")
    missing = [i for i, s in enumerate(subexperiments) if anchor_hem not in s.columns]
    if missing:
        have = ", ".join(map(str, subexperiments[missing[0]].columns))
        raise MergeError(
            f"anchor HEM {anchor_hem!r} is absent from subexperiment(s) {missing} "
            f"(subexperiment {missing[0]} has: {have}); HRM needs it in every subexperiment"
        )
    rows = [len(s) for s in subexperiments]
    if len(set(rows)) > 1:
        raise MergeError(
            f"subexperiments have unequal row counts {rows}; HRM pairs runs by anchor rank, so "
            "every subexperiment needs the same number of runs (drop rows or resample first)"
        )
    if rows[0] == 0:
        raise MergeError("subexperiments have no rows; HRM needs at least one run in each")
    for i, sub in enumerate(subexperiments):
        if sub[anchor_hem].isna().any():
            raise MergeError(f"anchor HEM {anchor_hem!r} has missing values in subexperiment {i}")


def hrm_merge(subexperiments: Sequence[pd.DataFrame], anchor_hem: str) -> pd.DataFrame:
    """Merge subexperiments that all contain ``anchor_hem`` into one table (HRM).

    Each subexperiment is sorted by the anchor (stable, so ties keep their run order), the
    anchor column is removed and the rest are put side by side (a HEM read in several subexperiments
    keeps every copy, the repeats named ``NAME.1``, ...); the first column is the
    anchor, the type-2 quantiles of all pooled anchor readings at ``n_rows`` evenly spaced
    probabilities from 0 to 1. Equal row counts are required (mergingTools recycles
    silently). The inputs are not modified.
    """
    _check(subexperiments, anchor_hem)
    n_rows = len(subexperiments[0])
    names: list[str] = []
    columns: list[np.ndarray] = []
    anchors = []
    for sub in subexperiments:
        anchor = sub[anchor_hem].to_numpy()
        order = np.argsort(anchor, kind="stable")
        anchors.append(anchor)
        for col in sub.columns:
            if col != anchor_hem:
                names.append(col)
                columns.append(sub[col].to_numpy()[order])
    quantiles = quantile_type2(np.concatenate(anchors), r_seq_probs(n_rows))
    labels = make_unique([anchor_hem, *names])
    return pd.DataFrame(dict(zip(labels, [quantiles, *columns], strict=True)))
