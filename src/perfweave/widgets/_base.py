"""The one contract every perfweave widget keeps: errors, requests from the page, the banner.

**Errors.** Every widget has ``error``: the readable message of its last failed action, or
``""`` once an action worked (a plain string on every widget; the exception object itself,
for a notebook that wants it, is ``last_exception``). A failed action leaves the previous view
as it was and shows the message in the widget's banner; the same action called from Python
raises the :class:`~perfweave.errors.PerfweaveError`. Two entry points apply the rule:

- :meth:`ContractMixin._guard` wraps a public method (Python caller): it re-raises;
- :meth:`ContractMixin._from_control` wraps what a control or the page asks for: it does not
  re-raise (the banner says it) and calls ``_sync_controls()`` so the controls snap back to
  Python's state.

An action must leave the widget unchanged when it raises (check first, then assign).

**Requests from the page** (anywidgets, :class:`WidgetBase`). The browser sends custom
messages ``{"type": "request", "id", "channel", "seq", "action", "args"}``; the widget runs
the action (only names listed in ``_actions``: user strings are data, never code) and answers
``{"type": "response", "id", "ok", "error", ...}`` plus any binary buffers, whose column
header sits under one named key of the reply (``js/src/lib/request.js`` is told the key).
A failed action answers ``ok: false`` with the message. A request the kernel does not answer
within ``request_timeout`` seconds (the kernel stopped or restarted) gives up in the page and
the banner says so, keeping the last view usable.

**In the order they were made.** Each view of a widget on a page (``channel``, a random
name) numbers the requests it sends 1, 2, 3, ... (``seq``). The transport may hand them over
in another order; :class:`RequestOrder` keeps one that comes early until the ones before it
have come, then runs them all in sequence, so Python applies what a person did in the order
they did it. A request sent twice is refused (banner), never run again. A request without
``seq`` (a Python caller, a test) runs when it arrives.

**Composites** (:class:`CompositeBase`, ipywidgets boxes such as ClassPicker) show ``error`` in
an :class:`ErrorBanner`, the same banner the anywidgets draw (``js/src/lib/banner.js``).
"""

from __future__ import annotations

import functools
import logging
import os
import pathlib
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import anywidget
import ipywidgets as widgets
import traitlets

from perfweave.errors import PerfweaveError, ShapeError
from perfweave.widgets._protocol import Protocol

STATIC = pathlib.Path(__file__).parent / "static"
_log = logging.getLogger(__name__)

Reply = tuple[dict[str, Any], list[bytes]]

#: seconds the page waits for the kernel's answer to a request (``request_timeout``'s default;
#: the environment variable ``PERFWEAVE_REQUEST_TIMEOUT`` changes it for new widgets)
DEFAULT_REQUEST_TIMEOUT = 10.0

#: requests of one page that may wait for an earlier one that has not come; past this many the
#: missing ones count as lost and the waiting ones are refused (the banner says which)
MAX_WAITING = 256


def static_file(name: str) -> pathlib.Path:
    """A committed front-end bundle (built from ``js/`` by ``npm run build``)."""
    path = STATIC / name
    if not path.exists():
        raise FileNotFoundError(f"front-end bundle {path} is missing: run `npm run build` in js/")
    return path


