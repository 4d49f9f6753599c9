"""The raw vignette datasets of mergingTools, bundled for demos, widgets and tests."""

from __future__ import annotations

from importlib import resources

import pandas as pd

from perfweave.errors import PerfweaveError

_FILES = {"hrm": "data_hrm_raw_vignette.csv", "much": "data_much_raw_vignette.csv"}

#: the number of PMCs the vignette experiments were measured with
VIGNETTE_N_PMCS = 6


def load_vignette(name: str) -> pd.DataFrame:
    """Raw vignette data: ``'hrm'`` (1000 x 18, 3 subexperiments) or ``'much'`` (1000 x 144).

    Columns are event codes as R names them (``X1``, ``X1.1``, ...); pass the result to
    :func:`process_raw_experiments` with ``n_pmcs=6``. GPL-3 data of mergingTools 1.0.1.
    """
    try:
        file = _FILES[name]
    except KeyError:
        raise PerfweaveError(
            f"unknown vignette {name!r}: expected one of {', '.join(map(repr, _FILES))}"
        ) from None
    with resources.files("perfweave.merge").joinpath("data").joinpath(file).open("rb") as fh:
        return pd.read_csv(fh)
