"""The explorer's rows, worked out for the open part of the tree only, are exactly the rows of
the whole tree laid out in sorted preorder (how the explorer found them before), on the
bundled profiles: the visible rows and their order, row numbers, depths, search matches in
row order, opening paths, subtrees and "Expand all" with a row budget."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.display import gather_children, preorder
from perfweave.calltree.forest import level_order
from perfweave.widgets import CalltreeExplorer, _tree_rows
from perfweave.widgets._explorer_page import FIRST_WINDOW
from perfweave.widgets._transport import unpack
from perfweave.widgets._tree_rows import TreeRows, _sort_key

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROFILES = {
    "gamess": "hatchet-more/hpctoolkit-gamess",  # 11,292 nodes, 74 levels
    "gprof-dag": "hatchet/gprof2dot-cpi/callgrind.dot.64042.0.1",  # a DAG, unrolled
    "allgather": "hatchet/hpctoolkit-allgather-database",  # ranks and threads
    "lulesh": "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json",
}


@pytest.fixture(scope="module", params=sorted(PROFILES))
def frame(request, data_dir):
    return pw.read(str(data_dir / PROFILES[request.param]))


@pytest.fixture(params=["levels", "one pass"])
def gather(request, monkeypatch):
    """Both ways of finding the open part: level by level, and one pass over the canonical
    preorder (what a deep open path takes)."""
    if request.param == "one pass":
        monkeypatch.setattr(_tree_rows, "GATHER_LEVELS", 1)
    return request.param


class Whole:
    """The rows as the explorer laid them out before: the whole display tree in sorted
    preorder, the visible rows read off it."""

    def __init__(self, rows: TreeRows, values: np.ndarray, descending: bool) -> None:
        self.rows = rows
        self.pos, self.depth, self.size = preorder(rows.parent, _sort_key(values, descending))
        self.order = np.argsort(self.pos)

    def visible(self) -> np.ndarray:
        m = len(self.pos)
        closed = ~self.rows.expanded & (self.size > 1)
        start = self.pos[closed] + 1
        end = self.pos[closed] + self.size[closed]
        diff = np.bincount(start, minlength=m + 1) - np.bincount(end, minlength=m + 1)
        return self.order[~(np.cumsum(diff[:m]) > 0)]

    def in_row_order(self, vids: np.ndarray) -> np.ndarray:
        return vids[np.argsort(self.pos[vids])]

    def expand_to(self, expanded: np.ndarray, vids: np.ndarray) -> np.ndarray:
        m = len(self.pos)
        marks = np.zeros(m + 1, np.int64)
        np.add.at(marks, self.pos[vids], 1)
        before = np.concatenate([[0], np.cumsum(marks)])
        return expanded | ((before[self.pos + self.size] - before[self.pos + 1]) > 0)

    def expand_within(self, tops: np.ndarray | None, budget: int) -> tuple[int, int]:
        """ "Expand all" as it was, on ``self.rows.expanded`` (in place)."""
        r = self.rows
        m = len(self.pos)
        tops = r.roots if tops is None else np.unique(tops)
        r.expanded[:] = self.expand_to(r.expanded, tops)
        marks = np.zeros(m + 1, np.int64)
        np.add.at(marks, self.pos[tops] + 1, 1)
        np.add.at(marks, self.pos[tops] + self.size[tops], -1)
        below = (np.cumsum(marks[:m]) > 0)[self.pos]
        frontier = tops[~below[tops]]
        visible = self.visible()
        rows = len(visible)
        everything = rows - int(below[visible].sum()) + int(below.sum())
        budget = max(int(budget), rows)
        shown = np.ones(m, np.int64)
        under = np.zeros(m, np.int64)
        for level in reversed(level_order(self.depth)):
            shown[level] = 1 + np.where(r.expanded[level], under[level], 0)
            up = r.parent[level]
            np.add.at(under, up[up >= 0], shown[level][up >= 0])
        ptr, idx = r._ptr, r._idx
        while len(frontier):
            closed = frontier[~r.expanded[frontier] & (r.n_children[frontier] > 0)]
            kids, counts = gather_children(ptr, idx, closed)
            owner = np.repeat(np.arange(len(closed)), counts)
            gain = np.bincount(owner, weights=shown[kids], minlength=len(closed)).astype(int)
            if rows + int(gain.sum()) > budget:
                order = np.argsort(self.pos[closed])
                fits = np.cumsum(gain[order]) <= budget - rows
                r.expanded[closed[order][fits]] = True
                rows += int(gain[order][fits].sum())
                break
            r.expanded[closed] = True
            rows += int(gain.sum())
            frontier = gather_children(ptr, idx, frontier)[0]
        return rows, everything


def _columns(gf: pw.GraphFrame) -> list[np.ndarray]:
    """Per display node sort values of two metrics, one with NaN for a tenth of the nodes."""
    rows = TreeRows(gf.graph)
    out = []
    for metric in dict.fromkeys([gf.default_metric, *gf.exc_metrics[:1]]):
        per_node = gf.dataframe[metric].groupby(level="node").sum()
        values = per_node.reindex(range(len(gf.graph))).to_numpy(dtype=float)
        out.append(rows.of_graph(values) if gf.graph.is_tree() else values[rows.node])
    gapped = out[0].copy()
    gapped[::10] = np.nan
    return [*out, gapped]


def _check(rows: TreeRows, whole: Whole) -> None:
    want = whole.visible()
    assert np.array_equal(rows.visible(), want)
    every = np.arange(len(rows))
    row = np.full(len(rows), -1)
    row[want] = np.arange(len(want))
    assert np.array_equal(rows.row_of(every), row)
    assert np.array_equal(rows.row_of(np.array([-1])), [-1])
    assert np.array_equal(rows.depth[want], whole.depth[want])


def test_visible_rows_are_the_whole_tree_laid_out(frame, gather):
    rng = np.random.default_rng(len(frame.graph))
    for values in _columns(frame):
        for descending in (True, False):
            rows = TreeRows(frame.graph)
            rows.sort_by(values, descending)
            rows.hot_path(values, 4)
            whole = Whole(rows, values, descending)
            _check(rows, whole)
            for _ in range(4):  # people open and close rows
                flip = rng.choice(len(rows), max(1, len(rows) // 8), replace=False)
                rows.set_expanded(flip, True)
                _check(rows, whole)
                rows.set_expanded(flip[::2], False)
                _check(rows, whole)
            rows.expanded[:] = rows.n_children > 0  # everything open
            rows.set_expanded(np.array([], np.int64), True)
            _check(rows, whole)


def test_a_new_sort_orders_the_open_rows_and_the_matches_anew(frame, gather):
    rng = np.random.default_rng(7)
    first, *others = _columns(frame)
    rows = TreeRows(frame.graph)
    rows.sort_by(first, True)
    rows.hot_path(first, 4)
    hit = rng.random(len(frame.graph)) < 0.2
    rows.set_matches(hit)
    matched = np.flatnonzero(hit[rows.node])
    assert np.array_equal(rows.matches, Whole(rows, first, True).in_row_order(matched))
    for values in others:
        rows.sort_by(values, False)
        whole = Whole(rows, values, False)
        _check(rows, whole)
        assert np.array_equal(rows.matches, whole.in_row_order(matched))


def test_paths_subtrees_and_expand_all_open_what_they_did(frame, gather):
    rng = np.random.default_rng(11)
    values = _columns(frame)[-1]
    stopped = 0
    for budget, whole_tree in [(b, t) for b in (5, 30, 60, 400, 10**6) for t in (True, False)]:
        rows = TreeRows(frame.graph)
        rows.sort_by(values, True)
        whole = Whole(rows, values, True)
        picked = rng.choice(len(rows), 6, replace=False)
        before = rows.expanded.copy()
        rows.expand_to(picked)
        assert np.array_equal(rows.expanded, whole.expand_to(before, picked))
        _check(rows, whole)
        rows.expand_subtree(int(picked[0]))
        sub = whole.order[whole.pos[picked[0]] : whole.pos[picked[0]] + whole.size[picked[0]]]
        assert rows.expanded[sub].all()
        _check(rows, whole)
        if whole_tree:  # "Expand all" with no row under the cursor: from the roots
            rows.expanded[:] = False
            rows.set_expanded(rows.roots, True)
        tops = None if whole_tree else picked[1:3]
        reference = TreeRows(frame.graph)
        reference.expanded[:] = rows.expanded
        got = rows.expand_within(tops, budget)
        want = Whole(reference, values, True).expand_within(tops, budget)
        assert got == want
        assert np.array_equal(rows.expanded, reference.expanded)
        _check(rows, whole)
        stopped += got[0] < got[1]
    assert stopped  # the budget stopped some: a level opened in part, in row order


def test_the_first_window_goes_with_the_state_and_is_the_first_rows_reply(frame):
    """The page draws the rows sent with the widget's state instead of asking: they are
    the reply its first request would get, until the view changes or the page asks."""
    ex = CalltreeExplorer(frame)
    first = ex.first_window
    assert first["reply"]["version"] == ex.view_version
    payload, buffers = ex._on_rows(*FIRST_WINDOW)
    assert first["reply"] == payload
    assert [bytes(b) for b in first["buffers"]] == [bytes(b) for b in buffers]
    cols = unpack(payload["rows"]["columns"], buffers)
    assert cols["vid"].tolist() == ex._rows.visible()[: FIRST_WINDOW[1]].tolist()
    # dropped: no reply, the buffers emptied where they were (a notebook's saved widget
    # state keeps buffers by path, and the saved page puts them back there)
    dropped = {"buffers": [b""] * len(buffers)}
    ex.sort_by(ex.columns[-1]["key"], descending=False)  # a change made in Python
    assert ex.first_window == dropped
    again = CalltreeExplorer(frame)
    assert again.first_window["reply"]
    again._answer({"type": "request", "id": 1, "action": "rows", "args": {}}, [])
    assert again.first_window == dropped  # a page asked: its rows may change from here
