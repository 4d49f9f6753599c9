"""Ensemble JSON that is broken in the ways the calltree fuzz found (issue #16): every one
a ParseError naming the file, never a bare Python exception."""

from __future__ import annotations

import json
import re

import pytest

from perfweave import Ensemble
from perfweave.errors import ParseError


@pytest.fixture(scope="module")
def ens_text(quartz_files):
    return Ensemble.from_files(quartz_files[:2], progress=False).to_json()


def _write(tmp_path, text: str | bytes):
    path = tmp_path / "ens.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_round_trip_still_reads(ens_text, tmp_path):
    ens = Ensemble.from_json(_write(tmp_path, ens_text))
    assert len(ens) == 2


def test_bytes_that_are_not_utf8(ens_text, tmp_path):
    raw = ens_text.encode()
    cut = raw.index(b'"dataframe"')
    path = _write(tmp_path, raw[:cut] + b"\xff" + raw[cut:])
    with pytest.raises(ParseError, match="ens.json"):
        Ensemble.from_json(path)


def test_node_id_of_10000_digits(ens_text, tmp_path):
    doc = json.loads(ens_text)
    first = next(iter(doc["graph"][0]))
    text = ens_text.replace(f'"{first}": {{', '"' + "9" * 10_000 + '": {', 1)
    with pytest.raises(ParseError, match="integer node id"):
        Ensemble.from_json(_write(tmp_path, text))


@pytest.mark.parametrize("value", ["NaN", "1e300", "-1.5", '"x"'])
def test_dataframe_node_not_an_id(ens_text, tmp_path, value):
    text = re.sub(r'"node": *\d+', f'"node": {value}', ens_text, count=1)
    with pytest.raises(ParseError, match="integer node ids"):
        Ensemble.from_json(_write(tmp_path, text))


def test_deeply_nested_value(ens_text, tmp_path):
    at = ens_text.index('"dataframe"')
    text = ens_text[:at] + '"junk": ' + "[" * 5000 + "]" * 5000 + ", " + ens_text[at:]
    ens = Ensemble.from_json(_write(tmp_path, text))  # read, the extra key ignored
    assert len(ens) == 2


def test_child_id_not_an_integer(ens_text, tmp_path):
    text = re.sub(r'"children": *\[(\d+)', '"children": [NaN', ens_text, count=1)
    with pytest.raises(ParseError, match="integer child ids"):
        Ensemble.from_json(_write(tmp_path, text))
