"""What every perfweave widget shares: front-end loading, requests, error display.

The browser talks to Python with custom messages ``{"type": "request", "id", "action",
"args"}``; the widget runs the action (only names listed in ``_actions``: user strings are
data, never code), and answers ``{"type": "response", "id", "ok", "error", ...}`` with any
binary buffers the action returns. A failing action leaves the widget's state as it was,
sets ``error`` (shown as a banner by the front end) and answers ``ok: false``; Python
methods raise the same :class:`~perfweave.errors.PerfweaveError`.
"""

from __future__ import annotations

import logging
import pathlib
from collections.abc import Callable
from typing import Any, ClassVar

import anywidget
import traitlets

from perfweave.errors import PerfweaveError

STATIC = pathlib.Path(__file__).parent / "static"
_log = logging.getLogger(__name__)

Reply = tuple[dict[str, Any], list[bytes]]


def static_file(name: str) -> pathlib.Path:
    """A committed front-end bundle (built from ``js/`` by ``npm run build``)."""
    path = STATIC / name
    if not path.exists():
        raise FileNotFoundError(f"front-end bundle {path} is missing: run `npm run build` in js/")
    return path


class WidgetBase(anywidget.AnyWidget):
    """An anywidget with request/response messages and an error banner."""

    #: readable message of the last failed action ("" when the last action worked)
    error = traitlets.Unicode("").tag(sync=True)

    #: action name -> method name; the only names a browser request can call
    _actions: ClassVar[dict[str, str]] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_msg)

    # ------------------------------------------------------------------ requests
    def _on_msg(self, _widget: Any, content: Any, buffers: list) -> None:
        if not isinstance(content, dict) or content.get("type") != "request":
            return
        rid = content.get("id")
        action = content.get("action")
        args = content.get("args") or {}
        try:
            method = self._actions.get(action) if isinstance(action, str) else None
            if method is None or not isinstance(args, dict):
                raise PerfweaveError(f"unknown request {action!r}")
            payload, out = getattr(self, method)(**args)
        except Exception as exc:  # any failure ends in a banner and a usable widget
            message = _message(exc)
            if not isinstance(exc, PerfweaveError):
                _log.exception("widget action %r failed", action)
            self.error = message
            payload, out = self._failed_reply(message)
        self.send({"type": "response", "id": rid, **payload}, out)

    def _failed_reply(self, message: str) -> Reply:
        """What a failed request answers (subclasses add the unchanged view)."""
        return {"ok": False, "error": message}, []

    def _guard(self, fn: Callable[[], Any]) -> Any:
        """Run a Python-side action: clear ``error`` on success, show it and re-raise on failure."""
        try:
            result = fn()
        except PerfweaveError as exc:
            self.error = _message(exc)
            raise
        self.error = ""
        return result


def _message(exc: BaseException) -> str:
    if isinstance(exc, PerfweaveError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
