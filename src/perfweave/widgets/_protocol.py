"""Each anywidget's page/kernel protocol, declared once, in Python.

A widget class declares ``_protocol = Protocol(folder, actions, ...)``: the requests its page
may send (method, arguments, the reply key holding binary columns and those columns, and what
the person did, in their words), and which of its synced traits the page redraws on. Its
synced traits and their types are read from the traitlets themselves.

From that declaration:

- :class:`~perfweave.widgets._base.WidgetBase` routes a request only to a declared action and
  refuses an argument the action does not declare;
- ``python -m perfweave.widgets._protocol`` writes ``js/src/<folder>/protocol.js`` (the names,
  the JSDoc type of the page's model) and ``js/src/export/actions.js`` (what a saved page says
  when a control needs the kernel); ``tests/widgets/test_protocols.py`` checks those files are
  fresh and that every page keeps to its protocol.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import traitlets

#: the widget modules whose classes may declare a protocol
WIDGET_MODULES = (
    "perfweave.widgets.explorer",
    "perfweave.widgets.heatmap",
    "perfweave.widgets.flame",
    "perfweave.widgets._picker_table",
    "perfweave.widgets._spec_box",
    "perfweave.widgets._matrix",
    "perfweave.widgets.picker",
    "perfweave.widgets.merge_panel",
    "perfweave.widgets.scaling_view",
)

JS_SRC = pathlib.Path(__file__).resolve().parents[3] / "js" / "src"


@dataclass(frozen=True)
class Action:
    """One request a page may send.

    ``method`` is the widget's method that answers it; ``says`` what the person did, as they
    would say it (a saved page without a kernel tells them that this needs Python); ``args``
    the argument names the page may send; ``key`` the reply key holding the binary columns'
    header and ``columns`` the columns it holds (both empty for a reply without columns).
    ``first_draw``: the arguments to answer it with ahead of time when the page's first draw
    sends it (``perfweave export`` saves that reply in a page without a kernel); None for an
    action a first draw does not send.
    """

    method: str
    says: str
    args: tuple[str, ...] = ()
    key: str = ""
    columns: tuple[str, ...] = ()
    first_draw: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Protocol:
    """A widget's requests and how its page treats its synced traits.

    ``folder`` is the page's source folder (``js/src/<folder>``). ``read_only`` names the synced
    traits the page reads but does not redraw on; every other one of the widget's own synced
    traits is one the page redraws on. ``controls`` gives the choices of the page's option
    controls (value, label), where the page draws them from the declaration.
    """

    folder: str
    actions: Mapping[str, Action]
    read_only: tuple[str, ...] = ()
    controls: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def methods(self) -> dict[str, str]:
        """Action name -> method name: the only names a page's request can call."""
        return {name: action.method for name, action in self.actions.items()}


def js_type(trait: traitlets.TraitType) -> str:
    """The JSDoc type of a synced trait's value as the page receives it."""
    if isinstance(trait, traitlets.Bool):
        return "boolean"
    if isinstance(trait, (traitlets.Int, traitlets.Float, traitlets.CInt, traitlets.CFloat)):
        return "number"
    if isinstance(trait, (traitlets.Unicode, traitlets.Enum, traitlets.CaselessStrEnum)):
        return "string"
    if isinstance(trait, (traitlets.List, traitlets.Tuple, traitlets.Set)):
        inner = getattr(trait, "_trait", None)
        return f"{js_type(inner)}[]" if isinstance(inner, traitlets.TraitType) else "any[]"
    if isinstance(trait, traitlets.Dict):
        return "Record<string, any>"
    if isinstance(trait, traitlets.Bytes):
        return "DataView"
    return "any"


def own_synced_traits(cls: type) -> dict[str, str]:
    """The widget's own synced traits (not the contract's, nor anywidget's) -> JSDoc type."""
    from perfweave.widgets._base import WidgetBase

    base = set(WidgetBase.class_trait_names(sync=True))
    traits = cls.class_traits(sync=True)
    return {name: js_type(traits[name]) for name in sorted(traits) if name not in base}


