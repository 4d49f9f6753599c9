"""The one widget contract (perfweave.widgets._base) on two tiny widgets: an anywidget answering
page requests and an ipywidgets composite with a control."""

from __future__ import annotations

from typing import Any, ClassVar

import ipywidgets as widgets
import numpy as np
import pytest
import traitlets

from perfweave.errors import PerfweaveError, QueryError, ShapeError
from perfweave.widgets._base import (
    DEFAULT_REQUEST_TIMEOUT,
    CompositeBase,
    ContractMixin,
    ErrorBanner,
    Reply,
    RequestOrder,
    WidgetBase,
)
from perfweave.widgets._transport import pack, unpack


class Counter(WidgetBase):
    """A widget over one number: ``add`` refuses to go below zero."""

    value = traitlets.Int(0).tag(sync=True)
    _actions: ClassVar[dict[str, str]] = {"add": "_on_add", "crash": "_on_crash"}

    def add(self, step: int) -> Counter:
        def run() -> None:
            if self.value + step < 0:
                raise ShapeError(f"the count cannot go below zero (step {step})")
            self.value += step

        self._guard(run)
        return self

    def _on_add(self, step: int) -> Reply:
        self.add(step)
        header, buffers = pack({"value": np.array([self.value], np.int64)})
        return {"ok": True, "data": {"columns": header}}, buffers

    def _on_crash(self) -> Reply:
        return {}[0]  # a bug, not a PerfweaveError


class Limited(CompositeBase):
    """A composite with one slider whose value must stay even."""

    def __init__(self) -> None:
        super().__init__()
        self.even = 2
        self.slider = widgets.IntSlider(value=2, min=0, max=10)
        self.slider.observe(lambda ch: self._from_control(lambda: self.set(ch["new"])), "value")
        self._set_children(self.slider)

    def set(self, value: int) -> Limited:
        def run() -> None:
            if value % 2:
                raise QueryError(f"{value} is odd; an even number was expected")
            self.even = value

        self._guard(run)
        return self

    def _sync_controls(self) -> None:
        self.slider.value = self.even


def ask(widget: WidgetBase, action: Any, args: Any = None, rid: int = 7) -> tuple[dict, list]:
    """Send one page request to ``widget``; the response it sends back."""
    sent: list[tuple[dict, list]] = []
    widget.send = lambda content, buffers=None: sent.append((content, buffers or []))  # type: ignore[method-assign]
    widget._on_msg(widget, {"type": "request", "id": rid, "action": action, "args": args}, [])
    assert len(sent) == 1, sent
    return sent[0]


def test_error_is_one_kind_of_value_on_every_widget() -> None:
    for cls in (WidgetBase, CompositeBase, ErrorBanner):
        trait = cls.class_traits()["error"]
        assert isinstance(trait, traitlets.Unicode)
        assert trait.metadata.get("sync") is True
    assert issubclass(WidgetBase, ContractMixin) and issubclass(CompositeBase, ContractMixin)


def test_python_call_raises_keeps_state_and_sets_error() -> None:
    c = Counter().add(3)
    with pytest.raises(ShapeError, match="below zero"):
        c.add(-5)
    assert c.value == 3
    assert c.error == "the count cannot go below zero (step -5)"
    assert isinstance(c.last_exception, ShapeError)
    c.add(1)
    assert (c.value, c.error, c.last_exception) == (4, "", None)


def test_page_request_answers_with_named_columns() -> None:
    c = Counter()
    content, buffers = ask(c, "add", {"step": 5})
    assert content["type"] == "response" and content["id"] == 7 and content["ok"] is True
    assert unpack(content["data"]["columns"], buffers)["value"].tolist() == [5]
    assert c.error == ""


def test_page_request_failure_answers_ok_false_and_shows_banner() -> None:
    c = Counter(value=1)
    content, buffers = ask(c, "add", {"step": -2})
    assert content == {
        "type": "response",
        "id": 7,
        "ok": False,
        "error": "the count cannot go below zero (step -2)",
    }
    assert buffers == [] and c.value == 1
    assert c.error == content["error"]