def message_of(exc: BaseException) -> str:
    """The banner text of a failure: a PerfweaveError's own message, else its type and text."""
    if isinstance(exc, PerfweaveError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class ContractMixin(traitlets.HasTraits):
    """``error`` and the two ways an action runs (see the module docstring)."""

    #: readable message of the last failed action ("" when the last action worked)
    error = traitlets.Unicode("").tag(sync=True)

    #: the exception of the last failed action (None after one that worked); not synced
    last_exception: BaseException | None = None

    #: True while ``_sync_controls`` runs (see :meth:`_from_control`)
    _syncing = False

    def _guard(self, fn: Callable[[], Any]) -> Any:
        """Run a Python-side action: clear ``error`` on success; on a PerfweaveError put the
        synced traits back as they were, show its message and re-raise it (the caller gets the
        ``perfweave.errors`` exception)."""
        before = self._synced_state()
        try:
            result = fn()
        except PerfweaveError as exc:
            self._roll_back(before)
            self._failed(exc)
            raise
        self._succeeded()
        return result

    def _synced_state(self) -> dict[str, Any]:
        """The synced traits' values (what a failed action puts back)."""
        return {n: getattr(self, n) for n in self.trait_names(sync=True) if n != "error"}

    def _roll_back(self, before: dict[str, Any]) -> None:
        """Put back the synced traits a failed action changed before it raised."""
        changed = {n: v for n, v in before.items() if getattr(self, n) is not v}
        if changed:
            with self.hold_trait_notifications():
                for name, value in changed.items():
                    self.set_trait(name, value)

    def _from_control(self, fn: Callable[[], Any]) -> Any:
        """Run what a control or the page asked for: as :meth:`_guard`, but any failure ends in
        the banner (never raised into ipywidgets' observer machinery), then the controls are put
        back to Python's state. Returns ``fn()``'s result, or None when it failed.

        While the controls are being put back, the observers they fire do nothing (a control
        set to Python's value is no new action, and must not clear the message just shown)."""
        if self._syncing:
            return None
        before = self._synced_state()
        try:
            result = fn()
        except Exception as exc:  # a control must never leave the widget unusable
            if not isinstance(exc, PerfweaveError):
                _log.exception("widget action failed")
            self._roll_back(before)
            self._failed(exc)
            result = None
        else:
            self._succeeded()
        self._resync()
        return result

    def _resync(self) -> None:
        """Put the controls back to Python's state while the observers they fire do nothing
        (what :meth:`_from_control` ends with; a Python-side action that moved the state
        calls it too)."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self._sync_controls()
        finally:
            self._syncing = False

    def _sync_controls(self) -> None:
        """Put every control back to Python's state (composites override; anywidgets' pages
        redraw from their traits)."""

    def _failed(self, exc: BaseException) -> None:
        self.last_exception = exc
        self.error = message_of(exc)

    def _succeeded(self) -> None:
        self.last_exception = None
        self.error = ""


def action(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make a public widget method an action, the one path every widget's actions take:
    it runs (checks first, then asks the widget's study), and on a PerfweaveError the synced
    traits are put back, the banner shows the message and the Python caller gets the error.
    Returns the widget, so that actions chain."""

    @functools.wraps(fn)
    def run(self: ContractMixin, *args: Any, **kwargs: Any) -> Any:
        self._guard(lambda: fn(self, *args, **kwargs))
        return self

    return run


#: every perfweave anywidget alive (weakly held: a widget the notebook dropped is gone)
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _default_timeout() -> float:
    text = os.environ.get("PERFWEAVE_REQUEST_TIMEOUT", "")
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_REQUEST_TIMEOUT
    return value if value > 0 else DEFAULT_REQUEST_TIMEOUT


class RequestOrder:
    """The page's requests, put back in the order each view made them (see the module
    docstring): :meth:`arrive` takes one request and returns what can be answered now, in
    sequence, each with the reason it is refused (``""``: run it)."""

    def __init__(self, max_waiting: int = MAX_WAITING) -> None:
        self.max_waiting = max_waiting
        #: channel -> the sequence number it applies next
        self._next: dict[str, int] = {}
        #: channel -> requests that came before an earlier one, by sequence number
        self._waiting: dict[str, dict[int, tuple[dict, list]]] = {}

    def waiting(self, channel: str) -> list[int]:
        """Sequence numbers of ``channel`` that wait for an earlier request."""
        return sorted(self._waiting.get(channel, ()))

    def arrive(self, content: dict, buffers: list) -> list[tuple[dict, list, str]]:
        """``(content, buffers, refusal)`` of every request that can be answered now."""
        channel, seq = content.get("channel"), content.get("seq")
        if channel is None and seq is None:
            return [(content, buffers, "")]
        valid_seq = isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
        if not isinstance(channel, str) or not valid_seq:
            why = (
                f"request {content.get('id')!r} has channel {channel!r} and seq {seq!r}; "
                "expected a string and a whole number from 1"
            )
            return [(content, buffers, why)]
        expected = self._next.get(channel, 1)
        waiting = self._waiting.setdefault(channel, {})
        if seq < expected or seq in waiting:
            return [(content, buffers, f"request #{seq} of this view came twice; it counts once")]
        waiting[seq] = (content, buffers)
        ready: list[tuple[dict, list, str]] = []
        if len(waiting) > self.max_waiting and expected not in waiting:  # lost: refuse them
            first, last = min(waiting), max(waiting)
            why = (
                f"request(s) #{expected} to #{first - 1} of this view never reached Python, so "
                f"the {len(waiting)} made after them (#{first} to #{last}) were not applied"
            )
            ready += [(*waiting[s], why) for s in sorted(waiting)]
            waiting.clear()
            expected = last + 1
        while expected in waiting:
            ready.append((*waiting.pop(expected), ""))
            expected += 1
        self._next[channel] = expected
        if not waiting:
            del self._waiting[channel]
        return ready


def live_widgets() -> list[WidgetBase]:
    """The perfweave anywidgets alive in this process, oldest first (what a saved page of the
    notebook holds; the export asks each for its first-draw replies)."""
    return sorted(_LIVE, key=lambda w: w._born)


