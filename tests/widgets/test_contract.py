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


def test_perfweave_errors_are_the_only_user_errors() -> None:
    assert issubclass(ShapeError, PerfweaveError) and issubclass(QueryError, PerfweaveError)
