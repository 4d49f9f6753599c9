"""A merge study: one set of subexperiments merged with HRM or MUCH, as a person studies it.

:class:`MergeStudy` holds the subexperiments (or the raw table they were split from), a
:class:`~perfweave.merge.MuchMerger` with its cached intermediates, the settings of the merge
computed last and its result, the pair of HEMs looked at and a run design. It answers every
question a view of the merge asks: the HEMs every subexperiment reads (the HRM anchors), the
matrices to compare, why a HEM was dropped, the marginals of a pair, the HRM anchor's
quantiles. A result that cannot be computed comes with its reason as data
(:class:`Unavailable`: what, why, the HEM pairs never read together), found from the
subexperiments, not read back out of an error's text. It is the computation behind
:class:`perfweave.widgets.MergePanel` and ``perfweave merge``; usable without widgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import MergeError, PerfweaveError
from perfweave.merge.design import DEFAULT_MOVES, RunDesign, pair_covering_design
from perfweave.merge.hrm import hrm_merge
from perfweave.merge.independence import drop_reasons
from perfweave.merge.much import MuchMerger, MuchResult
from perfweave.merge.quantiles import r_seq_probs
from perfweave.merge.settings import MergeSettings, check_int
from perfweave.merge.subexperiments import process_raw_experiments

#: bins of a pair's marginals (:meth:`MergeStudy.marginal`)
MARGINAL_BINS = 40
#: what a correlation needs, said where the pooled correlation would be
NEEDS_PAIRS = "a correlation needs both HEMs read in the same runs"


@dataclass(frozen=True)
class HrmDetails:
    """What an HRM merge used: the anchor, its pooled readings and the quantiles taken."""

    anchor: str
    pooled: np.ndarray
    probabilities: np.ndarray
    quantiles: np.ndarray
    n_rows: int
    merged: pd.DataFrame

    def pooled_curve(self, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
        """The anchor's finite pooled readings as a cumulative curve: readings at ``points``
        (at most one per reading) evenly spaced shares, and those shares in percent."""
        pooled = np.sort(np.asarray(self.pooled, dtype=float))
        pooled = pooled[np.isfinite(pooled)]
        if len(pooled) == 0:
            return np.zeros(0), np.zeros(0)
        probs = np.linspace(0.0, 1.0, min(len(pooled), points))
        return np.quantile(pooled, probs), 100 * probs

    def taken(self, most: int = 40) -> tuple[np.ndarray, np.ndarray]:
        """About ``most`` of the quantiles the merge took, and their probabilities in
        percent (every k-th one)."""
        step = max(1, len(self.quantiles) // most)
        return (
            np.asarray(self.quantiles, dtype=float)[::step],
            100 * np.asarray(self.probabilities, dtype=float)[::step],
        )

    def summary(self) -> pd.DataFrame:
        """The anchor's pooled readings and merged rows counted, the quantiles' range."""
        q = self.quantiles
        return pd.DataFrame(
            {
                "": ["pooled anchor readings", "merged rows", "min", "median", "max"],
                self.anchor: [
                    len(self.pooled),
                    self.n_rows,
                    float(np.min(q)),
                    float(np.median(q)),
                    float(np.max(q)),
                ],
            }
        )


@dataclass(frozen=True)
class Unavailable:
    """A result that cannot be computed, and why.

    ``what`` names the result (``"MUCH"``, ``"HRM"``, ``"pooled correlation"``), ``reason``
    says briefly why (from the data: ``"75 HEM pair(s) never read in the same
    subexperiment"``), ``message`` is the whole message (the :class:`MergeError`'s, naming
    what to change), ``pairs`` the HEM pairs never read together when that is why."""

    what: str
    reason: str
    message: str
    pairs: tuple[tuple[str, str], ...] = ()


def common_hems(subexperiments: Sequence[pd.DataFrame]) -> list[str]:
    """HEMs read in every subexperiment (the possible HRM anchors), in the first's order."""
    if len(subexperiments) == 0:
        return []
    common = [str(c) for c in subexperiments[0].columns]
    for sub in subexperiments[1:]:
        have = {str(c) for c in sub.columns}
        common = [c for c in common if c in have]
    return common


