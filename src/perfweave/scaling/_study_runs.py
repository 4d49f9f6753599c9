"""The runs of a scaling study as a person chooses among them (:meth:`ScalingStudy.run_table`):
the metadata that tell the runs apart, written to be read at a glance."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.scaling.study import ScalingStudy


def run_table(study: ScalingStudy, max_columns: int = 4) -> pd.DataFrame:
    """One row per run (indexed by run id, in the order of the parameter): its ``label``,
    the parameter, the group column (when grouping) and up to ``max_columns`` more metadata
    columns that tell the runs apart (values that differ between runs and are not a copy
    of the parameter or of the label; file paths keep only the parts that differ, a launch
    date reads as a date)."""
    meta = study.ensemble.metadata
    order = np.argsort(study.x, kind="stable")
    table = pd.DataFrame({"label": study.labels}, index=pd.Index(study.runs, name="run"))
    table[str(study.param)] = study.x
    if study.group_by is not None:
        table[str(study.group_by)] = study.groups
    shown = {str(study.param), str(study.group_by)}
    extra = 0
    for column in meta.columns:
        if extra == max_columns:
            break
        if str(column) in shown:
            continue
        values = meta[column]
        if values.map(lambda v: isinstance(v, (list, tuple, dict, set))).any():
            continue  # a list of libraries tells no run apart at a glance
        text = values.astype(str)
        if text.nunique() < 2:
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        if numbers.notna().all() and np.array_equal(numbers.to_numpy(float), study.x):
            continue  # another name for the parameter (jobsize = mpi.world.size)
        if str(column) == "file":
            values = pd.Series(distinct_parts(text.tolist()), index=values.index)
            if (values.to_numpy() == study.labels).all():
                continue  # the labels say it already (RAJAPerf: gcc10.3.1_1048576/O3/3)
        elif "date" in str(column).lower() and epoch_seconds(numbers):
            values = pd.to_datetime(numbers, unit="s").dt.strftime("%Y-%m-%d %H:%M:%S")
        table[str(column)] = values.to_numpy()
        extra += 1
    return table.iloc[order]


def distinct_parts(paths: list[str]) -> list[str]:
    """The paths without the folders and file names they all share: ``27_cores.cali`` for
    ``.../mpi_scaling/27_cores.cali``, ``gcc10.3.1_1048576/O3/3`` for
    ``.../quartz/gcc10.3.1_1048576/O3/3/Base_Seq-default.cali``."""
    parts = [p.replace("\\", "/").split("/") for p in paths]
    shortest = min(len(p) for p in parts)
    head = 0
    while head < shortest - 1 and len({p[head] for p in parts}) == 1:
        head += 1
    tail = 0
    while tail < shortest - head - 1 and len({p[-1 - tail] for p in parts}) == 1:
        tail += 1
    return ["/".join(p[head : len(p) - tail]) for p in parts]


def epoch_seconds(numbers: pd.Series) -> bool:
    """Whether the numbers read as Unix times of this era (2001 .. 2096)."""
    return bool(numbers.notna().all() and numbers.between(1e9, 4e9).all())