def declared_widgets() -> Iterator[type]:
    """Every anywidget class of the widget modules (each must declare a protocol)."""
    from perfweave.widgets._base import WidgetBase

    seen: set[type] = set()
    for module in WIDGET_MODULES:
        mod = importlib.import_module(module)
        for value in vars(mod).values():
            if (
                isinstance(value, type)
                and issubclass(value, WidgetBase)
                and value is not WidgetBase
                and value.__module__ == module
                and value not in seen
            ):
                seen.add(value)
                yield value


def _js_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def protocol_js(cls: type) -> str:
    """The text of ``js/src/<folder>/protocol.js`` for a widget class."""
    protocol: Protocol = cls._protocol
    traits = own_synced_traits(cls)
    redraw = {k: v for k, v in traits.items() if k not in protocol.read_only}
    read_only = {k: v for k, v in traits.items() if k in protocol.read_only}
    fields = ", ".join(f"{k}: {v}" for k, v in traits.items())
    actions = {
        name: {"args": list(a.args), "key": a.key, "columns": list(a.columns)}
        for name, a in protocol.actions.items()
    }
    lines = [
        f"// The page/kernel protocol of {cls.__name__}: generated from {cls.__module__} by",
        "// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py",
        "// checks it is fresh and that this folder keeps to it).",
        "",
        f"/** The synced traits of {cls.__name__} and their types (the contract's own, `error`",
        " * and `request_timeout`, are WidgetBase's).",
        f" * @typedef {{{{ {fields} }}}} Traits */",
        "/** The page's model, typed by the traits.",
        ' * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */',
        "",
        "/** Synced traits the page redraws on, and their types. */",
        f"export const TRAITS = {_js_value(redraw)};",
        "",
        "/** Synced traits the page reads but does not redraw on. */",
        f"export const READ_ONLY = {_js_value(read_only)};",
        "",
        "/** The requests the page may send: their arguments, and the reply key holding the",
        " * binary columns with the columns it holds. */",
        f"export const ACTIONS = {_js_value(actions)};",
    ]
    if protocol.controls:
        controls = {k: [list(c) for c in v] for k, v in protocol.controls.items()}
        lines += [
            "",
            "/** The page's option controls and their choices ([value, label]).",
            " * @type {Record<string, [string, string][]>} */",
            f"export const CONTROLS = {_js_value(controls)};",
        ]
    return "\n".join(lines) + "\n"


def actions_js(classes: list[type]) -> str:
    """The text of ``js/src/export/actions.js``: every action's words, across widgets."""
    says: dict[str, str] = {}
    for cls in classes:
        for name, action in cls._protocol.actions.items():
            if says.setdefault(name, action.says) != action.says:
                raise ValueError(
                    f"action {name!r} says {says[name]!r} in one widget and {action.says!r} in "
                    f"{cls.__name__}: one action name, one meaning"
                )
    lines = [
        "// What a saved page (`perfweave export`) says a control needs Python for, by request",
        "// name: generated from the widgets' protocols by `python -m perfweave.widgets._protocol`;",
        "// do not edit.",
        "",
        "/** @type {Record<string, string>} request action -> what the person tried */",
        f"export const ACTIONS = {_js_value(dict(sorted(says.items())))};",
    ]
    return "\n".join(lines) + "\n"


def generated() -> dict[pathlib.Path, str]:
    """Every generated file and its text."""
    classes = [c for c in declared_widgets() if getattr(c, "_protocol", None) is not None]
    files = {JS_SRC / c._protocol.folder / "protocol.js": protocol_js(c) for c in classes}
    files[JS_SRC / "export" / "actions.js"] = actions_js(classes)
    return files


def main() -> int:
    """Write the generated files (then `npm run build` bundles them)."""
    for path, text in generated().items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