class WidgetBase(anywidget.AnyWidget, ContractMixin):
    """An anywidget with the contract: request/response messages and the error banner."""

    #: seconds the page waits for an answer before it says the kernel did not answer
    request_timeout = traitlets.Float(DEFAULT_REQUEST_TIMEOUT).tag(sync=True)

    #: the page/kernel protocol (``_protocol.py``): the only requests a page can make
    _protocol: ClassVar[Protocol | None] = None
    #: action name -> method name, from ``_protocol``; the only names a browser request can call
    _actions: ClassVar[dict[str, str]] = {}
    #: True once a page has sent a request (a page shows this widget)
    _seen = False
    #: True while a page's request is answered (the response carries the new view)
    _answering = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("_protocol") is not None:
            cls._actions = cls._protocol.methods()

    #: creation order (live_widgets lists them by it)
    _born = 0
    _born_count: ClassVar[int] = 0

    def __init__(self, **kwargs: Any) -> None:
        WidgetBase._born_count += 1
        self._born = WidgetBase._born_count
        kwargs.setdefault("request_timeout", _default_timeout())
        super().__init__(**kwargs)
        _LIVE.add(self)
        #: the page's requests, in the order each view made them
        self._request_order = RequestOrder()
        self.on_msg(self._on_msg)

    @traitlets.validate("request_timeout")
    def _check_timeout(self, proposal: dict) -> float:
        value = proposal["value"]
        if not value > 0:
            raise ShapeError(f"request_timeout must be a positive number of seconds, not {value}")
        return value

    def _on_msg(self, _widget: Any, content: Any, buffers: list) -> None:
        if not isinstance(content, dict) or content.get("type") != "request":
            return
        for request, request_buffers, refusal in self._request_order.arrive(content, buffers):
            self._answer(request, request_buffers, refusal)

    def _answer(self, content: dict, _buffers: list, refusal: str = "") -> None:
        """Run one request (unless ``refusal`` says why not) and send its response."""
        rid = content.get("id")
        action = content.get("action")
        args = content.get("args") or {}
        self._seen = self._answering = True
        try:
            if refusal:
                raise PerfweaveError(refusal)
            method = self._actions.get(action) if isinstance(action, str) else None
            if method is None or not isinstance(args, dict):
                raise PerfweaveError(f"unknown request {action!r}")
            self._check_args(action, args)
            payload, out = getattr(self, method)(**args)
        except Exception as exc:  # any failure ends in a banner and a usable widget
            if not isinstance(exc, PerfweaveError):
                _log.exception("widget action %r failed", action)
            self._failed(exc)
            payload, out = self._failed_reply(self.error)
        finally:
            self._answering = False
        self.send({"type": "response", "id": rid, **payload}, out)

    def _check_args(self, action: str, args: dict) -> None:
        """Refuse an argument the protocol does not declare for ``action``."""
        if self._protocol is None:
            return
        allowed = self._protocol.actions[action].args
        unknown = sorted(str(k) for k in args if k not in allowed)
        if unknown:
            raise PerfweaveError(
                f"request {action!r} takes {', '.join(allowed) or 'no arguments'}; "
                f"not {', '.join(unknown)}"
            )

    def first_draw_replies(self) -> dict[str, Reply]:
        """The replies to the requests this widget's page sends first (each declared
        action's ``first_draw`` arguments): a saved page answers them without a kernel. An
        action that fails here is left out (the page then says it needs the kernel)."""
        out: dict[str, Reply] = {}
        if self._protocol is None:
            return out
        for name, action in self._protocol.actions.items():
            if action.first_draw is None:
                continue
            try:
                out[name] = getattr(self, action.method)(**dict(action.first_draw))
            except Exception:  # noqa: BLE001 - the saved page says what needs the kernel
                continue
        return out

    def _push(self, key: str, payload: dict, buffers: list) -> None:
        """Send the page a changed view unasked (after a change made from Python), so that
        it need not ask for it: ``payload[key]`` holds the binary columns' header, as in a
        response (``channel.onPush`` in ``js/src/lib/request.js``)."""
        self.send({"type": "push", "key": key, **payload}, buffers)

    def _failed_reply(self, message: str) -> Reply:
        """What a failed request answers (subclasses add the unchanged view)."""
        return {"ok": False, "error": message}, []


class ErrorBanner(anywidget.AnyWidget):
    """The banner of a composite widget: shows ``error`` as text (never markup); the same
    element the anywidgets draw at their top (``js/src/lib/banner.js``)."""

    _esm = static_file("banner.js")
    _css = static_file("banner.css")

    error = traitlets.Unicode("").tag(sync=True)


class CompositeBase(widgets.VBox, ContractMixin):
    """An ipywidgets box with the contract; its :attr:`banner` shows ``error``.

    A subclass lays out its children with :meth:`_set_children`, which puts the banner first.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("pw-composite")  # a saved page (perfweave export) finds its controls by it
        #: the single error display of this widget (linked to ``error``)
        self.banner = ErrorBanner(error=self.error)
        traitlets.dlink((self, "error"), (self.banner, "error"))
        if not self.children:
            self.children = (self.banner,)

    def _set_children(self, *children: widgets.Widget) -> None:
        """Show ``children`` below the banner."""
        self.children = (self.banner, *children)