def never_read_pairs(subexperiments: Sequence[pd.DataFrame]) -> list[tuple[str, str]]:
    """HEM pairs that no subexperiment reads together (MUCH needs none), in order of first
    appearance."""
    hems = list(dict.fromkeys(str(c) for sub in subexperiments for c in sub.columns))
    pos = {h: i for i, h in enumerate(hems)}
    reads = np.zeros((len(subexperiments), len(hems)), dtype=np.int64)
    for k, sub in enumerate(subexperiments):
        reads[k, [pos[str(c)] for c in sub.columns]] = 1
    together = reads.T @ reads > 0
    iu, ju = np.triu_indices(len(hems), 1)
    never = ~together[iu, ju]
    return [(hems[i], hems[j]) for i, j in zip(iu[never], ju[never], strict=True)]


def first_copies(merged: pd.DataFrame) -> pd.DataFrame:
    """The first copy of each HEM of an HRM table (its repeats are named ``NAME.1``, ...)."""
    base = [str(c) for c in merged.columns]
    names = set(base)
    seen: set[str] = set()
    keep = []
    for c in base:
        root, _, suffix = c.rpartition(".")
        if not (root in names and suffix.isdigit()):
            root = c
        if root not in seen:
            seen.add(root)
            keep.append(c)
    return merged[keep]


def shares(merged: np.ndarray, pooled: np.ndarray, bins: int = MARGINAL_BINS):
    """Percent of merged runs and of pooled readings in each of ``bins`` common bins
    (centres, 2 x bins): unlike a density (1e-7 per cycle) a share reads off an axis."""
    merged = np.asarray(merged, dtype=float)
    pooled = np.asarray(pooled, dtype=float)
    both = np.concatenate([merged, pooled])
    lo, hi = float(np.min(both)), float(np.max(both))
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    a, _ = np.histogram(merged, edges)
    b, _ = np.histogram(pooled, edges)
    centres = (edges[:-1] + edges[1:]) / 2
    return centres, np.vstack([100 * a / max(len(merged), 1), 100 * b / max(len(pooled), 1)])


