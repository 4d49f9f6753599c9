"""Every anywidget's page/kernel protocol is declared once, in Python (``_protocol``), and
the page keeps to it: the generated ``protocol.js`` files are fresh, every trait a page reads
or writes and every request it sends is declared, and every declared request reaches a method
that takes its arguments."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from perfweave.widgets import _protocol
from perfweave.widgets._base import WidgetBase

JS = Path(__file__).resolve().parents[2] / "js" / "src"
WIDGETS = list(_protocol.declared_widgets())
CONTRACT = set(WidgetBase.class_trait_names(sync=True))


def _ids(cls: type) -> str:
    return cls.__name__


def test_every_widget_module_is_searched_and_has_widgets():
    names = {c.__name__ for c in WIDGETS}
    assert {"CalltreeExplorer", "CountMatrixHeatmap", "FlameGraph"} <= names


@pytest.mark.parametrize("cls", WIDGETS, ids=_ids)
def test_the_widget_declares_its_protocol(cls):
    protocol = cls.__dict__.get("_protocol")
    assert isinstance(protocol, _protocol.Protocol), f"{cls.__name__} declares no _protocol"
    assert cls._actions == protocol.methods()
    traits = _protocol.own_synced_traits(cls)
    assert set(protocol.read_only) <= set(traits), "read_only names a trait the widget lacks"
    for name, action in protocol.actions.items():
        method = getattr(cls, action.method, None)
        assert callable(method), f"{name!r} answers with {action.method}, which is missing"
        params = inspect.signature(method).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        missing = [a for a in action.args if a not in params and not takes_any]
        assert not missing, f"{cls.__name__}.{action.method} does not take {missing}"
        assert bool(action.key) == bool(action.columns), f"{name!r}: a key names columns"


def test_the_generated_files_are_fresh():
    stale = [
        str(path.relative_to(JS))
        for path, text in _protocol.generated().items()
        if not path.exists() or path.read_text() != text
    ]
    assert not stale, f"run `python -m perfweave.widgets._protocol` (then `npm run build`): {stale}"


_USES = {
    "trait": re.compile(r"model\.(?:get|set)\(\s*\"(\w+)\""),
    "change": re.compile(r"\"change:(\w+)\""),
}
_REQUESTS = re.compile(r"\b(?:request|act|ask|fetch)\(\s*\"(\w+)\"")


@pytest.mark.parametrize("cls", WIDGETS, ids=_ids)
def test_the_page_keeps_to_the_protocol(cls):
    protocol = cls.__dict__.get("_protocol")
    assert protocol is not None, f"{cls.__name__} declares no _protocol"
    folder = JS / protocol.folder
    sources = {p.name: p.read_text() for p in folder.glob("*.js") if p.name != "protocol.js"}
    assert sources, f"no page sources in {folder}"
    traits = set(_protocol.own_synced_traits(cls)) | CONTRACT
    for name, text in sources.items():
        for pattern in _USES.values():
            unknown = set(pattern.findall(text)) - traits
            assert not unknown, f"{protocol.folder}/{name} uses undeclared traits {unknown}"
        sent = set(_REQUESTS.findall(text)) - set(protocol.actions)
        assert not sent, f"{protocol.folder}/{name} sends undeclared requests {sent}"
    generated = (folder / "protocol.js").read_text()
    assert "WidgetModel" in generated
    index = sources.get("index.js", "")
    assert 'import("./protocol.js").WidgetModel' in index, "the page's model is not typed"
