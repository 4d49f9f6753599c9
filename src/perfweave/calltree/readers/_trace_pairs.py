"""B/E events into calls, in time order, by the rules of speedscope's trace-event import.

Per thread (pid, tid), two queues, each in time order (equal times in file order): the
``B`` events and the ``E`` events. The earlier front is taken; at equal times an end goes
first, unless it is the end of the begin at the front (see *zero-length calls* below).
Taking an end: of the ends at the front's time, one that matches the call on top of the
stack by name and args goes first, else one that matches it by name, else the front. That
end closes the top when its name is the top's (or it has none: the format lets ``E``
events leave the name out); an end of another name, or with nothing open, is ignored.
Calls still open when the queues are empty never ended: the caller closes them.

*Zero-length calls.* At equal times a begin goes before the front end when that end is
its end: the two have the same name and args, and the ``B`` comes earlier in the file or
the end cannot close the call on top (speedscope asks only for the same name and args,
which nests two back-to-back calls of one function, the second ending as it begins).

Most threads are paired all at once: their events sorted by (time, ends first, file
order), each level of nesting alternates begin, end, begin, end, and each neighbour pair
is what the queues pair, unless a pair's names differ, the depth goes below zero or a
``B`` and an ``E`` of one name share a time. A thread where any of that happens is
replayed with the queues, in Python.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable

import numpy as np
import pandas as pd

INT = np.int64


class Pairs:
    """Calls made of B/E events, as positions into the B/E arrays: each call's ``begin``
    and ``end`` (-1 for a call never ended), ``seq`` (the order in which calls were closed
    within their thread, for ties), and the ignored ends as (position, position of the
    call on top or -1)."""

    def __init__(self, begin, end, seq, ignored: list[tuple[int, int]]) -> None:
        self.begin = np.asarray(begin, INT)
        self.end = np.asarray(end, INT)
        self.seq = np.asarray(seq, INT)
        self.ignored = ignored


def pair(
    is_begin: np.ndarray,
    thread: np.ndarray,
    ts: np.ndarray,
    name: np.ndarray,
    key: Callable[[np.ndarray], list],
    event: np.ndarray,
) -> Pairs:
    """Pair the B/E events (``thread`` codes, times ``ts``, ``name`` of each, None for an
    E without one, ``event`` its index in the file) by the rules in the module docstring.
    ``key(positions)`` gives those events' name-and-args keys (asked only for threads that
    are replayed)."""
    n = len(is_begin)
    if not n:
        return Pairs([], [], [], [])
    order = np.lexsort((is_begin, ts, thread))  # time order per thread, ends first, stable
    b, t = is_begin[order], thread[order]
    step = np.where(b, 1, -1)
    run = np.cumsum(step)
    first = np.r_[True, t[1:] != t[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    after = run - (run[start] - step[start])  # depth after each event, within its thread
    depth = np.where(b, after - 1, after)
    level = np.lexsort((depth, t))  # (thread, depth), time order within: B, E, B, E, ...
    same = (t[level][1:] == t[level][:-1]) & (depth[level][1:] == depth[level][:-1])
    b_here = b[level]
    closes = np.r_[b_here[:-1] & ~b_here[1:] & same, False]
    bpos, epos = level[closes], level[np.flatnonzero(closes) + 1]  # positions in `order`
    e_name, b_name = name[order[epos]], name[order[bpos]]
    renamed = pd.notna(e_name) & (e_name != b_name)
    odd = np.r_[t[after < 0], t[bpos[renamed]], _shared_times(b, t, ts[order], name[order])]
    odd = np.unique(odd)
    keep = ~np.isin(t[bpos], odd)
    begin, end, seq = order[bpos[keep]], order[epos[keep]], epos[keep]
    paired = np.zeros(n, bool)
    paired[begin] = paired[end] = True
    open_b = np.flatnonzero(is_begin & ~paired & ~np.isin(thread, odd))
    ignored: list[tuple[int, int]] = []
    if len(odd):
        rb, re_, rs, ro, ignored = _replay(is_begin, thread, ts, name, key, event, odd, n)
        begin, end, seq = np.r_[begin, rb], np.r_[end, re_], np.r_[seq, rs]
        open_b = np.r_[open_b, ro]
    return Pairs(
        np.r_[begin, open_b],
        np.r_[end, np.full(len(open_b), -1, INT)],
        np.r_[seq, np.full(len(open_b), -1, INT)],
        ignored,
    )


def _shared_times(b: np.ndarray, t: np.ndarray, ts: np.ndarray, name: np.ndarray) -> np.ndarray:
    """Threads where a B and an E of one name (or an E without a name) share a time: the
    zero-length rule may apply there, so they are replayed. Arrays in pairing order, so
    the events of one thread and time are neighbours; (speed) only the events of times
    that have both a B and an E are looked at by name."""
    if len(b) < 2:
        return np.zeros(0, INT)
    group = np.cumsum(np.r_[True, (t[1:] != t[:-1]) | (ts[1:] != ts[:-1])]) - 1
    has_b = np.zeros(int(group[-1]) + 1, bool)
    has_e = np.zeros(len(has_b), bool)
    has_b[group[b]] = True
    has_e[group[~b]] = True
    at = np.flatnonzero((has_b & has_e)[group])  # events of a time with a B and an E
    if not len(at):
        return np.zeros(0, INT)
    group, b = group[at], b[at]
    code, _ = pd.factorize(name[at])  # None: -1
    e_here = ~b
    both = np.zeros(len(at), bool)
    nameless = e_here & (code < 0)
    span = int(code.max(initial=0)) + 2
    b_keys = group[b] * span + code[b] + 1
    both[e_here] = np.isin(group[e_here] * span + code[e_here] + 1, b_keys)
    return np.unique(t[at][both | nameless])


def _replay(is_begin, thread, ts, name, key, event, odd, n):
    """The queues of the module docstring over the threads ``odd``, one thread at a time:
    pairs (with their closing order), calls never ended, ignored ends (position, top)."""
    todo = np.flatnonzero(np.isin(thread, odd))
    todo = todo[np.lexsort((ts[todo], thread[todo]))]  # by thread, time order, stable
    keys = dict(zip(todo.tolist(), key(todo)))
    begins, ends, seqs, never, ignored = [], [], [], [], []
    counter = n  # closing order: past every position the vectorised pairs use
    bounds = np.flatnonzero(np.r_[True, thread[todo][1:] != thread[todo][:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        events = todo[lo:hi].tolist()
        bq = deque(p for p in events if is_begin[p])
        eq = _EndQueue([p for p in events if not is_begin[p]], ts, name, keys)
        stack: list[int] = []
        while bq or eq:
            if eq and bq:
                bt, e_front = ts[bq[0]], eq.front()
                et = ts[e_front]
                take_begin = bt < et or (
                    bt == et and _zero_length(bq[0], e_front, stack, name, keys, event)
                )
            else:
                take_begin = bool(bq)
            if take_begin:
                stack.append(bq.popleft())
                continue
            e = eq.take(stack[-1] if stack else None)
            if not stack:
                ignored.append((e, -1))
            elif name[e] is not None and name[e] != name[stack[-1]]:
                ignored.append((e, stack[-1]))
            else:
                begins.append(stack.pop())
                ends.append(e)
                seqs.append(counter)
                counter += 1
        never.extend(stack)
    as_int = lambda x: np.asarray(x, INT)  # noqa: E731
    return as_int(begins), as_int(ends), as_int(seqs), as_int(never), ignored


def _zero_length(b: int, e: int, stack: list[int], name, keys, event) -> bool:
    """Whether the end ``e`` at the front is the end of the begin ``b`` at the front (same
    time): same name and args, and ``b`` earlier in the file or ``e`` unable to close the
    call on top."""
    if keys[b] != keys[e]:
        return False
    return bool(event[b] < event[e]) or not stack or name[e] != name[stack[-1]]


class _EndQueue:
    """The ends of one thread in time order; of the ends at the front's time, the first
    with a given key or name can be taken (the others keep their order)."""

    def __init__(self, ends: list[int], ts, name, keys) -> None:
        self.ends, self.ts, self.name, self.keys = ends, ts, name, keys
        self.pos = 0  # the first end not taken (taken ones after it are marked)
        self.taken: set[int] = set()
        self.group_end = 0
        self.by_key: dict = {}
        self.by_name: dict = {}

    def __bool__(self) -> bool:
        self._skip()
        return self.pos < len(self.ends)

    def _skip(self) -> None:
        while self.pos < len(self.ends) and self.ends[self.pos] in self.taken:
            self.pos += 1

    def front(self) -> int:
        self._skip()
        return self.ends[self.pos]

    def _group(self) -> None:
        """Index the ends at the front's time (once per time)."""
        if self.pos < self.group_end:
            return
        t = self.ts[self.ends[self.pos]]
        hi = self.pos
        by_key, by_name = defaultdict(deque), defaultdict(deque)
        while hi < len(self.ends) and self.ts[self.ends[hi]] == t:
            p = self.ends[hi]
            by_key[self.keys[p]].append(p)
            by_name[self.name[p]].append(p)  # None: an end without a name
            hi += 1
        self.group_end, self.by_key, self.by_name = hi, by_key, by_name

    def _first(self, index: dict, value) -> int | None:
        q = index.get(value)
        while q and q[0] in self.taken:
            q.popleft()
        return q[0] if q else None

    def take(self, top: int | None) -> int:
        """Take the end that matches ``top`` (by key, else by name, else one without a
        name) at the front's time, else the front."""
        self._skip()
        self._group()
        chosen = None
        if top is not None:
            for index, value in (
                (self.by_key, self.keys[top]),
                (self.by_name, self.name[top]),
                (self.by_name, None),
            ):
                chosen = self._first(index, value)
                if chosen is not None:
                    break
        if chosen is None:
            chosen = self.ends[self.pos]
        self.taken.add(chosen)
        return chosen
