"""HEM merging: rebuild one dataset from hardware-event subexperiments (HRM and MUCH).

A processor reads only ``n_pmcs`` hardware event monitors (HEMs) per run, so measuring many
HEMs takes several subexperiments; HRM (anchor-rank merge) and MUCH (correlation-preserving
merge through a multivariate Gaussian copula) rebuild one table as if every HEM had been
read in the same runs. Reimplements the R package mergingTools 1.0.1 and adds run planning
(pair covering designs).
"""

from perfweave.merge.codes import code2hem, t2080_code_table
from perfweave.merge.hrm import hrm_merge
from perfweave.merge.quantiles import quantile_type2
from perfweave.merge.subexperiments import Subexperiments, process_raw_experiments
from perfweave.merge.vignette import VIGNETTE_N_PMCS, load_vignette

__all__ = [
    "VIGNETTE_N_PMCS",
    "Subexperiments",
    "code2hem",
    "hrm_merge",
    "load_vignette",
    "process_raw_experiments",
    "quantile_type2",
    "t2080_code_table",
]
