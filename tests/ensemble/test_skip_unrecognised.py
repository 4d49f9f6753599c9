"""``on_error="skip"`` skips files whose format cannot be detected too, and names every
skipped file in a SkippedInputWarning (issue #16)."""

from __future__ import annotations

import pytest

from perfweave import Ensemble
from perfweave.errors import FormatError, SkippedInputWarning


def test_unrecognisable_file_is_skipped_and_named(quartz_files, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a profile\n")
    missing = str(tmp_path / "gone.cali")
    paths = [*quartz_files[:2], str(junk), *quartz_files[2:], missing]
    with pytest.warns(SkippedInputWarning) as caught:
        ens = Ensemble.from_files(paths, on_error="skip", progress=False)
    assert len(ens) == len(quartz_files)
    assert [p for p, _ in ens.errors] == [str(junk), missing]
    shown = [str(w.message) for w in caught if w.category is SkippedInputWarning]
    assert any("notes.txt" in m and "not a profile format" in m for m in shown)
    assert any("gone.cali" in m and "no such file" in m for m in shown)


def test_unrecognisable_file_still_raises_by_default(quartz_files, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a profile\n")
    with pytest.raises(FormatError, match="notes.txt"):
        Ensemble.from_files([*quartz_files[:2], str(junk)], progress=False)


def test_nothing_recognisable_is_an_error_even_when_skipping(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a profile\n")
    with pytest.raises(FormatError, match="notes.txt"):
        Ensemble.from_files([str(junk)], on_error="skip", progress=False)
