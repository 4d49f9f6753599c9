"""The one HTML-table helper of the composite widgets."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from perfweave.widgets._html import clean_headers, format_numbers, format_quantity, table


def cells(html_text: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", html_text)]


def test_one_number_format_per_column():
    # a merged HRM column: floats that are whole numbers beside larger ones
    assert format_numbers([2.01404e7, 2.0163e7, 112556.0]) == [
        "20,140,400",
        "20,163,000",
        "112,556",
    ]
    # about 4 significant digits of the column's largest value, the same decimals down it
    assert format_numbers([0.12345, -0.5, 1.0]) == ["0.123", "-0.500", "1.000"]
    assert format_numbers([3, 12, np.nan]) == ["3", "12", ""]
    assert format_numbers([21776.75, 0.25]) == ["21,777", "0"]
    assert format_numbers([1.5, 2.25], decimals=3) == ["1.500", "2.250"]
    frame = pd.DataFrame({"a": [2.01404e7, 112556.0], "b": [0.5, 0.25]})
    text = table(frame)
    assert "e+07" not in text and cells(text) == ["20,140,400", "0.5000", "112,556", "0.2500"]


def test_repeated_columns_read_as_numbered_copies():
    assert clean_headers(["X", "BLINK_REQUEST", "BLINK_REQUEST.1", "A.2", "v1.5"]) == [
        "X",
        "BLINK_REQUEST",
        "BLINK_REQUEST (2)",
        "A.2",  # no column A: the name is kept
        "v1.5",
    ]
    frame = pd.DataFrame([[1, 2]], columns=["L2_MISSES", "L2_MISSES.1"])
    head = re.sub(r"<[^>]+>", "", table(frame).split("</thead>")[0])
    assert head == "L2_MISSESL2_MISSES (2)"


def test_every_name_is_text():
    frame = pd.DataFrame({"<b>h</b>": ["<img src=x onerror=alert(1)>"], "n": [1]})
    text = table(frame, titles={"n": '"quoted" <full>'})
    assert "<img" not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert 'title="&quot;quoted&quot; &lt;full&gt;"' in text
    assert "(none)" in table(pd.DataFrame())


def test_quantities_read_like_the_explorers_cells():
    # a time in the step that keeps it at or above 1, four significant digits
    assert format_quantity(0.4776, "s") == "477.6 ms"
    assert format_quantity(50.8, "s") == "50.80 s"
    assert format_quantity(1.04e-5, "s") == "10.40 µs"
    assert format_quantity(3.2e-12, "s") == "0.003200 ns"
    assert format_quantity(1220.0, "s") == "1,220 s"
    assert format_quantity(0.0, "s") == "0 s"
    # other units keep their value; no unit, no trailing space; missing is a dash
    assert format_quantity(2048.0, "B") == "2,048 B"
    assert format_quantity(123456.0) == "123,456"
    assert format_quantity(float("nan"), "s") == "–"
