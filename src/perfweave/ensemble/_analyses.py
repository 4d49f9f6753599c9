"""The analysis methods of :class:`~perfweave.ensemble.Ensemble`, as thin calls into
their modules (``filter``, ``significance``, ``boxplot``, ``distance``, ``speedup``,
``reshape``, ``arithmetic``): statistics filters, Thicket's statistical tests, scaling
and the conveniences. Kept apart so ``ensemble.py`` stays the data model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from perfweave.errors import OptionError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

    from perfweave.calltree.graph import Node
    from perfweave.ensemble.ensemble import Ensemble


class Analyses:
    """Mixin: analyses over an ensemble (every name follows Thicket or Chopper)."""

    # ------------------------------------------------------------- statistics filters
    def filter_stats(
        self,
        predicate: Callable | str | np.ndarray | None = None,
        update_inclusive_columns: bool = True,
        *,
        filter_function: Any = None,
    ) -> Ensemble:
        """Keep the nodes whose statistics row satisfies ``predicate`` (a row callable,
        a query string such as ```` `Avg time/rank_std` > 0.1 ````, or a node mask;
        Thicket's ``filter_function``): graph squashed, performance and statistics
        tables kept consistent (thicket#147). See :mod:`perfweave.ensemble.filter`."""
        from perfweave.calltree.keywords import required
        from perfweave.ensemble.filter import filter_stats

        predicate = required(
            "filter_stats", "predicate", predicate, "filter_function", filter_function
        )
        return filter_stats(self, predicate, update_inclusive_columns)

    def query_stats(
        self,
        query: Any = None,
        squash: bool = True,
        update_inclusive_columns: bool = True,
        multi_index_mode: str = "off",
        *,
        query_obj: Any = None,
        update_inc_cols: bool | None = None,
    ) -> Ensemble:
        """Keep the nodes a query selects on the statistics table: a call-path query
        (Thicket's ``query_stats``, whose ``query_obj`` and ``update_inc_cols`` are taken
        too) or a query string / callable as :meth:`filter_stats`."""
        from perfweave.calltree.keywords import UPDATE_INC, flag, required
        from perfweave.ensemble.filter import query_stats

        query = required("query_stats", "query", query, "query_obj", query_obj)
        update = flag("query_stats", update_inclusive_columns, update_inc_cols, **UPDATE_INC)
        return query_stats(self, query, squash, update, multi_index_mode)

    # ------------------------------------------------------------- scaling (Chopper)
    def speedup(
        self,
        column: Any = "mpi.world.size",
        metrics: Sequence[Any] | None = None,
        agg: str = "mean",
    ) -> pd.DataFrame:
        """Strong-scaling speedup ``T(p0) / T(p)`` per node for every scale ``p`` of the
        numeric metadata ``column`` but the smallest ``p0`` (columns ``"<p>.<metric>.speedup"``,
        also added to ``statsframe``). See :mod:`perfweave.ensemble.speedup`."""
        from perfweave.ensemble.speedup import scaling_table

        return scaling_table(self, column, metrics, "strong", "speedup", agg)

    def efficiency(
        self,
        column: Any = "mpi.world.size",
        metrics: Sequence[Any] | None = None,
        scaling: str = "strong",
        agg: str = "mean",
    ) -> pd.DataFrame:
        """Parallel efficiency per node relative to the smallest scale: strong
        ``T(p0) p0 / (T(p) p)``, weak ``T(p0) / T(p)`` (columns ``"<p>.<metric>.efficiency"``)."""
        from perfweave.ensemble.speedup import scaling_table

        return scaling_table(self, column, metrics, scaling, "efficiency", agg)

    # ------------------------------------------------------------- Thicket's stats
    def ttest(self, columns: Sequence[Any], alpha: float = 0.05) -> list[Any]:
        """Welch's t statistic per node of two columns and the critical t value."""
        from perfweave.ensemble.significance import ttest

        return ttest(self, columns, alpha)

    def preference(
        self,
        columns: Sequence[Any],
        comparison_func: Callable[[Any, Any], Any],
        test: str = "ttest",
        alpha: float = 0.05,
    ) -> list[Any]:
        """Thicket's ``preference`` of two columns per node (t-test, then comparison)."""
        from perfweave.ensemble.significance import preference

        return preference(self, columns, comparison_func, test, alpha)

    def confidence_interval(
        self, columns: Sequence[Any], confidence_level: float = 0.95
    ) -> list[Any]:
        """Normal confidence interval of the mean per node, as (low, high)."""
        from perfweave.ensemble.significance import confidence_interval

        return confidence_interval(self, columns, confidence_level)

    def check_normality(self, columns: Sequence[Any], alpha: float = 0.05) -> list[Any]:
        """Shapiro-Wilk normality per node (``<column>_normality``: True/False/NA)."""
        from perfweave.ensemble.significance import check_normality

        return check_normality(self, columns, alpha)

    def calc_boxplot_statistics(
        self, columns: Sequence[Any], quartiles: Sequence[float] = (0.25, 0.5, 0.75)
    ) -> list[Any]:
        """Quartiles, IQR, fences and outlier profiles per node."""
        from perfweave.ensemble.boxplot import calc_boxplot_statistics

        return calc_boxplot_statistics(self, columns, quartiles)

    def bhattacharyya_distance(
        self, columns: Sequence[Any], output_column_name: Any = None
    ) -> list[Any]:
        """Bhattacharyya distance per node between two columns' distributions."""
        from perfweave.ensemble.distance import bhattacharyya_distance

        return bhattacharyya_distance(self, columns, output_column_name)

    def hellinger_distance(
        self, columns: Sequence[Any], output_column_name: Any = None
    ) -> list[Any]:
        """Hellinger distance per node between two columns' distributions."""
        from perfweave.ensemble.distance import hellinger_distance

        return hellinger_distance(self, columns, output_column_name)

    def score_delta_mean_delta_stdnorm(self, columns: Sequence[Any], **options: Any) -> list:
        """Thicket's score ``(m1 - m2) + (s1 - s2) / |m1 - m2|`` (see :mod:`.distance`)."""
        from perfweave.ensemble.distance import score_delta_mean_delta_stdnorm as score

        return score(self, columns, **options)

    def score_delta_mean_delta_coefficient_of_variation(
        self, columns: Sequence[Any], **options: Any
    ) -> list:
        """Thicket's score ``(m1 - m2) + s1/m1 - s2/m2`` (see :mod:`.distance`)."""
        from perfweave.ensemble.distance import (
            score_delta_mean_delta_coefficient_of_variation as score,
        )

        return score(self, columns, **options)

    def score_bhattacharyya(self, columns: Sequence[Any], **options: Any) -> list:
        """The Bhattacharyya distance signed by a comparison (see :mod:`.distance`)."""
        from perfweave.ensemble.distance import score_bhattacharyya as score

        return score(self, columns, **options)

    def score_hellinger(self, columns: Sequence[Any], **options: Any) -> list:
        """The Hellinger distance signed by a comparison (see :mod:`.distance`)."""
        from perfweave.ensemble.distance import score_hellinger as score

        return score(self, columns, **options)

    # ------------------------------------------------------------- conveniences
    def get_node(self, name: str, which: str = "first") -> Node | list[Node]:
        """The node named ``name`` (``which``: ``"first"``/``"last"`` in preorder, ``"all"``)."""
        from perfweave.ensemble.reshape import get_node

        return get_node(self, name, which)

    def replace_profile_index(
        self, column: Any = None, *, metadata_key: Any = None, inplace: bool = False
    ) -> Ensemble:
        """A new ensemble whose profile ids are metadata ``column``'s (unique) values
        (Thicket's ``metadata_key``). Thicket changes its object in place by default;
        ``inplace=True`` is an OptionError saying to keep the result instead."""
        from perfweave.calltree.keywords import required
        from perfweave.ensemble.reshape import replace_profile_index

        column = required("replace_profile_index", "column", column, "metadata_key", metadata_key)
        if inplace:
            raise OptionError(
                "replace_profile_index(inplace=True): perfweave's ensembles are not changed "
                f"in place; keep the result: ens = ens.replace_profile_index({column!r})"
            )
        return replace_profile_index(self, column)

    def metadata_columns_to_perfdata(
        self,
        metadata_columns: Any,
        overwrite: bool = False,
        drop: bool = False,
        join_key: Any = None,
    ) -> Ensemble:
        """A new ensemble with metadata columns copied to every row of their profile.
        Thicket's ``join_key`` (join on another column than the profile id) is an
        OptionError naming ``replace_profile_index``, which makes that column the id."""
        from perfweave.ensemble.reshape import metadata_columns_to_perfdata

        if join_key is not None:
            raise OptionError(
                f"metadata_columns_to_perfdata(join_key={join_key!r}): the metadata join "
                "the rows on the profile id; make that column the id first: "
                f"ens.replace_profile_index({join_key!r}).metadata_columns_to_perfdata(...)"
            )
        return metadata_columns_to_perfdata(self, metadata_columns, overwrite, drop)

    def _arith(self, other: Any, op: str, reflected: bool = False) -> Any:
        from perfweave.ensemble.arithmetic import combine

        return combine(self, other, op, reflected)

    def __add__(self, other: Any) -> Ensemble:
        """Per (node, profile) sum over the union graph (see :mod:`.arithmetic`)."""
        return self._arith(other, "add")

    def __sub__(self, other: Any) -> Ensemble:
        return self._arith(other, "subtract")

    def __mul__(self, other: Any) -> Ensemble:
        return self._arith(other, "multiply")

    def __truediv__(self, other: Any) -> Ensemble:
        return self._arith(other, "divide")

    def __radd__(self, other: Any) -> Ensemble:
        return self._arith(other, "add", reflected=True)

    def __rsub__(self, other: Any) -> Ensemble:
        return self._arith(other, "subtract", reflected=True)

    def __rmul__(self, other: Any) -> Ensemble:
        return self._arith(other, "multiply", reflected=True)

    def __rtruediv__(self, other: Any) -> Ensemble:
        return self._arith(other, "divide", reflected=True)
