"""A spec table with its class-forming columns as integer codes, computed once.

:func:`~perfweave.classes.arrange` needs, per sample file, an order key for each template
field (cpu, tgid, tid, unit mask numerically with ``all`` last; event and count as strings)
and codes for the application and binary images. Computing them means hashing the string
columns; :class:`SpecCodes` does it once so that a picker re-arranging the same table
under other merge options (or a sub-selection of it, :meth:`SpecCodes.take`) only
combines integers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.errors import ParseError

#: fields ordered numerically (``all`` last, ``""`` first), in the order opreport sorts
NUMERIC_FIELDS = ("cpu", "tgid", "tid", "unitmask")
#: fields ordered as strings
TEXT_FIELDS = ("event", "count")
_ALL = np.int64(2**62)  # "all" sorts after every number, as in opreport
_BAD = np.int64(-(2**62))  # not a number: an error when the field is not merged


def _numeric_key(values: pd.Series) -> np.ndarray:
    """Per row: the number, ``_ALL`` for ``all``, -1 for ``""``, ``_BAD`` otherwise.

    Converts each distinct value once (a column has few distinct values).
    """
    codes, uniques = pd.factorize(values.to_numpy(dtype=object))
    text = pd.Series(uniques, dtype=object)
    nums = pd.to_numeric(text, errors="coerce")
    key = nums.fillna(0).astype(np.int64).to_numpy(copy=True)
    key[(nums.isna() & ~text.isin(["all", ""])).to_numpy()] = _BAD
    key[(text == "all").to_numpy()] = _ALL
    key[(text == "").to_numpy()] = -1
    return key[codes]


def _sorted_codes(values: np.ndarray) -> np.ndarray:
    codes, _ = pd.factorize(values, sort=True)
    return codes.astype(np.int64)


@dataclass(frozen=True)
class SpecCodes:
    """A spec table and its integer codes (build with :meth:`of`; read-only).

    ``keys``: per template field an int64 key per row whose order is opreport's class
    order. ``names``: the distinct image names, sorted; ``image`` and ``binary`` index them
    (the binary is ``lib_image`` or, where that is empty, ``image``). ``own``: rows whose
    ``lib_image`` equals ``image`` (kept by ``--exclude-dependent``).
    """

    table: pd.DataFrame
    keys: dict[str, np.ndarray]
    names: np.ndarray
    image: np.ndarray
    binary: np.ndarray
    own: np.ndarray

    @classmethod
    def of(cls, table: pd.DataFrame) -> SpecCodes:
        """Codes of a spec table (the table is kept as given: do not modify it later)."""
        keys = {f: _numeric_key(table[f]) for f in NUMERIC_FIELDS}
        for f in TEXT_FIELDS:
            keys[f] = _sorted_codes(table[f].to_numpy(dtype=object))
        image = table["image"].to_numpy(dtype=object)
        lib = table["lib_image"].to_numpy(dtype=object)
        binary = np.where(lib != "", lib, image)
        n = len(table)
        codes, names = pd.factorize(np.concatenate([image, binary]), sort=True)
        codes = codes.astype(np.int64)
        return cls(
            table,
            keys,
            np.asarray(names, dtype=object),
            codes[:n],
            codes[n:],
            np.asarray(lib == image, dtype=bool),
        )

    def __len__(self) -> int:
        return len(self.table)

    def take(self, rows: np.ndarray) -> SpecCodes:
        """The codes of a sub-selection (a boolean mask or row positions, in order)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        return SpecCodes(
            self.table.iloc[rows],
            {f: k[rows] for f, k in self.keys.items()},
            self.names,
            self.image[rows],
            self.binary[rows],
            self.own[rows],
        )

    def check_numbers(self, fields: tuple[str, ...]) -> None:
        """:class:`ParseError` naming the first file whose ``fields`` hold no number."""
        for f in fields:
            bad = np.flatnonzero(self.keys[f] == _BAD)
            if len(bad):
                pos = int(bad[0])
                raise ParseError(
                    str(self.table["filename"].iloc[pos]),
                    f"a number or 'all' in the {f} field",
                    found=self.table[f].iloc[pos],
                )
