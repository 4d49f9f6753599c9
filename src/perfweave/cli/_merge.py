"""``perfweave merge hrm | much | design``: HEM merging and run planning on the command line."""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    merge = subparsers.add_parser(
        "merge", help="merge hardware-event subexperiments (HRM, MUCH) or plan the runs"
    )
    sub = merge.add_subparsers(dest="merge_command", metavar="METHOD")
    sub.required = True

    hrm = sub.add_parser("hrm", help="HRM merge around an anchor HEM read in every run")
    _common(hrm)
    hrm.add_argument("--anchor", required=True, help="anchor HEM name (e.g. PROCESSOR_CYCLES)")
    hrm.set_defaults(func=_hrm)

    much = sub.add_parser("much", help="MUCH merge through a Gaussian copula")
    _common(much)
    much.add_argument("--n-runs", type=int, default=1000, help="rows of the result (1000)")
    much.add_argument("--n-sims", type=int, default=100, help="Gaussian samples tried (100)")
    much.add_argument("--dep-lvl", type=float, default=0.85, help="dependency level (0.85)")
    much.add_argument("--absolute", action="store_true", help="compare |correlation|")
    much.add_argument("--seed", type=int, help="random seed (default: fresh)")
    much.set_defaults(func=_much)

    design = sub.add_parser("design", help="plan subexperiments covering every HEM pair")
    design.add_argument(
        "--hems", required=True, help="number of HEMs, or their names separated by commas"
    )
    design.add_argument("--pmcs", type=int, required=True, help="PMCs read per run")
    design.add_argument("--anchor", help="HEM read in every run")
    design.add_argument(
        "--hrm", action="store_true", help="HRM layout (needs --anchor) instead of pair covering"
    )
    design.add_argument("--seed", type=int, default=0, help="search seed (0)")
    design.add_argument(
        "--moves",
        type=int,
        default=None,
        help="search budget in annealing moves (pair_covering_design's default, a few "
        "seconds); the same seed gives the same design on any machine",
    )
    design.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="also stop after this many seconds (off; a capped search depends on the machine)",
    )
    design.add_argument("--out", help="CSV file of the runs (default: text on standard output)")
    design.set_defaults(func=_design)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("csv", help="raw readings: columns named by event code (X446, X446.1)")
    parser.add_argument("--n-pmcs", type=int, required=True, help="HEMs read per subexperiment")
    parser.add_argument(
        "--min-mean", type=float, help="drop columns whose mean is <= this (mergingTools: 100)"
    )
    parser.add_argument("--out", help="merged CSV (default: standard output)")


def _study(args):
    """The merge study of the raw CSV, its warnings (dropped columns) on standard error."""
    import warnings

    from perfweave.merge import MergeStudy

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study = MergeStudy(args.csv, args.n_pmcs, min_mean=args.min_mean)
    for w in caught:
        print(f"perfweave merge: {w.message}", file=sys.stderr)
    return study


def _write(frame, out: str | None) -> None:
    if out:
        frame.to_csv(out, index=False)
    else:
        frame.to_csv(sys.stdout, index=False)


def _hrm(args: argparse.Namespace) -> int:
    from perfweave.merge import MergeSettings

    study = _study(args).apply(MergeSettings("hrm", args.anchor))
    _write(study.result, args.out)
    return 0


def _much(args: argparse.Namespace) -> int:
    # much_merge, not MergeStudy: the command line takes any n_sims and n_runs the core can
    # merge (the study's settings keep a panel's slider ranges) and a fresh seed by default
    from perfweave.merge import much_merge

    result = much_merge(
        _study(args).subexperiments,
        n_runs=args.n_runs,
        n_sims=args.n_sims,
        dep_lvl=args.dep_lvl,
        seed=args.seed,
        absolute=args.absolute,
    )
    if result.dropped:
        print(
            f"perfweave merge: dependent HEMs dropped: {', '.join(result.dropped)}", file=sys.stderr
        )
    print(
        f"perfweave merge: best of {len(result.scores)} simulations: #{result.chosen}, "
        f"correlation MSE {result.scores[result.chosen]:.3g}",
        file=sys.stderr,
    )
    _write(result.merged, args.out)
    return 0


def _design(args: argparse.Namespace) -> int:
    from perfweave.errors import MergeError
    from perfweave.merge import hrm_design, pair_covering_design

    hems: int | list[str]
    hems = (
        int(args.hems) if args.hems.strip().isdigit() else [h.strip() for h in args.hems.split(",")]
    )
    if args.hrm:
        if not args.anchor:
            raise MergeError("--hrm needs --anchor")
        design = hrm_design(hems, args.pmcs, args.anchor)
    else:
        design = pair_covering_design(
            hems,
            args.pmcs,
            anchor=args.anchor,
            seed=args.seed,
            time_limit=args.time_limit,
            **({} if args.moves is None else {"max_moves": args.moves}),
        )
    if args.out:
        design.to_frame().to_csv(args.out, index=False)
    else:
        for i, block in enumerate(design.blocks, 1):
            print(f"{i:4d}: {' '.join(block)}")
    proven = (
        f", proven lower bound {design.proven_bound}"
        if design.proven_bound > design.lower_bound
        else ""
    )
    print(
        f"perfweave merge: {design.n_subexperiments} subexperiments for {len(design.hems)} HEMs "
        f"with {design.n_pmcs} PMCs ({design.kind}); lower bound {design.lower_bound}{proven}",
        file=sys.stderr,
    )
    return 0