@pytest.mark.parametrize(
    ("action", "args", "message"),
    [
        ("__init__", {}, "unknown request '__init__'"),
        ("_on_add", {"step": 1}, "unknown request '_on_add'"),
        (["add"], {}, "unknown request ['add']"),
        ("add", ["step"], "unknown request 'add'"),
    ],
)
def test_only_listed_actions_run(action: Any, args: Any, message: str) -> None:
    c = Counter()
    content, _ = ask(c, action, args)
    assert content["ok"] is False and content["error"] == message
    assert c.value == 0 and c.error == message


def test_a_bug_in_an_action_is_a_banner_with_its_type(caplog: pytest.LogCaptureFixture) -> None:
    c = Counter()
    content, _ = ask(c, "crash")
    assert content["ok"] is False and content["error"] == "KeyError: 0"
    assert "widget action 'crash' failed" in caplog.text


def test_request_timeout_is_a_documented_trait() -> None:
    assert Counter().request_timeout == DEFAULT_REQUEST_TIMEOUT == 10.0
    assert Counter(request_timeout=0.5).request_timeout == 0.5
    assert "request_timeout" in Counter().keys  # synced: the page reads it
    with pytest.raises(ShapeError, match="positive number of seconds, not 0"):
        Counter(request_timeout=0)


def test_request_timeout_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERFWEAVE_REQUEST_TIMEOUT", "1.5")
    assert Counter().request_timeout == 1.5
    monkeypatch.setenv("PERFWEAVE_REQUEST_TIMEOUT", "soon")  # unusable: the default
    assert Counter().request_timeout == DEFAULT_REQUEST_TIMEOUT


def test_composite_banner_comes_first_and_follows_error() -> None:
    box = Limited()
    assert box.children[0] is box.banner and box.children[1] is box.slider
    assert isinstance(box.banner, ErrorBanner) and box.banner.error == ""
    with pytest.raises(QueryError):
        box.set(3)
    assert box.banner.error == "3 is odd; an even number was expected"
    box.set(4)
    assert box.banner.error == "" and box.even == 4


def test_control_failure_shows_message_and_snaps_back() -> None:
    box = Limited()
    box.slider.value = 5  # what a person dragging the slider does
    assert box.even == 2 and box.slider.value == 2  # the control shows Python's state again
    assert box.error == box.banner.error == "5 is odd; an even number was expected"
    assert isinstance(box.last_exception, QueryError)
    box.slider.value = 6
    assert (box.even, box.error, box.last_exception) == (6, "", None)


def test_control_never_raises_even_on_a_bug(caplog: pytest.LogCaptureFixture) -> None:
    box = Limited()
    result = box._from_control(lambda: 1 / 0)
    assert result is None and box.error == "ZeroDivisionError: division by zero"
    assert "widget action failed" in caplog.text
    assert box._from_control(lambda: 42) == 42 and box.error == ""


def test_guard_lets_a_bug_through_unchanged() -> None:
    """A bug is not a user error: Python callers see the original exception."""
    c = Counter()
    with pytest.raises(ZeroDivisionError):
        c._guard(lambda: 1 / 0)
    assert c.error == ""


class Ledger(Counter):
    """A Counter that records the steps in the order it applied them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.applied: list[int] = []
        self.sent: list[dict] = []
        self.send = lambda content, buffers=None: self.sent.append(content)  # type: ignore[method-assign]

    def add(self, step: int) -> Counter:
        super().add(step)
        self.applied.append(step)
        return self


def from_page(widget: WidgetBase, seq: Any, step: int, channel: Any = "view-a") -> None:
    """What one view of a page sends for its ``seq``-th request (``id`` = ``seq``, as the page
    numbers them): add ``step``."""
    content = {"type": "request", "id": seq, "channel": channel, "seq": seq}
    widget._on_msg(widget, {**content, "action": "add", "args": {"step": step}}, [])


def test_page_requests_are_applied_in_the_order_the_page_made_them() -> None:
    """The transport hands requests 3, 1, 4, 2 over: Python applies 1, 2, 3, 4, each once,
    and answers each once, in that order (issue 29)."""
    w = Ledger()
    steps = {1: 10, 2: 20, 3: 30, 4: 40}
    from_page(w, 3, steps[3])
    assert w.applied == [] and w.sent == []  # 3 waits for 1 and 2
    assert w._request_order.waiting("view-a") == [3]
    from_page(w, 1, steps[1])
    assert w.applied == [10] and [r["id"] for r in w.sent] == [1]
    from_page(w, 4, steps[4])
    assert w.applied == [10] and w._request_order.waiting("view-a") == [3, 4]
    from_page(w, 2, steps[2])
    assert w.applied == [10, 20, 30, 40]
    assert [r["id"] for r in w.sent] == [1, 2, 3, 4]
    assert all(r["ok"] for r in w.sent) and w.value == 100 and w.error == ""
    assert w._request_order.waiting("view-a") == []


def test_each_view_of_a_widget_has_its_own_sequence() -> None:
    """Two views of one widget number their requests apart: one's gap holds back only its own."""
    w = Ledger()
    from_page(w, 2, 5, channel="view-a")
    from_page(w, 1, 7, channel="view-b")
    assert w.applied == [7]
    from_page(w, 1, 3, channel="view-a")
    assert w.applied == [7, 3, 5]


