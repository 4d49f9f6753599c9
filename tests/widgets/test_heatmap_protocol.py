"""The heatmap's page/kernel protocol is written once on each side and checked here: the
trait names, requests, reply columns and control choices of js/src/heatmap/protocol.js against
CountMatrixHeatmap, and every trait the page's modules read against the protocol."""

from __future__ import annotations

import json
import re
from pathlib import Path

from perfweave.widgets._base import WidgetBase
from perfweave.widgets._transport import unpack
from perfweave.widgets.heatmap import _CONTROLS, _STATE, CountMatrixHeatmap

JS = Path(__file__).parents[2] / "js" / "src" / "heatmap"
WRF = Path(__file__).parents[1] / "data" / "counts" / "wrf_160ranks_niagara_job5471563"


def _const(name: str):
    """The value of ``export const NAME = ...;`` in protocol.js, read as JSON."""
    text = (JS / "protocol.js").read_text()
    m = re.search(rf"export const {name} = (.*?);\n", text, re.S)
    assert m, f"protocol.js has no {name}"
    body = (
        re.sub(r"(\w+):", r'"\1":', m.group(1))
        if m.group(1).lstrip().startswith("{")
        else m.group(1)
    )
    return json.loads(re.sub(r",\s*([\]}])", r"\1", body))


def _synced() -> set[str]:
    """The heatmap's own synced traits (WidgetBase's belong to the contract, lib/request.js)."""
    own = set(CountMatrixHeatmap.class_trait_names(sync=True))
    return own - set(WidgetBase.class_trait_names(sync=True))


def test_every_synced_trait_is_in_the_page_protocol_and_back():
    page = set(_const("TRAITS")) | set(_const("READ_ONLY"))
    assert page == _synced()
    assert set(_STATE) <= _synced()


def test_requests_and_controls_match():
    assert _const("ACTIONS") == list(CountMatrixHeatmap._actions)
    controls = _const("CONTROLS")
    assert list(controls) == list(_CONTROLS)
    for name, (choices, _reset) in _CONTROLS.items():
        assert [value for value, _label in controls[name]] == list(choices)


def test_a_matrix_reply_holds_the_columns_under_the_named_key():
    hm = CountMatrixHeatmap(WRF)
    sent = []
    hm.send = lambda content, buffers=None: sent.append((content, buffers or []))
    hm._on_msg(hm, {"type": "request", "id": 1, "action": "matrix", "args": {}}, [])
    content, buffers = sent[-1]
    key = _const("MATRIX_KEY")
    assert content["ok"] and list(unpack(content[key]["columns"], buffers)) == _const(
        "MATRIX_COLUMNS"
    )


def test_the_page_reads_only_traits_of_the_protocol():
    page = set(_const("TRAITS")) | set(_const("READ_ONLY"))
    read = set()
    for path in JS.glob("*.js"):
        read |= set(re.findall(r"model\.get\(\"(\w+)\"\)", path.read_text()))
    read |= set(_const("CONTROLS"))  # read by name in a loop
    assert read - page - set(WidgetBase.class_trait_names(sync=True)) == set()