class MergeStudy:
    """HRM and MUCH merges of one set of subexperiments (see the module docstring).

    ``data`` is the result of :func:`~perfweave.merge.process_raw_experiments`, or a raw
    DataFrame (or CSV path) together with ``n_pmcs`` (then :meth:`set_n_pmcs` splits it
    again; ``min_mean`` as in ``process_raw_experiments``). Nothing is merged until
    :meth:`apply`; :attr:`settings` starts as the defaults with the first common HEM as the
    anchor. A failed :meth:`apply` raises a :class:`MergeError` and changes nothing but
    :attr:`refused`, the reason as data.
    """

    def __init__(
        self,
        data: Sequence[pd.DataFrame] | pd.DataFrame | str | Path,
        n_pmcs: int | None = None,
        *,
        min_mean: float | None = None,
    ) -> None:
        self._raw: pd.DataFrame | str | Path | None = None
        self._min_mean = min_mean
        if isinstance(data, pd.DataFrame | str | Path):
            if n_pmcs is None:
                raise MergeError("a raw table needs n_pmcs (the HEMs read per run)")
            self._raw = data
            subs: Sequence[pd.DataFrame] = self._split(check_int("n_pmcs", n_pmcs, 1))
        else:
            subs = data
            if len(subs) == 0:
                raise MergeError("a merge needs at least one subexperiment")
        self._load(subs, n_pmcs)
        self.settings = MergeSettings(anchor=(self.anchors or [None])[0]).checked()
        #: the merged table of :attr:`settings` (None before a merge worked)
        self.result: pd.DataFrame | None = None
        #: what that merge computed: a MuchResult (MUCH) or HrmDetails (HRM)
        self.diagnostics: MuchResult | HrmDetails | None = None
        #: why the merge asked for last could not be computed (None once one worked)
        self.refused: Unavailable | None = None
        #: the two merged HEMs looked at together (x, y)
        self.pair: tuple[str, str] | None = None
        #: the run design built last
        self.design: RunDesign | None = None

    # ------------------------------------------------------------------ subexperiments
    def _split(self, n_pmcs: int) -> Sequence[pd.DataFrame]:
        return process_raw_experiments(self._raw, n_pmcs, min_mean=self._min_mean)

    #: what :meth:`_load` sets (a failed :meth:`set_n_pmcs` puts them back)
    _LOADED = ("subexperiments", "n_pmcs", "anchors", "hems", "_much", "_correlated")

    def _load(self, subs: Sequence[pd.DataFrame], n_pmcs: int | None) -> None:
        self.subexperiments = subs
        self.n_pmcs = n_pmcs
        #: HEMs read in every subexperiment (the possible HRM anchors)
        self.anchors = common_hems(subs)
        #: every HEM, in order of first appearance
        self.hems = list(dict.fromkeys(str(c) for sub in subs for c in sub.columns))
        self._much: MuchMerger | None = None
        #: the pooled correlation, or why there is none (computed on first use)
        self._correlated: tuple[pd.DataFrame | None, Unavailable | None] | None = None

    def _correlate(self) -> tuple[pd.DataFrame | None, Unavailable | None]:
        if self._correlated is None:
            try:  # pairs never read together: the core names them and raises
                self._correlated = (self._merger.correlation, None)
            except PerfweaveError as exc:
                pairs = never_read_pairs(self.subexperiments)
                reason = (
                    f"{len(pairs)} HEM pair(s) never read in the same subexperiment"
                    if pairs
                    else str(exc)
                )
                why = Unavailable("pooled correlation", reason, str(exc), tuple(pairs))
                self._correlated = (None, why)
        return self._correlated

    @property
    def _merger(self) -> MuchMerger:
        """MUCH's pipeline over the subexperiments, caching its intermediates (made on first
        use: an HRM merge needs none of it)."""
        if self._much is None:
            self._much = MuchMerger(self.subexperiments)
        return self._much

    @property
    def has_raw(self) -> bool:
        """True when the study got a raw table (``n_pmcs`` can change)."""
        return self._raw is not None

    @property
    def correlation(self) -> pd.DataFrame | None:
        """The pooled correlation of every HEM pair (None: :attr:`correlation_unavailable`)."""
        return self._correlate()[0]

    @property
    def correlation_unavailable(self) -> Unavailable | None:
        """Why there is no pooled correlation of every HEM pair (None: there is one)."""
        return self._correlate()[1]

    def set_n_pmcs(self, n_pmcs: int) -> MergeStudy:
        """Split the raw table again, ``n_pmcs`` HEMs per subexperiment, and merge with the
        same settings (the anchor kept while it is still common); a failure keeps all."""
        if self._raw is None:
            raise MergeError("n_pmcs can change only when the study got a raw table")
        n = check_int("n_pmcs", n_pmcs, 1)
        old = {name: getattr(self, name) for name in self._LOADED}
        try:
            self._load(self._split(n), n)
            anchor = self.settings.anchor
            if anchor not in self.anchors:
                anchor = (self.anchors or [None])[0]
            self.apply(self.settings.with_(anchor=anchor))
        except PerfweaveError:
            for name, value in old.items():
                setattr(self, name, value)
            raise
        return self

    # ------------------------------------------------------------------ merging
    def why_not(self, settings: MergeSettings) -> Unavailable | None:
        """Why the merge of ``settings`` cannot be computed, as far as the subexperiments
        tell without merging (None: nothing known against it)."""
        if settings.method == "hrm":
            if settings.anchor is None:
                reason = "no HEM is read in every subexperiment"
                return Unavailable("HRM", reason, f"{reason}, so HRM has no anchor; use MUCH")
            return None
        cor = self.correlation_unavailable
        if cor is not None:
            return Unavailable("MUCH", cor.reason, cor.message, cor.pairs)
        kept = self._merger.independent(settings.dep_lvl)
        if len(kept) < 2:
            reason = (
                f"at dep_lvl={settings.dep_lvl:g} only {len(kept)} HEM is kept "
                f"({', '.join(map(str, kept.columns))})"
            )
            return Unavailable("MUCH", reason, f"{reason}: nothing to merge; raise dep_lvl")
        return None

    def merge(self, settings: MergeSettings) -> tuple[pd.DataFrame, MuchResult | HrmDetails]:
        """The merged table of ``settings`` and what the merge computed (nothing is kept)."""
        settings = settings.checked()
        why = self.why_not(settings)
        if why is not None:
            raise MergeError(why.message)
        if settings.method == "hrm":
            anchor = str(settings.anchor)
            merged = hrm_merge(self.subexperiments, anchor)
            details = HrmDetails(
                anchor=anchor,
                pooled=np.concatenate([np.asarray(s[anchor]) for s in self.subexperiments]),
                probabilities=r_seq_probs(len(merged)),
                quantiles=merged[anchor].to_numpy(),
                n_rows=len(merged),
                merged=merged,
            )
            return merged, details
        s = settings
        result = self._merger.merge(s.n_runs, s.n_sims, s.dep_lvl, s.seed)
        return result.merged, result

    def apply(self, settings: MergeSettings) -> MergeStudy:
        """Merge with ``settings`` and keep the result; a :class:`MergeError` keeps the
        previous one and says why in :attr:`refused` (before any result, :attr:`settings`
        become those of this first try)."""
        settings = settings.checked()
        try:
            merged, details = self.merge(settings)
        except PerfweaveError as exc:
            try:
                why = self.why_not(settings)
            except PerfweaveError:
                why = None
            method = "HRM" if settings.method == "hrm" else "MUCH"
            self.refused = why or Unavailable(method, str(exc), str(exc))
            if self.result is None:
                self.settings = settings
            raise
        self.settings = settings
        self.result, self.diagnostics, self.refused = merged, details, None
        names = self.names
        if self.pair is None or not all(h in names for h in self.pair):
            self.pair = (names[0], names[1]) if len(names) > 1 else None
        return self

    def change(self, **changes: Any) -> MergeStudy:
        """:meth:`apply` the current settings with ``changes`` (checked first)."""
        return self.apply(self.settings.with_(**changes))

    # ------------------------------------------------------------------ the merge's views
    @property
    def names(self) -> list[str]:
        """The HEMs of the merge, each once (HRM: the first copy of a repeated HEM)."""
        if self.result is None:
            return []
        if self.settings.method == "hrm":
            return [str(c) for c in first_copies(self.result).columns]
        return [str(c) for c in self.result.columns]

    @property
    def dropped(self) -> pd.DataFrame:
        """HEMs MUCH dropped as dependent at the dep_lvl of the result, the kept HEM that
        dropped each and their r (:func:`~perfweave.merge.drop_reasons`)."""
        cor, s = self.correlation, self.settings
        if s.method != "much" or cor is None:
            return drop_reasons(pd.DataFrame(), 1.0)
        return drop_reasons(cor, s.dep_lvl)

    def achieved(self) -> np.ndarray:
        """The merged table's correlations over :attr:`names` (NaN for a constant HEM)."""
        diag = self.diagnostics
        if isinstance(diag, MuchResult):
            return diag.achieved.to_numpy(dtype=float)
        values = first_copies(self.result).to_numpy(dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.atleast_2d(np.corrcoef(values, rowvar=False))

    def target(self) -> np.ndarray | Unavailable:
        """What the merge aims at over :attr:`names`: MUCH's target correlations, HRM's
        pooled correlations of the subexperiments, or why they are not available."""
        diag = self.diagnostics
        if isinstance(diag, MuchResult):
            return diag.target.to_numpy(dtype=float)
        names = self.names
        cor = self.correlation
        if cor is not None and all(n in cor.columns for n in names):
            return cor.loc[names, names].to_numpy(dtype=float)
        missing = self.correlation_unavailable
        if missing is None:
            why = "the subexperiments give no correlation"
            return Unavailable("pooled correlation", why, why)
        if missing.pairs:
            reason = f"{missing.reason} ({NEEDS_PAIRS})"
            return Unavailable(missing.what, reason, missing.message, missing.pairs)
        return missing

    def pick_pair(self, x_hem: str, y_hem: str) -> MergeStudy:
        """Look at two HEMs of the merged table together (x, y)."""
        names = self.kept
        for h in (x_hem, y_hem):
            if h not in names:
                raise MergeError(f"HEM {h!r} is not in the merged table (has: {', '.join(names)})")
        self.pair = (x_hem, y_hem)
        return self

    @property
    def kept(self) -> list[str]:
        """The columns of the merged table (MUCH: the HEMs kept at dep_lvl)."""
        return [] if self.result is None else [str(c) for c in self.result.columns]

    def pair_values(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The merged runs of :attr:`pair` (x, y) and their correlation (NaN: a constant)."""
        if self.pair is None or self.result is None:
            raise MergeError("no pair of HEMs to show: the merged table has fewer than two")
        x = self.result[self.pair[0]].to_numpy(dtype=float)
        y = self.result[self.pair[1]].to_numpy(dtype=float)
        r = float(np.corrcoef(x, y)[0, 1]) if np.std(x) > 0 and np.std(y) > 0 else float("nan")
        return x, y, r

    def pooled_values(self, names: Sequence[str]) -> dict[str, np.ndarray]:
        """The pooled readings of the merged columns ``names`` (a repeated HEM's copy,
        ``NAME.1``, has its HEM's readings)."""
        out: dict[str, np.ndarray] = {}
        cached = self._merger.pooled if self.correlation is not None else {}
        hems = set(self.hems)
        for key in names:
            if key in cached:
                out[key] = np.asarray(cached[key], dtype=float)
                continue
            root = key if key in hems else key.rsplit(".", 1)[0]
            parts = [
                np.asarray(s[root], dtype=float) for s in self.subexperiments if root in s.columns
            ]
            out[key] = np.concatenate(parts) if parts else np.zeros(0)
        return out

    def marginal(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bin centres and the percent of merged runs and of pooled readings of ``name`` in
        each common bin (each series sums to 100)."""
        if self.result is None or name not in self.result.columns:
            raise MergeError(f"HEM {name!r} is not in the merged table")
        merged = self.result[name].to_numpy(dtype=float)
        centres, pct = shares(merged, self.pooled_values([name])[name])
        return centres, pct[0], pct[1]

    # ------------------------------------------------------------------ run design
    def build_design(
        self,
        hems: int | Sequence[str] | None = None,
        n_pmcs: int | None = None,
        *,
        anchor: str | None = None,
        seed: int = 0,
        max_moves: int = DEFAULT_MOVES,
        time_limit: float | None = None,
    ) -> RunDesign:
        """A pair covering design (:func:`~perfweave.merge.pair_covering_design`), kept as
        :attr:`design`; by default for the study's HEMs with its largest subexperiment's
        PMC count."""
        hems = self.hems if hems is None else hems
        n_pmcs = max(len(s.columns) for s in self.subexperiments) if n_pmcs is None else n_pmcs
        self.design = pair_covering_design(
            hems, n_pmcs, anchor=anchor, seed=seed, max_moves=max_moves, time_limit=time_limit
        )
        return self.design

    def design_frame(self) -> pd.DataFrame:
        """:attr:`design` as a table: one row per subexperiment (numbered from 1), one
        column per PMC."""
        if self.design is None:
            raise MergeError("no design built yet: call build_design() first")
        frame = self.design.to_frame()
        frame.insert(0, "subexperiment", range(1, len(frame) + 1))
        return frame