def test_a_request_that_comes_twice_is_refused_in_the_banner() -> None:
    w = Ledger()
    from_page(w, 1, 4)
    from_page(w, 1, 4)
    assert w.applied == [4] and w.value == 4
    assert w.sent[-1] == {
        "type": "response",
        "id": 1,
        "ok": False,
        "error": "request #1 of this view came twice; it counts once",
    }
    assert w.error == w.sent[-1]["error"] and isinstance(w.last_exception, PerfweaveError)
    from_page(w, 3, 1)
    from_page(w, 3, 1)  # waiting, not yet applied: a second copy is refused too
    from_page(w, 2, 1)
    assert w.applied == [4, 1, 1] and w.value == 6


def test_requests_behind_a_lost_one_are_refused_past_the_limit() -> None:
    """A request that never comes holds back at most ``max_waiting`` later ones: then they are
    refused in the banner, naming the lost ones, and the view applies what comes next."""
    w = Ledger()
    w._request_order = RequestOrder(max_waiting=2)
    from_page(w, 2, 1)
    from_page(w, 3, 1)
    from_page(w, 1, 1)  # fills the gap as the limit is passed: all three are applied
    assert w.applied == [1, 1, 1] and [r["ok"] for r in w.sent] == [True] * 3
    w = Ledger()
    w._request_order = RequestOrder(max_waiting=2)
    from_page(w, 3, 1)
    from_page(w, 4, 1)
    assert w.sent == []
    from_page(w, 5, 1)
    assert [(r["id"], r["ok"]) for r in w.sent] == [(3, False), (4, False), (5, False)]
    assert w.error == (
        "request(s) #1 to #2 of this view never reached Python, so the 3 made after them "
        "(#3 to #5) were not applied"
    )
    assert w.applied == [] and w.value == 0
    from_page(w, 6, 2)
    assert w.applied == [2] and w.error == ""
    from_page(w, 1, 9)  # the lost one, after all: too late, refused
    assert w.applied == [2] and w.sent[-1]["ok"] is False


@pytest.mark.parametrize(
    ("channel", "seq"), [("view-a", 0), ("view-a", "2"), ("view-a", True), (7, 1), (None, 1)]
)
def test_a_request_with_a_bad_sequence_is_refused(channel: Any, seq: Any) -> None:
    w = Ledger()
    from_page(w, seq, 5, channel=channel)
    assert w.applied == [] and w.sent[-1]["ok"] is False
    assert w.error == (
        f"request {seq!r} has channel {channel!r} and seq {seq!r}; "
        "expected a string and a whole number from 1"
    )


def test_perfweave_errors_are_the_only_user_errors() -> None:
    assert issubclass(ShapeError, PerfweaveError) and issubclass(QueryError, PerfweaveError)


def test_live_widgets_and_their_first_draw_replies_come_from_the_protocols():
    """The export records, for every perfweave widget alive, the replies its declared protocol
    says the page asks first, in the order the widgets were made."""
    import perfweave as pw
    from perfweave.widgets import live_widgets

    gf = pw.datasets.lulesh()
    explorer, flame = pw.CalltreeExplorer(gf), pw.FlameGraph(gf)
    alive = live_widgets()
    assert alive.index(explorer) < alive.index(flame) == len(alive) - 1
    replies = flame.first_draw_replies()
    assert list(replies) == ["frames"]
    payload, _buffers = replies["frames"]
    assert payload["ok"] and payload["meta"]["shown"] == len(
        flame.layout.frames(min_width=1 / 16384)
    )
    assert list(explorer.first_draw_replies()) == [
        name for name, a in explorer._protocol.actions.items() if a.first_draw is not None
    ]
