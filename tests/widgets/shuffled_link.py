"""A test hook that makes a page's link to the kernel hand widget messages over out of order.

Installed in a page before it loads (:meth:`ShuffledLink.install`), it wraps the page's
WebSockets. Once :meth:`ShuffledLink.start` is called:

- the widgets' requests (``{"type": "request", ...}`` custom messages) are held in groups of
  ``group`` and each group goes out last-first, so the kernel receives every group's requests
  in the reverse of the order the page made them (however fast or slow the machine: the order
  depends on counting, not on timing);
- the kernel's responses (``{"type": "response", ...}``) reach the page after a random delay
  of up to ``max_reply_delay_ms`` (a seeded generator), so they may come in another order too.

:meth:`ShuffledLink.finish` sends what is still held and stops both, and returns the log of
which request ids were made and the order in which they went out. Other messages (trait
updates, execution, status) pass untouched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Page

_HOOK = """
(() => {
  const GROUP = %(group)d, MAX_DELAY = %(max_delay)d;
  let seed = %(seed)d;
  const random = () => {  // mulberry32: the same delays on every run
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const decoder = new TextDecoder();
  const text = (data) => {
    if (typeof data === "string") return data;
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return decoder.decode(data);
    return "";
  };
  const REQUEST = /"type":"request","id":(\\d+)/;
  const ACTION = /"action":"([a-z_]+)"/;
  const RESPONSE = /"type":\\s*"response"/;
  const log = { made: [], sent: [], delayed: 0 };
  const held = [];
  const send = WebSocket.prototype.send;
  const link = { active: false, log };
  link.flush = () => {
    for (const [ws, data, request] of held.splice(0).reverse()) {
      log.sent.push(request);
      send.call(ws, data);
    }
  };
  link.finish = () => {
    link.active = false;
    link.flush();
    return log;
  };
  window.__pwShuffledLink = link;
  WebSocket.prototype.send = function (data) {
    const found = link.active ? text(data).match(REQUEST) : null;
    if (!found) return send.call(this, data);
    const action = (text(data).match(ACTION) || [null, ""])[1];
    const request = { id: Number(found[1]), action };
    log.made.push(request);
    held.push([this, data, request]);
    if (held.length >= GROUP) link.flush();
  };
  const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    enumerable: onmessage.enumerable,
    get() { return onmessage.get.call(this); },
    set(fn) {
      if (typeof fn !== "function") return onmessage.set.call(this, fn);
      const ws = this;
      onmessage.set.call(this, (ev) => {
        if (link.active && RESPONSE.test(text(ev.data))) {
          log.delayed += 1;
          setTimeout(() => fn.call(ws, ev), random() * MAX_DELAY);
        } else {
          fn.call(ws, ev);
        }
      });
    },
  });
})();
"""


@dataclass
class LinkLog:
    """Requests as the page made them and as they went out (``{"id", "action"}`` each)."""

    made: list[dict] = field(default_factory=list)
    sent: list[dict] = field(default_factory=list)
    #: responses that reached the page late
    delayed: int = 0

    def sent_order(self, actions: set[str]) -> list[int]:
        """Ids of the requests of ``actions`` in the order they went out."""
        return [r["id"] for r in self.sent if r["action"] in actions]


@dataclass
class ShuffledLink:
    """The hook of the module docstring, for one page."""

    page: Page
    group: int = 4
    max_reply_delay_ms: int = 150
    seed: int = 29

    def install(self) -> ShuffledLink:
        """Wrap the page's WebSockets (call before the page loads); the link starts inactive."""
        args = {"group": self.group, "max_delay": self.max_reply_delay_ms, "seed": self.seed}
        self.page.add_init_script(_HOOK % args)
        return self

    def start(self) -> None:
        """Hold and reverse requests, delay responses, from now on."""
        self.page.evaluate("() => { window.__pwShuffledLink.active = true; }")

    def finish(self) -> LinkLog:
        """Send the requests still held, pass everything through from now on; the log."""
        log = self.page.evaluate("() => window.__pwShuffledLink.finish()")
        return LinkLog(**json.loads(json.dumps(log)))
