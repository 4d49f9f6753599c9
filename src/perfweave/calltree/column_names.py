"""The names of derived columns, written once: every view and operation that makes or reads
one of these columns asks here.

- an exclusive metric's inclusive partner: ``time`` -> ``time (inc)``, ``x (exc)`` -> ``x``
  (:func:`inclusive_name`), and back (:func:`exclusive_name`);
- a comparison's sides: ``time`` -> ``time [a]``, ``time (inc)`` -> ``time [a] (inc)``
  (:func:`side_name`);
- an ensemble's statistic of a metric: ``time`` and ``std`` -> ``time_std`` (:func:`stat_name`,
  read back by :func:`split_stat_name`);
- a frame's spread across ranks/threads: ``time (inc).excess``, ``time (inc).imbalance``
  (:func:`excess_name`, :func:`imbalance_name`).
"""

from __future__ import annotations

INC = " (inc)"
EXC = "(exc)"


def inclusive_name(exc: str) -> str:
    """The inclusive partner of exclusive metric ``exc``: ``x (exc)`` pairs with ``x``,
    any other ``x`` with ``x (inc)``."""
    return exc[: -len(EXC)].strip() if exc.endswith(EXC) else f"{exc}{INC}"


def exclusive_name(inc: str) -> str:
    """The exclusive partner's name of an inclusive column ``x (inc)`` (``x``); any other
    name is its own."""
    return inc.removesuffix(INC)


def side_name(metric: str, side: str) -> str:
    """``time`` -> ``time [a]``, ``time (inc)`` -> ``time [a] (inc)`` (so the inclusive name
    of a side's exclusive column is that side's inclusive column)."""
    if metric.endswith(INC):
        return f"{metric[: -len(INC)]} [{side}]{INC}"
    return f"{metric} [{side}]"


def stat_name(metric: str, stat: str) -> str:
    """The column of statistic ``stat`` of ``metric`` in an ensemble's statistics table."""
    return f"{metric}_{stat}"


def split_stat_name(column: str) -> tuple[str, str]:
    """``(metric, stat)`` of a statistics column named by :func:`stat_name`."""
    metric, _, stat = column.rpartition("_")
    return metric, stat


def excess_name(metric: str) -> str:
    """The column of a metric's excess across ranks/threads (max - mean)."""
    return f"{metric}.excess"


def imbalance_name(metric: str) -> str:
    """The column of a metric's imbalance across ranks/threads (max / mean)."""
    return f"{metric}.imbalance"
