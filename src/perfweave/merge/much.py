"""MUCH merge: rebuild joint runs from subexperiments through a Gaussian copula.

Steps (Vilardell et al., ACM SAC 2021; mergingTools' ``MUCH_merge``):

1. :func:`correlation_matrix` of all HEMs, :func:`independent_matrix` at ``dep_lvl``;
2. :func:`mvg_params`: pool each kept HEM's readings over the subexperiments holding it
   (outliers removed per subexperiment), their means and standard deviations;
3. :func:`simulate_and_merge`: bootstrap ``n_runs`` readings per HEM once, draw ``n_sims``
   multivariate normal samples with the target correlation, give each HEM's sorted bootstrap
   values the rank order of the sample's column, and keep the sample whose merged table
   has the correlation matrix closest (mean squared error) to the target.

All simulations are computed as stacked arrays (no Python loop per simulation); the
Gaussian draws are float32, as only their ranks matter. Random
numbers come in blocks of :data:`SIM_BLOCK` simulations, each block with its own seed
derived from ``seed``; more simulations therefore extend fewer (the scores of the first
``n`` simulations do not depend on ``n_sims``) and :class:`MuchMerger` can cache them.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfweave.errors import MergeError
from perfweave.merge._blocks import check_positive_int, float_blocks, hem_dtypes, keep_mask
from perfweave.merge.correlation import correlation_from_blocks
from perfweave.merge.independence import check_positive_definite, independent_matrix

#: simulations per random-number block (the unit of seeding and caching)
SIM_BLOCK = 10
#: array elements processed per vectorised step (bounds memory: ~8 bytes x 4 arrays each)
_CHUNK_ELEMENTS = 2_000_000
_SIM_STREAM = 0x6D756368  # "much": separates simulation seeds from bootstrap seeds


@dataclass(frozen=True)
class MvgParams:
    """Parameters of the multivariate Gaussian and the pooled readings of each HEM."""

    hems: list[str]
    means: pd.Series
    sds: pd.Series
    sigma: pd.DataFrame
    values: dict[str, np.ndarray] = field(repr=False)


@dataclass(frozen=True)
class MuchResult:
    """A MUCH merge and its diagnostics.

    ``merged`` has ``n_runs`` rows and one column per kept HEM; ``scores`` is the mean
    squared error of each simulation's correlation matrix against ``target``; ``chosen`` the
    index of the best one, whose correlation matrix is ``achieved``; ``dropped`` the HEMs
    removed as dependent at ``dep_lvl`` (empty when called without it).
    """

    merged: pd.DataFrame
    scores: np.ndarray
    chosen: int
    achieved: pd.DataFrame
    target: pd.DataFrame
    dropped: tuple[str, ...] = ()


def pooled_readings(subexperiments: Sequence[pd.DataFrame]) -> dict[str, np.ndarray]:
    """Every HEM's readings pooled over the subexperiments holding it, outliers removed.

    Outliers are rows whose squared distance from the subexperiment's mean has z >= 3. As
    in :func:`correlation_matrix`, a subexperiment without outliers keeps all its rows
    (mergingTools drops it entirely).
    """
    return _pooled_from_blocks(float_blocks(subexperiments), hem_dtypes(subexperiments))


def _pooled_from_blocks(blocks, dtypes: dict[str, np.dtype]) -> dict[str, np.ndarray]:
    parts: dict[str, list[np.ndarray]] = {}
    for names, values in blocks:
        keep = keep_mask((values - values.mean(axis=0)) ** 2)
        for c, name in enumerate(names):
            parts.setdefault(name, []).append(values[keep[:, c], c])
    out = {}
    for name, chunks in parts.items():
        pooled = np.concatenate(chunks)
        if np.issubdtype(dtypes[name], np.integer):
            pooled = pooled.astype(dtypes[name])
        out[name] = pooled
    return out


def _params_from_pooled(pooled: dict[str, np.ndarray], cor: pd.DataFrame) -> MvgParams:
    hems = [str(h) for h in cor.columns]
    missing = [h for h in hems if h not in pooled]
    if missing:
        raise MergeError(f"HEM(s) {missing} of the correlation matrix are in no subexperiment")
    values = {h: pooled[h] for h in hems}
    means = pd.Series([float(np.mean(values[h])) for h in hems], index=pd.Index(hems))
    sds = pd.Series(
        [float(np.std(values[h], ddof=1)) if len(values[h]) > 1 else np.nan for h in hems],
        index=pd.Index(hems),
    )
    sd = sds.to_numpy()
    sigma = pd.DataFrame(
        sd[:, None] * cor.to_numpy(dtype=float) * sd[None, :], index=cor.index, columns=cor.columns
    )
    return MvgParams(hems, means, sds, sigma, values)


def mvg_params(subexperiments: Sequence[pd.DataFrame], cor: pd.DataFrame) -> MvgParams:
    """Means, standard deviations and covariance (sd * cor * sd) of the HEMs in ``cor``."""
    return _params_from_pooled(pooled_readings(subexperiments), cor)


def _entropy(seed: int | np.random.SeedSequence | None) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.entropy)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise MergeError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def _bootstrap(values: np.ndarray, hem: str, n_runs: int, entropy: int) -> np.ndarray:
    """``n_runs`` readings of one HEM drawn with replacement, sorted ascending.

    The draw depends only on (seed, HEM name), not on which other HEMs are merged.
    """
    if len(values) == 0:
        raise MergeError(f"HEM {hem!r} has no readings left to bootstrap")
    rng = np.random.default_rng([entropy, zlib.crc32(hem.encode())])
    return np.sort(values[rng.integers(0, len(values), n_runs)])


def _standardised(sorted_values: np.ndarray, hems: list[str]) -> np.ndarray:
    """Rows scaled so that the dot product of two rows (in any order) is their Pearson r."""
    centred = sorted_values - sorted_values.mean(axis=1, keepdims=True)
    norm = np.sqrt((centred * centred).sum(axis=1, keepdims=True))
    flat = norm[:, 0] == 0
    if flat.any():
        raise MergeError(
            f"bootstrap readings of HEM(s) {[h for h, f in zip(hems, flat, strict=True) if f]} "
            "are constant; their correlation is undefined"
        )
    return centred / norm


def _link_factor(cor: np.ndarray) -> np.ndarray:
    """A with A A^T = cor from the eigen decomposition (as MASS::mvrnorm; PSD allowed)."""
    ev, vectors = np.linalg.eigh(cor)
    return vectors * np.sqrt(np.clip(ev, 0, None))


def _orders(link: np.ndarray) -> np.ndarray:
    """Argsort of each row of float32 Gaussian draws (the rank structure of a sample).

    For rows of up to 1024 runs this sorts packed 32-bit keys (a monotone logistic
    approximation of the normal CDF quantised to 2**-22, then the run index) with numpy's
    SIMD integer sort, about twice as fast as ``argsort``; values in the same 2**-22
    probability bin (about one pair in eight rows of 1000) are ordered by run index, which
    for exchangeable runs is a random tie-break. Longer rows use ``argsort``.
    """
    n = link.shape[-1]
    if n > 1024:
        return np.argsort(link, axis=-1)
    bits = max(1, (n - 1).bit_length())
    with np.errstate(over="ignore"):
        u = np.float32(1) / (np.float32(1) + np.exp(np.float32(-1.702) * link))
    key = (u * np.float32(2 ** (32 - bits) - 1)).astype(np.uint32)
    key <<= np.uint32(bits)
    key |= np.arange(n, dtype=np.uint32)
    key.sort(axis=-1)
    return (key & np.uint32(2**bits - 1)).astype(np.intp)


def _block_normals(entropy: int, block: int, shape: tuple[int, int]) -> np.ndarray:
    """Standard normal draws of one simulation block, float32 (SIM_BLOCK, *shape).

    Box-Muller: several times faster than numpy's ziggurat here and exact in distribution
    up to float32 resolution (ranks are all that is used).
    """
    rng = np.random.default_rng([entropy, _SIM_STREAM, block])
    size = SIM_BLOCK * shape[0] * shape[1]
    half = (size + 1) // 2
    # radius from a float64 uniform (tails to 8.5 sd), angle in float32 (fast SIMD sin/cos)
    radius = np.sqrt(-2.0 * np.log(1.0 - rng.random(half))).astype(np.float32)
    angle = np.float32(2.0 * np.pi) * rng.random(half, dtype=np.float32)
    z = np.empty(2 * half, dtype=np.float32)
    np.multiply(radius, np.cos(angle), out=z[:half])
    np.multiply(radius, np.sin(angle), out=z[half:])
    return z[:size].reshape(SIM_BLOCK, *shape)


def _score_blocks(
    std: np.ndarray, factor: np.ndarray, target: np.ndarray, entropy: int, blocks: Sequence[int]
) -> np.ndarray:
    """MSE of the merged correlation matrix for every simulation of the given blocks."""
    p, n = std.shape
    per_step = max(1, _CHUNK_ELEMENTS // (SIM_BLOCK * p * n))
    out = []
    for start in range(0, len(blocks), per_step):
        z = np.concatenate(
            [_block_normals(entropy, b, (p, n)) for b in blocks[start : start + per_step]]
        )
        link = np.matmul(factor.astype(np.float32), z)  # (sims, p, n)
        order = _orders(link)
        merged = np.empty(link.shape)
        np.put_along_axis(merged, order, np.broadcast_to(std, link.shape), axis=-1)
        achieved = np.matmul(merged, merged.transpose(0, 2, 1))
        out.append(((achieved - target) ** 2).sum(axis=(1, 2)) / (p * p))
    return np.concatenate(out) if out else np.empty(0)


def _merge_for(
    sorted_values: np.ndarray, factor: np.ndarray, entropy: int, sim: int, hems: list[str]
) -> pd.DataFrame:
    """The merged table of simulation ``sim`` (regenerated from its block's seed)."""
    p, n = sorted_values.shape
    z = _block_normals(entropy, sim // SIM_BLOCK, (p, n))[sim % SIM_BLOCK]
    order = _orders(factor.astype(np.float32) @ z)
    merged = np.empty_like(sorted_values)
    np.put_along_axis(merged, order, sorted_values, axis=-1)
    return pd.DataFrame(dict(zip(hems, merged, strict=True)))


def _check_counts(n_runs: int, n_sims: int) -> None:
    check_positive_int("n_runs", n_runs)
    check_positive_int("n_sims", n_sims)
    if n_runs < 2:
        raise MergeError("n_runs must be at least 2 to define a correlation")


def merge_memory_bytes(n_hems: int, n_runs: int) -> int:
    """Estimated peak bytes of a MUCH merge of ``n_hems`` HEMs into ``n_runs`` runs.

    Three float64 copies of the bootstraps (sorted, as float, standardised) and, per
    vectorised step, the float32 draws, links, sort keys and quantiles, the intp order and
    the float64 merged readings (32 bytes per element) of at least one simulation block.
    """
    elements = n_hems * n_runs
    return elements * 24 + max(elements * SIM_BLOCK, _CHUNK_ELEMENTS) * 32


def _available_bytes() -> int | None:
    """Memory this process can still get (MemAvailable, lowered by an address-space limit)."""
    available = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            available = None
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            available = soft if available is None else min(available, soft)
    except (ImportError, OSError, ValueError):
        pass
    return available


def _check_memory(n_hems: int, n_runs: int) -> None:
    """Refuse, with the figures, a merge that needs more memory than is available."""
    need = merge_memory_bytes(n_hems, n_runs)
    have = _available_bytes()
    if have is not None and need > have:
        raise MergeError(
            f"n_runs={n_runs:,} with {n_hems} HEMs needs about {need / 2**30:,.1f} GiB; "
            f"{have / 2**30:,.1f} GiB is available: lower n_runs"
        )


def _finish(
    sorted_values: np.ndarray,
    factor: np.ndarray,
    entropy: int,
    scores: np.ndarray,
    target: pd.DataFrame,
    dropped: tuple[str, ...] = (),
) -> MuchResult:
    hems = [str(h) for h in target.columns]
    chosen = int(np.argmin(scores))
    merged = _merge_for(sorted_values, factor, entropy, chosen, hems)
    achieved = np.atleast_2d(np.corrcoef(merged.to_numpy(dtype=float), rowvar=False))
    return MuchResult(
        merged=merged,
        scores=scores,
        chosen=chosen,
        achieved=pd.DataFrame(achieved, index=target.index, columns=target.columns),
        target=target,
        dropped=dropped,
    )


def simulate_and_merge(
    params: MvgParams,
    n_runs: int,
    n_sims: int,
    cor: pd.DataFrame,
    seed: int | np.random.SeedSequence | None = None,
) -> MuchResult:
    """Bootstrap, simulate ``n_sims`` Gaussian samples, merge on the best one (see module doc).

    ``cor`` is the target correlation matrix (the independent one); it must be positive
    (semi-)definite. Ranks are drawn from the correlation, which gives the same rank
    structure as drawing from ``params.sigma`` (scaling a column keeps its order).
    """
    _check_counts(n_runs, n_sims)
    check_positive_definite(cor)
    hems = [str(h) for h in cor.columns]
    _check_memory(len(hems), n_runs)
    entropy = _entropy(seed)
    sorted_values = np.stack([_bootstrap(params.values[h], h, n_runs, entropy) for h in hems])
    factor = _link_factor(cor.to_numpy(dtype=float))
    blocks = list(range(-(-n_sims // SIM_BLOCK)))
    scores = _score_blocks(
        _standardised(sorted_values.astype(float), hems),
        factor,
        cor.to_numpy(dtype=float),
        entropy,
        blocks,
    )[:n_sims]
    return _finish(sorted_values, factor, entropy, scores, cor)


class MuchMerger:
    """The MUCH pipeline over one set of subexperiments, caching every intermediate.

    For live controls: the correlation matrix and the pooled readings are computed once;
    the independent matrix per ``(dep_lvl, absolute)``; bootstraps per (HEM, ``n_runs``,
    seed); simulation scores per block of :data:`SIM_BLOCK` simulations for each kept HEM
    set. Changing ``n_sims`` computes only the new blocks; changing ``dep_lvl`` reuses the
    correlations, the pooled readings and the bootstraps. ``computed`` counts the work done
    (for tests and diagnostics). ``seed=None`` fixes one random seed for this merger.
    """

    def __init__(self, subexperiments: Sequence[pd.DataFrame], seed: int | None = None) -> None:
        self._init(float_blocks(subexperiments), hem_dtypes(subexperiments), seed)

    @classmethod
    def _from_blocks(cls, blocks, dtypes: dict[str, np.dtype], seed: int | None) -> MuchMerger:
        merger = cls.__new__(cls)
        merger._init(blocks, dtypes, seed)
        return merger

    def _init(self, blocks, dtypes: dict[str, np.dtype], seed: int | None) -> None:
        # own float copies of the readings: later edits of the inputs cannot stale the cache
        self._blocks = blocks
        self._dtypes = dtypes
        self._default_entropy = _entropy(seed)
        self.computed: Counter[str] = Counter()
        self._cor: pd.DataFrame | None = None
        self._pooled: dict[str, np.ndarray] | None = None
        self._independent: dict[tuple[float, bool], pd.DataFrame] = {}
        self._boot: OrderedDict[tuple[str, int, int], np.ndarray] = OrderedDict()
        self._scores: OrderedDict[tuple, list[np.ndarray]] = OrderedDict()

    @property
    def correlation(self) -> pd.DataFrame:
        """Correlation matrix of all HEMs (computed once)."""
        if self._cor is None:
            self.computed["correlation"] += 1
            self._cor = correlation_from_blocks(self._blocks)
        return self._cor

    @property
    def pooled(self) -> dict[str, np.ndarray]:
        if self._pooled is None:
            self.computed["pooled"] += 1
            self._pooled = _pooled_from_blocks(self._blocks, self._dtypes)
        return self._pooled

    def independent(self, dep_lvl: float, absolute: bool = False) -> pd.DataFrame:
        key = (float(dep_lvl), bool(absolute))
        if key not in self._independent:
            self.computed["independent"] += 1
            kept = independent_matrix(self.correlation, dep_lvl, absolute=absolute)
            check_positive_definite(kept, self.correlation, dep_lvl, absolute=absolute)
            self._independent[key] = kept
        return self._independent[key]

    def params(self, dep_lvl: float = 0.85, absolute: bool = False) -> MvgParams:
        return _params_from_pooled(self.pooled, self.independent(dep_lvl, absolute))

    def _bootstrap(self, hem: str, n_runs: int, entropy: int) -> np.ndarray:
        key = (hem, n_runs, entropy)
        if key not in self._boot:
            self.computed["bootstrap"] += 1
            self._boot[key] = _bootstrap(self.pooled[hem], hem, n_runs, entropy)
            while len(self._boot) > 256:
                self._boot.popitem(last=False)
        return self._boot[key]

    def merge(
        self,
        n_runs: int = 1000,
        n_sims: int = 100,
        dep_lvl: float = 0.85,
        seed: int | None = None,
        *,
        absolute: bool = False,
    ) -> MuchResult:
        """The MUCH merge for these settings, reusing whatever earlier calls computed."""
        _check_counts(n_runs, n_sims)
        entropy = self._default_entropy if seed is None else _entropy(seed)
        target = self.independent(dep_lvl, absolute)
        hems = [str(h) for h in target.columns]
        _check_memory(len(hems), n_runs)
        sorted_values = np.stack([self._bootstrap(h, n_runs, entropy) for h in hems])
        target_values = target.to_numpy(dtype=float)
        factor = _link_factor(target_values)
        key = (tuple(hems), n_runs, entropy)
        cached = self._scores.setdefault(key, [])
        self._scores.move_to_end(key)
        while len(self._scores) > 32:
            self._scores.popitem(last=False)
        needed = -(-n_sims // SIM_BLOCK)
        if len(cached) < needed:
            new = list(range(len(cached), needed))
            self.computed["simulation_blocks"] += len(new)
            scores = _score_blocks(
                _standardised(sorted_values.astype(float), hems),
                factor,
                target_values,
                entropy,
                new,
            )
            cached.extend(np.split(scores, len(new)))
        scores = np.concatenate(cached[:needed])[:n_sims]
        dropped = tuple(h for h in self.correlation.columns if h not in target.columns)
        return _finish(sorted_values, factor, entropy, scores, target, dropped)


_MERGERS: OrderedDict[str, MuchMerger] = OrderedDict()
_MAX_MERGERS = 4


def _fingerprint(blocks, dtypes: dict[str, np.dtype]) -> str:
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(sorted((k, str(v)) for k, v in dtypes.items())).encode())
    for names, values in blocks:
        digest.update(repr(names).encode())
        digest.update(memoryview(np.ascontiguousarray(values)).cast("B"))
        digest.update(b"|")
    return digest.hexdigest()


def much_merge(
    subexperiments: Sequence[pd.DataFrame],
    n_runs: int = 1000,
    n_sims: int = 100,
    dep_lvl: float = 0.85,
    seed: int | None = None,
    *,
    absolute: bool = False,
) -> MuchResult:
    """Merge subexperiments with MUCH (see module doc); returns merged data and diagnostics.

    Intermediates are cached per content of ``subexperiments`` (a few recent inputs), so a
    repeated call with another ``dep_lvl`` or ``n_sims`` recomputes only what depends on it;
    use :class:`MuchMerger` directly to hold the cache yourself. With ``seed=None`` every
    call draws fresh random numbers.
    """
    _check_counts(n_runs, n_sims)
    blocks = float_blocks(subexperiments)
    dtypes = hem_dtypes(subexperiments)
    key = _fingerprint(blocks, dtypes)
    merger = _MERGERS.get(key)
    if merger is None:
        merger = MuchMerger._from_blocks(blocks, dtypes, None)
        _MERGERS[key] = merger
        while len(_MERGERS) > _MAX_MERGERS:
            _MERGERS.popitem(last=False)
    _MERGERS.move_to_end(key)
    seed = _entropy(seed)
    return merger.merge(n_runs, n_sims, dep_lvl, seed, absolute=absolute)
