"""Hardware event codes -> HEM names (the NXP T2080 table of mergingTools).

Raw experiment files name their columns by event code (``X446.2`` is code 446, read for
the third time); this module turns codes into the names of the processor manual.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import pandas as pd

from perfweave.errors import ParseError

_TABLE_FILE = "T2080_code2name.csv"


@cache
def _t2080() -> pd.DataFrame:
    with resources.files("perfweave.merge").joinpath("data").joinpath(_TABLE_FILE).open("rb") as fh:
        return pd.read_csv(fh)


def t2080_code_table() -> pd.DataFrame:
    """The T2080 event table as a DataFrame with columns ``hems`` (str) and ``code`` (int).

    A fresh copy each call, so callers may modify it freely.
    """
    return _t2080().copy()


#: name of the bundled code table (the default of ``process_raw_experiments``)
T2080 = "T2080"


def code_table_mapping(table: pd.DataFrame | dict[int, str] | str | None = None) -> dict[int, str]:
    """Normalise a code table (DataFrame with ``code``/``hems`` columns, or a dict) to a dict.

    ``None`` or ``"T2080"`` means the bundled NXP T2080 table. Duplicate codes are an error:
    a code must name exactly one HEM.
    """
    if table is None or (isinstance(table, str) and table.upper() == T2080):
        table = _t2080()
    elif isinstance(table, str):
        raise ParseError("<code table>", f"a code table DataFrame, dict or {T2080!r}", found=table)
    if isinstance(table, dict):
        return {int(code): str(name) for code, name in table.items()}
    missing = {"code", "hems"} - set(table.columns)
    if missing:
        raise ParseError(
            "<code table>", "columns 'code' and 'hems'", found=", ".join(map(str, table.columns))
        )
    codes = pd.to_numeric(table["code"], errors="raise").astype("int64")
    dup = codes[codes.duplicated()]
    if len(dup):
        raise ParseError(
            "<code table>", "each code once", found=f"code {int(dup.iloc[0])} repeated"
        )
    return dict(zip(codes.tolist(), table["hems"].astype(str).tolist(), strict=True))


def code2hem(codes: int | list[int], table: pd.DataFrame | dict[int, str] | None = None):
    """HEM name of one code (or a list of names for a list of codes); unknown codes raise."""
    mapping = code_table_mapping(table)
    single = isinstance(codes, int | str)
    names = []
    for code in [codes] if single else codes:
        try:
            names.append(mapping[int(code)])
        except (KeyError, ValueError):
            raise ParseError(
                "<code table>", "an event code listed in the code table", found=str(code)
            ) from None
    return names[0] if single else names
