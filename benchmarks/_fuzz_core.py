"""Seeded, time-bounded mutation fuzzing of perfweave's parsers.

A :class:`Target` names a parser (a callable taking a :class:`~pathlib.Path`) and the seed
inputs it reads. :func:`fuzz` mutates the seeds (bytes, lines, numbers, structure), writes
each mutant under the seed's own file name (readers that look at names still recognise it,
and ``companions`` are copied beside it unchanged), runs the parser and records every input
whose parse raised anything but a :class:`perfweave.errors.PerfweaveError`, or took longer
than ``slow_seconds``. Failing inputs are kept under ``workdir/failures/`` so they can be
turned into regression cases. Runs are reproducible: the same ``seed`` gives the same
mutants in the same order (only how many are tried depends on the clock).
"""

from __future__ import annotations

import random
import re
import shutil
import signal
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perfweave.errors import PerfweaveError

#: numbers a mutation puts in place of a number of the seed: edges, overflow, non-finite
INTERESTING_NUMBERS: tuple[str, ...] = (
    "0",
    "-1",
    "1",
    "-0",
    "2147483648",
    "4000000000",
    "18446744073709551616",
    "1" + "0" * 24,
    "9" * 20,
    "9" * 10_000,
    "1e400",
    "-1e400",
    "2e23",
    "1e-400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "0x10",
    "3-00",
    "1.5",
    "-",
    "",
)

#: fragments inserted by the byte mutator: control bytes, separators, broken UTF-8
INTERESTING_BYTES: tuple[bytes, ...] = (
    b"\x00",
    b"\xff\xfe",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b",",
    b":",
    b"-",
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b"\x1b[31m",
    b"\xc3",
)

_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Target:
    """One parser to fuzz: ``parse(path)`` reads a mutant of one of ``seeds``.

    ``companions`` are files copied unchanged into the mutant's directory (for readers of a
    directory, e.g. a recv count file beside the mutated send file). ``mutator`` replaces
    :func:`mutate` for inputs whose structure a generic mutation rarely gets past (ELF).
    """

    name: str
    seeds: tuple[Path, ...]
    parse: Callable[[Path], object]
    companions: tuple[Path, ...] = ()
    mutator: Callable[[bytes, random.Random], bytes] | None = None


@dataclass(frozen=True)
class Failure:
    """An input whose parse raised a non-perfweave exception or was too slow."""

    target: str
    kind: str  # exception class name, or "slow"
    message: str
    where: str  # innermost frame "file:line" inside perfweave (or the last frame)
    seconds: float
    saved: Path | None  # the kept copy of the input

    @property
    def key(self) -> tuple[str, str]:
        """Two failures with the same key are taken for the same bug."""
        return (self.kind, self.where)


@dataclass
class FuzzReport:
    """What one :func:`fuzz` run tried and found."""

    target: str
    tried: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)  # first of each distinct key
    failing_inputs: int = 0  # all inputs that failed, repeats included

    @property
    def ok(self) -> bool:
        return not self.failures


class _Timeout(BaseException):
    """Raised from the alarm handler; a BaseException so parsers cannot swallow it."""


# --------------------------------------------------------------------------- mutations


def _mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return rng.choice(INTERESTING_BYTES)
    pos = rng.randrange(len(data) + 1)
    op = rng.randrange(4)
    if op == 0:  # flip a byte
        i = min(pos, len(data) - 1)
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if op == 1:  # insert a special fragment
        return data[:pos] + rng.choice(INTERESTING_BYTES) + data[pos:]
    if op == 2:  # delete a short run
        return data[:pos] + data[pos + rng.randint(1, 8) :]
    return data[:pos]  # truncate


def _mutate_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return _mutate_bytes(data, rng)
    i = rng.randrange(len(lines))
    op = rng.randrange(5)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        lines = lines[:i]
    else:
        lines[i:i] = [lines[i]] * rng.choice((10, 100, 1000))
    return b"\n".join(lines)


def _mutate_number(data: bytes, rng: random.Random) -> bytes:
    spans = [m.span() for m in _NUMBER.finditer(data, 0, 1 << 16)]
    if not spans:
        return _mutate_bytes(data, rng)
    start, end = rng.choice(spans)
    new = rng.choice(INTERESTING_NUMBERS).encode()
    return data[:start] + new + data[end:]


