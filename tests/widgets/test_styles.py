"""The widgets' style sheets stay inside their own widget: several widgets share a page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "perfweave" / "widgets" / "static"

#: each bundle's style sheet and the prefix all of its selectors start with (the banner's
#: rules, prepended to every sheet, are one shared style)
PREFIXES = {
    "explorer.css": (".pw-explorer", ".pw-error"),
    "heatmap.css": (".pw-hm", ".pw-heatmap", ".pw-error"),
    "picker.css": (".pw-pt", ".pw-picker", ".pw-error"),
    "matrix.css": (".pw-matrix", ".pw-error"),
}


def _selectors(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out = []
    for head in re.findall(r"([^{}]+)\{", css):
        if head.strip().startswith("@"):
            continue
        out += [s.strip() for s in head.split(",") if s.strip()]
    return out


@pytest.mark.parametrize("sheet", sorted(PREFIXES))
def test_every_rule_is_scoped_to_its_widget(sheet):
    """An unscoped rule (``.pw-row``, ``.pw-head``) would restyle another widget's elements
    of the same class on the page (ScalingView's run table has a ``pw-head``)."""
    selectors = _selectors((STATIC / sheet).read_text(encoding="utf-8"))
    assert len(selectors) > 10
    loose = [s for s in selectors if not s.startswith(PREFIXES[sheet])]
    assert loose == [], f"{sheet}: rules that reach outside the widget: {loose[:5]}"
