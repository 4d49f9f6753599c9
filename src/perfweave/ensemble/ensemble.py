"""Ensemble: many profiles over one unified calltree (Thicket's model).

Four parts share one node numbering: ``graph`` (the union of every profile's calltree),
``dataframe`` (index ``node, profile`` [+ rank/thread], each node's profiles together),
``metadata`` (one row per profile) and ``statsframe`` (one row per node, statistics
across profiles). Operations return new ensembles; inputs are never modified.
"""

from __future__ import annotations

import copy as _copy
import os
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.calltree.keywords import UPDATE_INC, flag, required
from perfweave.calltree.subgraph import ancestor_closure, subgraph
from perfweave.ensemble import _table
from perfweave.ensemble._analyses import Analyses
from perfweave.errors import MetadataError, OptionError, ShapeError

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    from perfweave.calltree.graphframe import GraphFrame
    from perfweave.ensemble.groupby import GroupBy
    from perfweave.ensemble.statsframe import StatsFrame

INT = np.int64


class Ensemble(Analyses):
    """P >= 1 profiles over one graph: performance, metadata and statistics tables."""

    def __init__(
        self,
        graph: Graph,
        dataframe: pd.DataFrame,
        metadata: pd.DataFrame,
        exc_metrics: Sequence[Any] = (),
        inc_metrics: Sequence[Any] = (),
        default_metric: Any = "time",
        statsframe: pd.DataFrame | None = None,
        profile_mapping: dict | None = None,
        errors: list[tuple[str, str]] | None = None,
        units: dict | None = None,
    ) -> None:
        names = list(dataframe.index.names)
        if len(names) < 2 or names[0] != "node":
            raise ShapeError(
                f"an Ensemble's dataframe is indexed by (node, profile, ...), not {names}"
            )
        keys = list(metadata.index.names)  # one name, or one per key of a multi-key agg
        if keys != names[1 : 1 + len(keys)]:
            shown = keys[0] if len(keys) == 1 else keys
            want = names[1] if len(keys) == 1 else names[1 : 1 + len(keys)]
            raise ShapeError(
                f"metadata index {shown!r} does not match the profile level "
                f"{want!r} of the dataframe"
            )
        self.graph = graph
        self.dataframe = dataframe
        self.metadata = metadata
        self.exc_metrics = list(exc_metrics)
        self.inc_metrics = list(inc_metrics)
        self.default_metric = default_metric
        self.statsframe = new_statsframe(graph, dataframe) if statsframe is None else statsframe
        self.profile_mapping = dict(profile_mapping or {})
        #: metric -> unit where the profiles' reader knew it (see :meth:`unit_of`)
        self.units = {str(k): str(v) for k, v in (units or {}).items()}
        #: files that failed to read with ``on_error="skip"``: (path, message)
        self.errors = list(errors or [])

    @property
    def statsframe(self) -> StatsFrame:
        """Statistics across profiles, one row per node: a DataFrame that also has
        Thicket's ``.dataframe`` and ``.tree(column)`` (see
        :mod:`perfweave.ensemble.statsframe`)."""
        return self._statsframe

    @statsframe.setter
    def statsframe(self, table: pd.DataFrame) -> None:
        from perfweave.ensemble.statsframe import bind

        self._statsframe = bind(table, self)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_files(
        cls,
        paths_or_glob: str | Sequence[str],
        reader: str | Callable[[str], GraphFrame] | None = None,
        intersection: bool = False,
        executor: Executor | None = None,
        *,
        workers: int | None = None,
        profile_key: str | None = None,
        on_error: str = "raise",
        progress: bool | None = None,
        fill_perfdata: bool = True,
        **options: Any,
    ) -> Ensemble:
        """Read many profiles (a list of paths, a glob or a directory) into one ensemble.

        ``reader`` is a format name (``"cali"``) or a callable ``path -> GraphFrame``;
        by default each file's format is detected (all files must share one format).
        Reads run on ``executor`` when given (any ``concurrent.futures.Executor``, e.g. a
        process pool or ``dask.distributed.Client.get_executor()``); otherwise on
        ``workers`` reader processes, by default all cores when there are at least 256
        files and ``reader`` is not a callable (``workers=1``: read in this process). No
        ``__main__`` guard is needed in a script: the processes never run it again, and
        where they cannot be used the files are read here with one ``ParallelReadWarning``.
        The result is the same either way; the graphs are unified once at the end.
        ``on_error="skip"`` keeps going past unreadable files and lists them in
        ``ensemble.errors``.
        ``fill_perfdata=False`` keeps only measured rows (no NaN row for a node a profile
        lacks), for ensembles whose profiles share few nodes.
        """
        from perfweave.ensemble.build import from_files

        return from_files(
            paths_or_glob,
            reader=reader,
            intersection=intersection,
            executor=executor,
            workers=workers,
            profile_key=profile_key,
            on_error=on_error,
            progress=progress,
            fill_perfdata=fill_perfdata,
            **options,
        )

    @classmethod
    def from_caliperreader(
        cls,
        filename_or_caliperreader: str | Sequence[str],
        intersection: bool = False,
        fill_perfdata: bool = True,
        disable_tqdm: bool = False,
        **options: Any,
    ) -> Ensemble:
        """Thicket's ``from_caliperreader``: :meth:`from_files` with the ``.cali`` reader
        (a list of files, a glob or a directory); ``disable_tqdm`` hides the progress bar."""
        return cls.from_files(
            filename_or_caliperreader,
            reader="cali",
            intersection=intersection,
            fill_perfdata=fill_perfdata,
            progress=False if disable_tqdm else None,
            **options,
        )

    @classmethod
    def from_timeseries(
        cls,
        path: str | os.PathLike[str] | Any,
        level: str = "loop.start_iteration",
        native: bool = False,
        node_ordering: bool = True,
    ) -> Ensemble:
        """Read a Caliper timeseries ``.cali`` file: one profile per block of iterations
        (profile id and metadata ``iteration``: the block's ``level`` value), as Hatchet's
        ``GraphFrame.from_timeseries`` splits it (see :mod:`perfweave.ensemble.timeseries`).
        """
        from perfweave.ensemble.timeseries import read_timeseries

        return read_timeseries(path, level=level, native=native, node_ordering=node_ordering)

    @classmethod
    def from_extrap(
        cls, path: str | os.PathLike[str], format: str | None = None, scaling: str = "weak"
    ) -> Ensemble:
        """Read an Extra-P experiment: its text format, JSON, JSON Lines, Talpas, a
        directory of Cube experiments named the Extra-P way (``mm.x10y1z1.r1/profile.cubex``)
        or a saved ``.extra-p`` experiment (``format`` one of ``text``, ``json``,
        ``jsonlines``, ``talpas``, ``cube``, ``extra-p``; detected when None). One profile
        per point and repetition, a metadata column per parameter and ``repetition``, call
        paths as nodes, metrics as columns: ``ens.models(metric, params)`` gives Extra-P's
        models (the mean of the repetitions; Cube metrics on their exclusive values).
        ``scaling`` (Cube sets): ``weak`` averages a run's locations, ``strong`` sums them,
        as Extra-P's option does (see :mod:`perfweave.ensemble.extrap`)."""
        from perfweave.ensemble.extrap import read_extrap

        return read_extrap(path, format=format, scaling=scaling)

    @classmethod
    def from_graphframes(
        cls,
        gfs: Sequence[GraphFrame],
        metadata: Sequence[dict] | pd.DataFrame | None = None,
        *,
        profiles: Sequence[Hashable] | None = None,
        profile_key: str | None = None,
        sources: Sequence[str] | None = None,
        fill_perfdata: bool = True,
    ) -> Ensemble:
        """An ensemble of in-memory GraphFrames (one profile each).

        ``metadata`` (one dict or DataFrame row per GraphFrame) is added to each
        GraphFrame's own metadata. Profile ids are ``profiles``, or the metadata value
        ``profile_key``, or a stable hash of the metadata (the position when a profile has
        no metadata); a repeated id is an error. ``fill_perfdata`` as in
        :meth:`from_files`.
        """
        from perfweave.ensemble.build import from_graphframes

        return from_graphframes(
            gfs,
            metadata,
            profiles=profiles,
            profile_key=profile_key,
            sources=sources,
            fill_perfdata=fill_perfdata,
        )

    @classmethod
    def from_statsframes(
        cls,
        ensembles: Sequence[Ensemble],
        metadata_key: str | None = None,
        disable_tqdm: bool = False,
    ) -> Ensemble:
        """Thicket's ``from_statsframes``: one profile per ensemble, its ``statsframe``
        as performance data (ids ``0..n-1``, or each ensemble's one value of
        ``metadata_key``); metadata collapsed per ensemble. ``disable_tqdm`` is accepted
        for Thicket's calls (no progress bar is shown). See
        :mod:`perfweave.ensemble.from_stats`."""
        from perfweave.ensemble.from_stats import from_statsframes

        return from_statsframes(ensembles, metadata_key)

    @staticmethod
    def concat(
        ensembles: Sequence[Ensemble],
        axis: str = "index",
        headers: Sequence[Hashable] | None = None,
        metadata_key: str | None = None,
        fill_perfdata: bool = True,
        calltree: str = "union",
    ) -> Ensemble:
        """Thicket's ``concat_thickets``: stack profiles (``axis="index"``) or put the same
        runs side by side under one header each (``axis="columns"``), matched on
        ``metadata_key`` (or on profile order when it is None). ``fill_perfdata=False``
        keeps only measured rows in an index concat. ``calltree="intersection"`` keeps
        only the nodes every profile has (Thicket's option)."""
        from perfweave.ensemble.concat import concat

        return concat(ensembles, axis, headers, metadata_key, fill_perfdata, calltree)

    # ------------------------------------------------------------------ basics
    @property
    def profile_level(self) -> Any:
        """Name of the profile index level (``profile``, or the ``metadata_key`` of a
        columns-concat); the list of names where profiles are keyed by several levels
        (``groupby([k1, k2]).agg``, see :attr:`profile_levels`)."""
        levels = self.profile_levels
        return levels[0] if len(levels) == 1 else levels

    @property
    def profile_levels(self) -> list[Any]:
        """Names of the index levels that key a profile: one, or one per ``by`` column
        of a multi-key ``groupby(...).agg`` (Thicket's layout: ``node, k1, k2``)."""
        return list(self.metadata.index.names)

    def _one_profile_level(self, what: str) -> None:
        """Refuse ``what`` on profiles keyed by several levels, naming the way to one."""
        if len(self.profile_levels) > 1:
            raise ShapeError(
                f"{what} takes profiles keyed by one index level; these are keyed by "
                f"{self.profile_levels} (a groupby of several columns). Give them one id "
                "first: ens.replace_profile_index(column) with a metadata column of one "
                "value per profile, or group by one column"
            )

    @property
    def profiles(self) -> list[Any]:
        """Profile ids in table order."""
        return self.metadata.index.tolist()

    @property
    def profile(self) -> list[Any]:  # Thicket's name
        return self.profiles

    @property
    def index_levels(self) -> list[str]:
        """Index levels after ``node`` and the profile level (``rank``, ``thread``)."""
        return list(self.dataframe.index.names[1 + self.metadata.index.nlevels :])

    @property
    def performance_cols(self) -> list[Any]:
        """Numeric columns of the performance table (Thicket's name)."""
        return [
            c
            for c in self.dataframe.columns
            if pd.api.types.is_numeric_dtype(self.dataframe[c].dtype)
            and not pd.api.types.is_bool_dtype(self.dataframe[c].dtype)
        ]

    def __len__(self) -> int:
        return len(self.metadata)

    @property
    def labels(self) -> pd.Series:
        """A readable label per profile (index: the profile ids), e.g. ``mpi.world.size=64``
        or the file name: see :mod:`perfweave.ensemble.labels`. The ids stay the index."""
        from perfweave.ensemble.labels import profile_labels

        return profile_labels(self.metadata, self.profile_mapping)

    def profile_label(self, profile: Hashable) -> str:
        """The readable label of one profile id."""
        labels = self.labels
        if profile not in labels.index:
            raise MetadataError(f"no profile {profile!r} in this ensemble ({len(self)} profiles)")
        return str(labels[profile])

    def by_profile(self, column: Any) -> pd.DataFrame:
        """``column`` as a table of nodes x profiles, headed by the profiles' labels (rows:
        node ids, with a ``name`` column first; one row per node and profile needed)."""
        from perfweave.ensemble.labels import by_profile

        return by_profile(self, column)

    def __repr__(self) -> str:
        from perfweave.ensemble.labels import summary

        return (
            f"<Ensemble: {len(self)} profiles ({summary(self.labels.tolist())}), "
            f"{len(self.graph)} nodes, {len(self.dataframe)} rows, "
            f"metrics {self.exc_metrics + self.inc_metrics}>"
        )

    def unit_of(self, metric: Any) -> str:
        """The unit of a metric column, as :meth:`GraphFrame.unit_of` says it."""
        from perfweave.calltree.display import unit_in

        return unit_in(self.units, metric)

    def copy(self) -> Ensemble:
        """Shallow copy: new table objects sharing data, the same (immutable) graph."""
        return self._replace()

    def deepcopy(self) -> Ensemble:
        """Deep copy: copied tables and graph arrays."""
        return Ensemble(
            self.graph.copy(),
            self.dataframe.copy(deep=True),
            self.metadata.copy(deep=True),
            list(self.exc_metrics),
            list(self.inc_metrics),
            self.default_metric,
            self.statsframe.copy(deep=True),
            _copy.deepcopy(self.profile_mapping),
            list(self.errors),
            self.units,
        )

    def _replace(self, **parts: Any) -> Ensemble:
        """A new Ensemble with some parts replaced (others shared, tables shallow-copied)."""
        base = {
            "graph": self.graph,
            "dataframe": self.dataframe.copy(deep=False),
            "metadata": self.metadata.copy(deep=False),
            "exc_metrics": list(self.exc_metrics),
            "inc_metrics": list(self.inc_metrics),
            "default_metric": self.default_metric,
            "statsframe": self.statsframe.copy(deep=False),
            "profile_mapping": dict(self.profile_mapping),
            "errors": list(self.errors),
            "units": self.units,
        }
        base.update(parts)
        return Ensemble(**base)

    # ------------------------------------------------------------------ one profile
    def to_graphframe(self, profile: Hashable) -> GraphFrame:
        """The GraphFrame of one profile: its nodes only, its rows, its metadata."""
        from perfweave.calltree.graphframe import GraphFrame

        if profile not in self.metadata.index:
            raise MetadataError(
                f"no profile {profile!r} in this ensemble ({len(self)} profiles, "
                f"e.g. {self.profiles[:3]})"
            )
        level = self.profile_level
        rows = self.dataframe.xs(profile, level=level, drop_level=True)
        has = _table._row_present(rows)
        rows = rows[has]
        node = np.asarray(rows.index.get_level_values("node"), dtype=INT)
        keep = np.zeros(len(self.graph), bool)
        keep[node] = True
        keep = ancestor_closure(self.graph, keep)
        graph, old_to_new = subgraph(self.graph, keep)
        df = _remap_nodes(rows, old_to_new).sort_index()
        if "name" in df.columns:  # plain strings again, as a reader gives them
            df["name"] = graph.frames["name"].to_numpy()[df.index.get_level_values("node")]
        meta = {k: v for k, v in self.metadata.loc[profile].items() if not _is_missing(v)}
        return GraphFrame(
            graph,
            df,
            [m for m in self.exc_metrics if m in df.columns],
            [m for m in self.inc_metrics if m in df.columns],
            self.default_metric,
            meta,
            self.units,
        )

    def __getitem__(self, profile: Hashable) -> GraphFrame:
        return self.to_graphframe(profile)

    # ------------------------------------------------------------------ node sets
    def _restrict(self, keep: np.ndarray, *, reset_stats: bool = False) -> Ensemble:
        """Keep the nodes of ``keep`` (closed over ancestors) in every table;
        ``reset_stats``: start a new statsframe instead of keeping the old one's rows."""
        keep = ancestor_closure(self.graph, keep)
        graph, old_to_new = subgraph(self.graph, keep)
        new_stats = {"statsframe": None} if reset_stats else {}
        if graph is self.graph:
            return self._replace(**new_stats)
        df = _remap_nodes(self.dataframe, old_to_new)
        if not reset_stats:
            new_stats["statsframe"] = _remap_nodes(self.statsframe, old_to_new)
        return self._replace(graph=graph, dataframe=df, **new_stats)

    def intersection(self) -> Ensemble:
        """Only the nodes present in every profile (Thicket's ``intersection``).

        Measured inclusive values are kept as they are (they were true for each run).
        """
        from perfweave.ensemble.select import intersection

        return intersection(self)

    def filter_metadata(
        self, predicate: Callable[[pd.Series], bool] | Any = None, *, select_function: Any = None
    ) -> Ensemble:
        """Keep the profiles whose metadata row satisfies ``predicate`` (a callable on a
        row, or a boolean mask aligned with ``metadata``; Thicket's ``select_function``)."""
        from perfweave.ensemble.select import filter_metadata

        predicate = required(
            "filter_metadata", "predicate", predicate, "select_function", select_function
        )
        return filter_metadata(self, predicate)

    def filter_profile(
        self, profiles: Iterable[Hashable] | None = None, *, profile_list: Any = None
    ) -> Ensemble:
        """Keep the listed profiles (Thicket's ``profile_list``)."""
        from perfweave.ensemble.select import select_profiles

        profiles = required("filter_profile", "profiles", profiles, "profile_list", profile_list)
        return select_profiles(self, list(profiles))

    def groupby(self, by: Any) -> GroupBy:
        """One ensemble per distinct value of a metadata column (or columns), as a dict
        whose ``agg(func)`` folds each group into one profile (Thicket's ``GroupBy``)."""
        from perfweave.ensemble.select import groupby

        return groupby(self, by)

    def filter(
        self,
        predicate: Callable[[pd.Series], bool] | str | np.ndarray | pd.Series | None = None,
        squash: bool = True,
        update_inclusive_columns: bool = True,
        multi_index_mode: str = "off",
        *,
        filter_func: Any = None,
    ) -> Ensemble:
        """Keep the (node, profile) rows for which ``predicate`` holds (a row callable, a
        query string, a boolean mask or a call-path query, see :meth:`query`) and squash
        the graph onto them. (Thicket's ``filter(filter_func)`` only raises, pointing to
        ``filter_metadata``/``filter_stats``; here it filters rows as Hatchet's does.)"""
        from perfweave.ensemble.ops import filter_rows

        predicate = required("filter", "predicate", predicate, "filter_func", filter_func)
        return filter_rows(self, predicate, squash, update_inclusive_columns, multi_index_mode)

    def query(
        self,
        query: Any = None,
        squash: bool = True,
        update_inclusive_columns: bool = True,
        multi_index_mode: str = "off",
        *,
        query_obj: Any = None,
        update_inc_cols: bool | None = None,
    ) -> Ensemble:
        """Keep the nodes on call paths matching ``query`` (Thicket's ``query``, whose
        keywords ``query_obj`` and ``update_inc_cols`` are taken too): an object-dialect
        list, a ``MATCH`` string or a :mod:`perfweave.calltree.path_query` object.
        Predicates on data need ``multi_index_mode="any"`` (a node matches when one
        profile's row does) or ``"all"`` (when every profile's row does)."""
        from perfweave.calltree.path_query import path_query
        from perfweave.ensemble.ops import filter_rows

        query = required("query", "query", query, "query_obj", query_obj)
        update = flag("query", update_inclusive_columns, update_inc_cols, **UPDATE_INC)
        q = path_query(query, multi_index_mode)
        return filter_rows(self, q, squash, update)

    def squash(
        self,
        update_inclusive_columns: bool = True,
        *,
        update_inc_cols: bool | None = None,
        new_statsframe: bool = True,
    ) -> Ensemble:
        """Restrict the graph to the nodes that hold data in some profile (Thicket's
        ``update_inc_cols`` taken too). The statistics start anew, as with Thicket's
        default ``new_statsframe=True``; ``False`` is an OptionError (``filter_stats``
        keeps the statistics of the nodes it keeps)."""
        from perfweave.ensemble.ops import squash

        if not new_statsframe:
            raise OptionError(
                "squash(new_statsframe=False): perfweave's squash starts new statistics "
                "(merged nodes have none); filter_stats(...) keeps the statistics rows of "
                "the nodes it keeps"
            )
        update = flag("squash", update_inclusive_columns, update_inc_cols, **UPDATE_INC)
        return squash(self, update)

    def tree(
        self,
        metric_column: Any = None,
        stat: str | None = None,
        indices: Any = None,
        **options: Any,
    ) -> str:
        """The calltree as text. A ``statsframe`` column is shown as it is; a performance
        column (``"Avg time/rank"``) shows one profile's values as Thicket's ``tree``
        does, the first profile's unless ``indices=`` names one (the first line says
        which), or with ``stat=`` that statistic over the profiles. No column: the default
        metric's mean over the profiles. Options as :meth:`GraphFrame.tree`; Thicket's
        ``histogram=True`` (a histogram of the profiles' values per node) is an
        OptionError naming ``by_profile``."""
        from perfweave.ensemble.ops import tree

        if options.pop("histogram", False):
            raise OptionError(
                "tree(histogram=True): the tree text shows one value per node; the "
                "profiles' values of every node are ens.by_profile(column) (a table, one "
                "column per profile) and ens.calc_boxplot_statistics(columns) their spread"
            )
        return tree(self, metric_column, stat, indices, **options)

    # ------------------------------------------------------------------ statistics
    def stats(
        self,
        columns: Sequence[Any] | None = None,
        stats: Sequence[str] = ("mean", "median", "std", "var", "min", "max", "count"),
        percentiles: Sequence[float] = (),
    ) -> list[Any]:
        """Per-node statistics across profiles, added to ``statsframe`` as
        ``<column>_<stat>`` (and ``<column>_percentiles_<q>``); returns the new names."""
        from perfweave.ensemble.stats import compute_stats

        return compute_stats(self, columns, stats, percentiles)

    def correlate(self, metric: Any, against: Any, method: str = "pearson") -> Any:
        """Per-node correlation across profiles of ``metric`` with a metadata column or a
        second metric (``pearson``, ``spearman`` or ``kendall``), added to ``statsframe``
        as ``<metric>_vs_<against> <method>``."""
        from perfweave.ensemble.stats import correlate

        return correlate(self, metric, against, method)

    def parameter_values(self, param: Any) -> np.ndarray | pd.DataFrame:
        """What a model is fitted over: the profiles' values (metadata order) of the numeric
        metadata column ``param`` as floats, or of several (a list: one column each) as a
        DataFrame. A missing column, or a value that is not a number, is a MetadataError
        naming both; several columns need two distinct values each. The packages below
        the ensemble (``scaling``) ask the ensemble they are given, never import it."""
        from perfweave.ensemble.models import is_param_list, parameter, parameters

        return parameters(self, param) if is_param_list(self, param) else parameter(self, param)

    def metric_matrix(self, metric: Any) -> np.ndarray:
        """The (nodes, profiles) matrix of ``metric`` a model is fitted to (NaN where a node
        has no value in a profile); rank/thread rows reduced by the core's one rule (a
        rank/thread of a profile without a row for the node counts 0 for an additive
        metric), so no node's value exceeds its parent's."""
        from perfweave.ensemble.models import metric_matrix

        return metric_matrix(self, metric)

    def models(self, metric: Any, param: Any, agg: str = "mean") -> pd.DataFrame:
        """Extra-P's single-parameter model of ``metric`` over the metadata column
        ``param`` for every node (see :func:`perfweave.scaling.fit_models`): one row per
        node id with its ``name``; also written into ``statsframe`` under Thicket's names
        (``<metric>_extrap-model``, ``_RSS_``, ``_SMAPE_``, ``_AR2_extrap-model``).

        ``param`` a list of metadata columns (``["mpi.world.size", "problem_size"]``)
        gives Extra-P's multi-parameter models (columns ``c[<names>]``,
        ``p_exp[<column>]``, ``log_exp[<column>]``, ``combination``, ...). Fewer than 5
        distinct values of a parameter are fitted as Extra-P fits them, with a
        ``FewParameterValues`` warning and a ``note``; such a model is never "good"."""
        from perfweave.ensemble.models import models

        return models(self, metric, param, agg)

    # ------------------------------------------------------------------ io
    def to_json(self) -> str:
        """Thicket's JSON layout (graph, dataframe, metadata, stats, metrics, profiles)."""
        from perfweave.ensemble.io import to_json

        return to_json(self)

    @classmethod
    def from_json(cls, text_or_path: str) -> Ensemble:
        """Inverse of :meth:`to_json`; also reads Thicket's ``to_json`` output."""
        from perfweave.ensemble.io import from_json

        return from_json(text_or_path)

    @classmethod
    def from_thicket(cls, th: Any) -> Ensemble:
        """Convert an llnl-thicket Thicket."""
        from perfweave.ensemble.interop import from_thicket

        return from_thicket(th)

    def to_thicket(self) -> Any:
        """Convert to an llnl-thicket Thicket (needs llnl-thicket installed)."""
        from perfweave.ensemble.interop import to_thicket

        return to_thicket(self)