def _mutate_structure(data: bytes, rng: random.Random) -> bytes:
    op = rng.randrange(5)
    n = len(data)
    if op == 0 and n:  # duplicate a block somewhere else
        a = rng.randrange(n)
        b = min(n, a + rng.randint(1, 256))
        at = rng.randrange(n + 1)
        return data[:at] + data[a:b] + data[at:]
    if op == 1:  # swap separators
        old, new = rng.choice(
            ((b",", b";"), (b" ", b"\t"), (b":", b""), (b"\n", b"\r\n"), (b"=", b" "))
        )
        return data.replace(old, new)
    if op == 2:  # deep nesting of brackets at a random place
        at = rng.randrange(n + 1)
        depth = rng.choice((100, 1000, 10_000))
        return data[:at] + b"[" * depth + b"]" * depth + data[at:]
    if op == 3:  # empty or whitespace only
        return rng.choice((b"", b"\n", b" \n\n"))
    return data * 2 if n < 1 << 20 else data  # the whole input twice


MUTATORS: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    _mutate_bytes,
    _mutate_lines,
    _mutate_number,
    _mutate_structure,
)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three stacked mutations of ``data``."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        data = rng.choice(MUTATORS)(data, rng)
    return data


# ------------------------------------------------------------------------------ runner


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if "perfweave" in f.filename] or frames
    if not mine:
        return "?"
    f = mine[-1]
    return f"{Path(f.filename).name}:{f.lineno}"


def _run_one(
    parse: Callable[[Path], object], path: Path, slow: float
) -> tuple[BaseException | None, float]:
    """Parse ``path``; the exception (or ``_Timeout``) it ended with and the seconds it took."""
    use_alarm = threading.current_thread() is threading.main_thread() and hasattr(
        signal, "setitimer"
    )
    previous = None
    if use_alarm:

        def _alarm(signum, frame):
            raise _Timeout

        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, slow)
    t0 = time.perf_counter()
    error: BaseException | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse(path)
    except (_Timeout, Exception) as exc:  # the point: see what escapes
        error = exc
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - t0
    if error is None and elapsed > slow:
        error = _Timeout()
    return error, elapsed


def _prepare(target: Target, case_dir: Path) -> None:
    if case_dir.exists():
        shutil.rmtree(case_dir)
    case_dir.mkdir(parents=True)
    for companion in target.companions:
        shutil.copyfile(companion, case_dir / companion.name)


def fuzz(
    target: Target,
    seconds: float,
    seed: int,
    workdir: Path,
    *,
    slow_seconds: float = 5.0,
    max_inputs: int | None = None,
) -> FuzzReport:
    """Mutate ``target``'s seeds for ``seconds`` (or ``max_inputs``) and parse each mutant.

    Returns the number tried and the distinct failures (an exception that is not a
    ``PerfweaveError``, or a parse slower than ``slow_seconds``); each failing input is
    kept under ``workdir/failures/<target>/<n>/<seed file name>``.
    """
    rng = random.Random(seed)
    workdir = Path(workdir)
    seeds = [(p.name, p.read_bytes()) for p in target.seeds]
    if not seeds:
        raise ValueError(f"target {target.name!r} has no seed inputs")
    report = FuzzReport(target.name)
    seen: set[tuple[str, str]] = set()
    case_dir = workdir / "current" / target.name
    t_start = time.perf_counter()
    deadline = t_start + seconds
    while time.perf_counter() < deadline:
        if max_inputs is not None and report.tried >= max_inputs:
            break
        name, data = rng.choice(seeds)
        mutant = (target.mutator or mutate)(data, rng)
        _prepare(target, case_dir)
        path = case_dir / name
        path.write_bytes(mutant)
        error, elapsed = _run_one(target.parse, path, slow_seconds)
        report.tried += 1
        if error is None or isinstance(error, PerfweaveError):
            continue
        report.failing_inputs += 1
        kind = "slow" if isinstance(error, _Timeout) else type(error).__name__
        where = "-" if kind == "slow" else _where(error)
        if (kind, where) in seen:
            continue
        seen.add((kind, where))
        keep = workdir / "failures" / target.name / str(len(report.failures))
        if keep.exists():
            shutil.rmtree(keep)
        shutil.copytree(case_dir, keep)
        message = f"took over {slow_seconds:g} s" if kind == "slow" else str(error)[:300]
        report.failures.append(Failure(target.name, kind, message, where, elapsed, keep / name))
    report.seconds = time.perf_counter() - t_start
    shutil.rmtree(case_dir, ignore_errors=True)
    return report


def format_reports(reports: Sequence[FuzzReport]) -> str:
    """A plain table: target, inputs tried, seconds, failures, then one line per failure."""
    lines = [f"{'target':<32} {'tried':>8} {'seconds':>8} {'failing':>8} {'distinct':>8}"]
    for r in reports:
        lines.append(
            f"{r.target:<32} {r.tried:>8} {r.seconds:>8.1f} {r.failing_inputs:>8} "
            f"{len(r.failures):>8}"
        )
    for r in reports:
        for f in r.failures:
            lines.append(f"  {f.target}: {f.kind} at {f.where}: {f.message[:120]}  [{f.saved}]")
    return "\n".join(lines)
