"""The Federal-funds rate series of the Markov-switching literature."""

from importlib.resources import files

import numpy as np
from sklearn.utils import Bunch

__all__ = ["load_fedfunds"]


def load_fedfunds():
    """Quarterly US Federal-funds rate, output gap and inflation, 1954Q3-2010Q4.

    The series of the Markov-switching regressions in Stata's ``mswitch``
    manual (and in statsmodels' examples and tests): the effective Federal-funds
    rate (percent), the output gap (percent) and inflation (percent, annual; the
    first four quarters have none), 226 quarters. With a switching constant it
    gives Hamilton's (1989) two regimes of low and high rates; with the lagged
    rate, the output gap and inflation as regressors, a switching Taylor rule.

    Source: the Federal Reserve Economic Data (FRED, Federal Reserve Bank of
    St. Louis), as published with Stata's manual (``usmacro``) and statsmodels;
    see ``skseq/datasets/data/README.md``.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``quarter`` (str, e.g. ``"1954Q3"``), ``rate``, ``output_gap``,
        ``inflation`` (NaN where undefined): arrays of shape (226,).

    Examples
    --------
    >>> from skseq.datasets import load_fedfunds
    >>> data = load_fedfunds()
    >>> str(data.quarter[0]), str(data.quarter[-1]), data.rate.shape
    ('1954Q3', '2010Q4', (226,))
    """
    path = files("skseq.datasets") / "data" / "fedfunds.csv"
    with path.open(encoding="utf-8") as f:
        rows = [line.rstrip("\n").split(",") for line in f][1:]
    columns = list(zip(*rows, strict=True))

    def values(column):
        return np.array([float(v) if v else np.nan for v in column])

    return Bunch(quarter=np.array(columns[0]), rate=values(columns[1]),
                 output_gap=values(columns[2]), inflation=values(columns[3]))
