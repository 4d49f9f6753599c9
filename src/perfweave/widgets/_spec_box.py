"""The ClassPicker's profile-spec box: a text box with completions, and Apply.

A click on Apply (or Enter) sends the text it applies in the same message. With an
ipywidgets text box and button, the text travels as the box's state and the click as the
button's message: the page holds a model's state back while an earlier change of it is
unanswered but sends a click at once, so a click right after typing could reach Python
first and apply the previous spec. Here nothing the page types is state: completions are
asked for (``complete``) and the spec is applied (``apply``) by requests, which Python runs in
the order the page made them (:class:`~perfweave.widgets._base.RequestOrder`).

``value`` is the spec the picker shows (Python's); an ``apply`` answers with it, so the box
shows the spec in force after the change, or snaps back to it when the change failed (the
picker's banner says why). Every name reaches the page as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traitlets

from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._protocol import Action, Protocol

#: most completions offered at once
MAX_OPTIONS = 60

#: the completions and the one-line hint for a typed text
Completer = Callable[[str], tuple[list[str], str]]


class SpecBox(WidgetBase):
    """A spec box whose Apply carries the text it applies (see the module text)."""

    _esm = static_file("spec_box.js")
    _css = static_file("spec_box.css")

    #: the spec in force, as the box shows it (set by Python)
    value = traitlets.Unicode("").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("spec").tag(sync=True)

    _protocol = Protocol(
        folder="spec_box",
        actions={
            # a saved page (perfweave export) offers the completions of the spec shown
            "complete": Action(
                "_complete", "Completing the profile specification", ("typed",), first_draw={}
            ),
            "apply": Action("_apply", "Applying a profile specification", ("spec",)),
        },
        read_only=("label", "placeholder"),
    )

    def __init__(
        self,
        completer: Completer,
        on_apply: Callable[[str], Any],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)  # value=, placeholder=, label=, layout=
        self._completer = completer
        self._on_apply = on_apply

    def _complete(self, typed: str | None = None) -> Reply:
        """The completions of ``typed`` (the spec shown when None) and the hint under it;
        the reply names the text it answers (the page ignores an answer to older text)."""
        text = self.value if typed is None else str(typed)
        options, hint = self._completer(text)
        return {"ok": True, "typed": text, "options": options[:MAX_OPTIONS], "hint": hint}, []

    def _apply(self, spec: str = "") -> Reply:
        """Apply ``spec`` exactly as the page sent it; answer with the spec then in force."""
        self._on_apply(str(spec))
        return {"ok": True, "value": self.value}, []
