"""The search space of single-parameter models: Extra-P's default PMNF building blocks.

A model is ``c0 + c1 * p^i * log2(p)^j`` (the performance model normal form with one
term). The hypotheses are the 42 exponent pairs ``(i, j)`` that Extra-P's basic
single-parameter modeler (4.2.x, log terms allowed, no negative exponents) tries, in the
order it tries them: the order decides ties, as in Extra-P, where a later hypothesis
must be strictly better to replace an earlier one. Without log terms (a parameter value
below 1) the 19 polynomial ones of them remain, in the same order.

Texts follow Extra-P's notation: ``p^(9/4)``, ``log2(p)^(1)``, ``p^(1) * log2(p)^(2)``.
A shorter label (``p^(9/4)``, ``p log2(p)``, ``log2(p)^2``, ``const``) names a growth
term in tables; :func:`signed` gives it the sign of its coefficient, so that a shrinking
model reads ``-p^(5/3)`` wherever its term is printed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

#: (numerator, denominator, log exponent) of each hypothesis, in Extra-P's search order
_EXPONENTS: tuple[tuple[int, int, int], ...] = (
    (0, 1, 1), (0, 1, 2), (1, 4, 0), (1, 3, 0), (1, 4, 1), (1, 3, 1), (1, 4, 2),
    (1, 3, 2), (1, 2, 0), (1, 2, 1), (1, 2, 2), (2, 3, 0), (3, 4, 0), (2, 3, 1),
    (3, 4, 1), (4, 5, 0), (2, 3, 2), (3, 4, 2), (1, 1, 0), (1, 1, 1), (1, 1, 2),
    (5, 4, 0), (5, 4, 1), (4, 3, 0), (4, 3, 1), (3, 2, 0), (3, 2, 1), (3, 2, 2),
    (5, 3, 0), (7, 4, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2), (9, 4, 0), (7, 3, 0),
    (5, 2, 0), (5, 2, 1), (5, 2, 2), (8, 3, 0), (11, 4, 0), (3, 1, 0), (3, 1, 1),
)  # fmt: skip

#: polynomial exponent of each hypothesis (exact fractions)
POLY: tuple[Fraction, ...] = tuple(Fraction(a, b) for a, b, _ in _EXPONENTS)
#: log2 exponent of each hypothesis
LOG: tuple[int, ...] = tuple(c for _, _, c in _EXPONENTS)
#: the exponents as float arrays (for array arithmetic)
POLY_F = np.array([float(f) for f in POLY])
LOG_F = np.array(LOG, dtype=float)
#: which hypotheses have a log factor
HAS_LOG = LOG_F > 0


def term_values(x: np.ndarray) -> np.ndarray:
    """``x^i * log2(x)^j`` of every hypothesis at the values ``x``: shape (hypotheses,
    len(x)). Values where a term is undefined (a fractional power of a negative value, a
    log of 0) come out non-finite; callers leave such hypotheses out."""
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        poly = np.power(x[None, :], POLY_F[:, None])
        logs = np.power(np.log2(x)[None, :], LOG_F[:, None])
        return np.where(HAS_LOG[:, None], poly * logs, poly)


def _power(symbol: str, exp: Fraction | int) -> str:
    return f"{symbol}^({exp})"


def extrap_term(poly: Fraction, log: int, param: str = "p") -> str:
    """A term in Extra-P's notation (``p^(9/4)``, ``p^(1) * log2(p)^(2)``), "" for none."""
    parts = []
    if poly != 0:
        parts.append(_power(param, poly))
    if log != 0:
        parts.append(_power(f"log2({param})", log))
    return " * ".join(parts)


def short_term(poly: Fraction, log: int, param: str = "p") -> str:
    """A compact label of a growth term: ``p^(9/4)``, ``p``, ``p log2(p)``,
    ``log2(p)^2``, ``const`` (no term)."""
    parts = []
    if poly != 0:
        parts.append(param if poly == 1 else f"{param}^({poly})")
    if log != 0:
        parts.append(f"log2({param})" if log == 1 else f"log2({param})^{log}")
    return " ".join(parts) or "const"


def signed(labels: np.ndarray, coefficients: np.ndarray, first: bool = True) -> np.ndarray:
    """Growth-term labels with the sign of their coefficients: ``-p^(5/3)`` for a term
    that shrinks the model (``first``: the leading term of a sum), else ``+ q`` and
    ``- q`` for a term added to others. The one place a growth label gets its sign."""
    neg = np.asarray(coefficients, dtype=float) < 0
    labels = np.asarray(labels, dtype=object)
    if first:
        return np.where(neg, "-" + labels, labels).astype(object)
    return np.where(neg, " - " + labels, " + " + labels).astype(object)


#: Extra-P's text and the compact label of every hypothesis
EXTRAP_TEXT: tuple[str, ...] = tuple(extrap_term(f, c) for f, c in zip(POLY, LOG))
SHORT_TEXT: tuple[str, ...] = tuple(short_term(f, c) for f, c in zip(POLY, LOG))
