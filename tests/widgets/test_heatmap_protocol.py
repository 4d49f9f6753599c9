"""The heatmap's page/kernel protocol, as generated into js/src/heatmap/protocol.js from
CountMatrixHeatmap's declaration: what tests/widgets/test_protocols.py does not check for
every widget. A matrix reply holds the declared columns under the declared key, and the
page's option controls offer exactly the choices the study accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfweave.counts.study import OPTIONS, CallGroupStudy
from perfweave.errors import PerfweaveError
from perfweave.widgets._transport import unpack
from perfweave.widgets.heatmap import CountMatrixHeatmap

JS = Path(__file__).parents[2] / "js" / "src" / "heatmap"
WRF = Path(__file__).parents[1] / "data" / "counts" / "wrf_160ranks_niagara_job5471563"


def _const(name: str):
    """The value of ``export const NAME = ...;`` in the generated protocol.js (JSON)."""
    text = (JS / "protocol.js").read_text()
    m = re.search(rf"export const {name} = (.*?);\n", text, re.S)
    assert m, f"protocol.js has no {name}"
    return json.loads(m.group(1))


@pytest.mark.parametrize("action", ["matrix", "set", "zoom", "zoom_out"])
def test_a_matrix_reply_holds_the_declared_columns_under_the_declared_key(action):
    hm = CountMatrixHeatmap(WRF)
    args = {
        "matrix": {"max_cells": 40},
        "set": {"name": "direction", "value": "recv"},
        "zoom": {"rows": [0, 10], "cols": [5, 50]},
        "zoom_out": {},
    }[action]
    sent = []
    hm.send = lambda content, buffers=None: sent.append((content, buffers or []))
    hm._on_msg(hm, {"type": "request", "id": 1, "action": action, "args": args}, [])
    content, buffers = sent[-1]
    declared = _const("ACTIONS")[action]
    assert content["ok"], content
    columns = unpack(content[declared["key"]]["columns"], buffers)
    assert list(columns) == declared["columns"]
    assert columns["values"].shape == hm.blocks().values.shape


def test_the_selection_reply_has_no_columns():
    hm = CountMatrixHeatmap(WRF)
    sent = []
    hm.send = lambda content, buffers=None: sent.append((content, buffers or []))
    hm._on_msg(hm, {"type": "request", "id": 1, "action": "select", "args": {"row_block": 3}}, [])
    content, buffers = sent[-1]
    assert _const("ACTIONS")["select"] == {
        "args": ["row_block", "col_block"],
        "key": "",
        "columns": [],
    }
    assert content["ok"] and buffers == [] and content["selection"]["ranks"] == "3"


def test_the_page_controls_offer_what_the_study_accepts():
    controls = _const("CONTROLS")
    assert list(controls) == list(OPTIONS)
    study = CallGroupStudy.of(WRF)
    for name, choices in controls.items():
        values = [value for value, _label in choices]
        assert values == list(OPTIONS[name])
        for value in values:
            if (name, value) != ("group_by", "host"):  # the WRF copy has no location file
                study.check(name, value)
        with pytest.raises(PerfweaveError, match=f"{name} must be one of"):
            study.check(name, "no such choice")
    assert dict(controls["group_by"])["rows"] == "identical rows"
