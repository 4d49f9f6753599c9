"""HEM merging: rebuild one dataset from hardware-event subexperiments (HRM and MUCH).

A processor reads only ``n_pmcs`` hardware event monitors (HEMs) per run, so measuring many
HEMs takes several subexperiments; HRM (anchor-rank merge) and MUCH (correlation-preserving
merge through a multivariate Gaussian copula) rebuild one table as if every HEM had been
read in the same runs. Reimplements the R package mergingTools 1.0.1 and adds run planning
(pair covering designs). :class:`MergeStudy` holds one study of a set of subexperiments (the
merge on show, why another is not available, a pair of HEMs, a run design): what MergePanel
and ``perfweave merge`` show.
"""

from perfweave.merge.bounds import (
    covering_lower_bound,
    eigenvalue_bound,
    rank_bound,
    schonheim_bound,
)
from perfweave.merge.codes import code2hem, t2080_code_table
from perfweave.merge.correlation import correlation_matrix
from perfweave.merge.design import DEFAULT_MOVES, RunDesign, hrm_design, pair_covering_design
from perfweave.merge.hrm import hrm_merge
from perfweave.merge.independence import (
    DEP_LVL_RANGE,
    check_dep_lvl,
    drop_reasons,
    independent_matrix,
    is_positive_definite,
)
from perfweave.merge.much import (
    MuchMerger,
    MuchResult,
    MvgParams,
    much_merge,
    mvg_params,
    simulate_and_merge,
)
from perfweave.merge.quantiles import quantile_type2
from perfweave.merge.settings import MergeSettings
from perfweave.merge.study import HrmDetails, MergeStudy, Unavailable
from perfweave.merge.subexperiments import Subexperiments, process_raw_experiments
from perfweave.merge.vignette import VIGNETTE_N_PMCS, load_vignette

__all__ = [
    "DEFAULT_MOVES",
    "DEP_LVL_RANGE",
    "HrmDetails",
    "MergeSettings",
    "MergeStudy",
    "Unavailable",
    "check_dep_lvl",
    "drop_reasons",
    "VIGNETTE_N_PMCS",
    "MuchMerger",
    "MuchResult",
    "MvgParams",
    "RunDesign",
    "Subexperiments",
    "code2hem",
    "correlation_matrix",
    "covering_lower_bound",
    "eigenvalue_bound",
    "hrm_design",
    "hrm_merge",
    "independent_matrix",
    "is_positive_definite",
    "load_vignette",
    "much_merge",
    "mvg_params",
    "pair_covering_design",
    "process_raw_experiments",
    "quantile_type2",
    "rank_bound",
    "schonheim_bound",
    "simulate_and_merge",
    "t2080_code_table",
]