def new_statsframe(graph: Graph, dataframe: pd.DataFrame | None = None) -> pd.DataFrame:
    """An empty statistics table: one row per node with its name."""
    names = graph.frames["name"].to_numpy() if "name" in graph.frames else None
    index = pd.Index(np.arange(len(graph), dtype=INT), name="node")
    if dataframe is not None and isinstance(dataframe.columns, pd.MultiIndex):
        out = pd.DataFrame({("name", ""): names}, index=index)
        out.columns = pd.MultiIndex.from_tuples([("name", "")])
        return out
    return pd.DataFrame({"name": names}, index=index)


def _remap_nodes(df: pd.DataFrame, old_to_new: np.ndarray) -> pd.DataFrame:
    """Rows of kept nodes with their node ids mapped (index level ``node``)."""
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    new = old_to_new[node]
    kept = new >= 0
    out = df[kept] if not kept.all() else df.copy(deep=False)
    new = new[kept]
    if out.index.nlevels == 1:
        out.index = pd.Index(new, name="node")
        return out
    idx = out.index.remove_unused_levels()
    level0 = old_to_new[np.asarray(idx.levels[0], dtype=INT)]
    out.index = idx.set_levels(pd.Index(level0), level=0, verify_integrity=False)
    monotone = bool(np.all(np.diff(level0) > 0))
    return out if monotone else out.sort_index()


def _is_missing(v: Any) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False
