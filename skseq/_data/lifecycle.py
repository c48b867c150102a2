"""The estimator lifecycle: a failed call leaves the estimator as it was, and a
fitted model refuses parameters changed since fit; the shared ``n_jobs``
constraint, and no bool for a number (in a parameter or in a plain argument)."""

import math
import numbers
from contextlib import contextmanager

import numpy as np
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    validate_parameter_constraints,
)

__all__ = [
    "N_JOBS_CONSTRAINT",
    "NumberParams",
    "check_flag",
    "check_fitted_params",
    "check_n_jobs",
    "check_number",
    "check_params",
    "is_number",
    "record_fitted_params",
    "refuse_bool_numbers",
    "restore_on_failure",
]

# joblib's n_jobs: None, a positive count, or -1, -2, ... (all CPUs but k - 1); 0
# means nothing.
N_JOBS_CONSTRAINT = [None, Interval(numbers.Integral, 1, None, closed="left"),
                     Interval(numbers.Integral, None, -1, closed="right")]


def check_flag(value, name):
    """TypeError unless ``value`` is True or False (a method's switch, such as
    ``smoothed``, that any truthy string would otherwise turn on)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}.")


def is_number(value, integral=False):
    """Whether ``value`` is a real number (an integer if ``integral``) and not a
    bool: ``True`` and ``np.True_`` pass ``numbers.Integral`` or compare as 1,
    but as a count, an index or a scale they are a mistake. NumPy's integers and
    floats count as numbers, 0-d arrays and strings do not."""
    kind = numbers.Integral if integral else numbers.Real
    return isinstance(value, kind) and not isinstance(value, bool | np.bool_)


def _number_wanted(integral, low, high, high_open, finite):
    """What :func:`check_number` asks for, in words ("an integer >= 1")."""
    what = ("an integer" if integral else "a finite number" if finite
            else "a number")
    if low is not None and high is not None:
        return f"{what} in [{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f"{what} >= {low}"
    if high is not None:
        return f"{what} {'<' if high_open else '<='} {high}"
    return what


def check_number(value, name, *, integral=False, low=None, high=None,
                 high_open=False, finite=True, where=""):
    """A plain argument checked to be a number, not a bool, within bounds.

    For an argument of a function or method (an estimator's parameters are
    checked by :class:`NumberParams`).

    Parameters
    ----------
    value : object
        The value given.
    name : str
        The argument's name, first in the message.
    integral : bool, default=False
        Whether an integer is wanted (NumPy's integers included); else any real
        number (``numbers.Real``: NumPy's floats, fractions).
    low, high : number or None, default=None
        Bounds, ``low <= value`` and ``value <= high`` (``< high`` if
        ``high_open``); None for none.
    high_open : bool, default=False
        Whether ``high`` itself is refused.
    finite : bool, default=True
        Whether infinities are refused; NaN always is.
    where : str, default=""
        Appended to the message: where the value was found, or what the bound
        means.

    Returns
    -------
    value : int or float
        The value as a Python int if ``integral``, else as a float.

    Raises
    ------
    InvalidParameterError
        (a TypeError and a ValueError) if ``value`` is not a number, or is a
        bool.
    ValueError
        If it is NaN, infinite while ``finite``, or out of bounds.
    """
    wanted = _number_wanted(integral, low, high, high_open, finite)
    if not is_number(value, integral):
        given = f"a bool ({value!r})" if isinstance(value, bool | np.bool_) else (
            repr(value))
        raise InvalidParameterError(f"{name} must be {wanted}, got {given}{where}.")
    try:
        number = int(value) if integral else float(value)
    except OverflowError:  # an int beyond the floats
        number = math.inf if value > 0 else -math.inf
    if (math.isnan(number) or (finite and math.isinf(number))
            or (low is not None and value < low)
            or (high is not None and (value >= high if high_open else value > high))):
        raise ValueError(f"{name} must be {wanted}, got {value!r}{where}.")
    return number


def refuse_bool_numbers(estimator, names=None):
    """InvalidParameterError for a bool given as a number (a parameter whose
    constraints hold an integer or real interval and do not admit booleans;
    among ``names`` if given): scikit-learn's checks pass ``True`` as the
    number 1, and a count or scale of ``True`` fails deep inside or is kept
    as such in the fitted attributes."""
    for name, constraints in estimator._parameter_constraints.items():
        if names is not None and name not in names:
            continue
        value = getattr(estimator, name)
        kinds = {c.type for c in constraints if isinstance(c, Interval)}
        if (not isinstance(value, (bool, np.bool_)) or not kinds
                or any(c == "boolean" or c is bool for c in constraints)):
            continue
        kind = "an int" if kinds == {numbers.Integral} else "a real number"
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be "
            f"{kind}, not a bool. Got {value!r} instead.")


class NumberParams:
    """Mixin of every public estimator and transformer, before
    ``BaseEstimator``: the validation of the parameters (scikit-learn's, which
    ``fit`` runs) also refuses a bool given as a number
    (:func:`refuse_bool_numbers`)."""

    def _validate_params(self):
        super()._validate_params()
        refuse_bool_numbers(self)


def check_n_jobs(estimator):
    """InvalidParameterError (a ValueError and a TypeError) naming ``n_jobs``
    if it holds a value fit would refuse, in fit's words.

    scikit-learn checks parameters at fit only, but every prediction reads
    ``n_jobs`` again: set by ``set_params`` after fit, a bad value would fail
    deep inside joblib, or pass unnoticed when the work is too small for
    threads. A prediction checks it first, so a refused call changes nothing.
    """
    check_params(estimator, ("n_jobs",))


def check_params(estimator, names):
    """InvalidParameterError naming the first of the parameters ``names``
    that holds a value fit would refuse (by its constraints, or a bool given
    as a number), in fit's words: for a parameter read again after fit,
    where ``set_params`` may have changed it."""
    validate_parameter_constraints(
        {k: estimator._parameter_constraints[k] for k in names},
        {k: getattr(estimator, k) for k in names},
        caller_name=type(estimator).__name__)
    refuse_bool_numbers(estimator, names)


@contextmanager
def restore_on_failure(estimator):
    """A call that raises leaves the estimator exactly as it was.

    ``fit`` records ``n_features_in_`` and the like while validating; if a later
    check (or the fit itself) fails, every attribute is put back. Attributes are
    only ever rebound, never mutated in place, so a shallow copy suffices.
    """
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise

def _params_snapshot(estimator, names):
    return {k: _snapshot(v) for k, v in estimator.get_params(deep=False).items()
            if k in names}


def _snapshot(value):
    """A parameter's value as a comparable copy; an object with parameters
    (a representation given as ``features``) as its class and parameters, so
    that ``set_params(features__n_components=...)`` counts as a change."""
    if isinstance(value, str):
        return value
    if hasattr(value, "get_params"):
        return (type(value), _snapshot_dict(value.get_params(deep=False)))
    return np.asarray(value).tolist()


def _snapshot_dict(params):
    return {k: _snapshot(v) for k, v in params.items()}


def record_fitted_params(estimator, names):
    """Remember the parameters ``names`` that shape the fitted model.

    :func:`check_fitted_params` then refuses a model whose parameters were
    changed by ``set_params`` without refitting: used with the old fitted
    attributes, they would silently give wrong results (or fail deep inside).
    """
    estimator._fitted_params_ = _params_snapshot(estimator, names)


def check_fitted_params(estimator, advice=None):
    """ValueError if a parameter recorded at fit has changed since
    (``advice``: what to do, by default refit); and :func:`check_n_jobs` for
    an estimator with ``n_jobs``, which a fitted model reads again."""
    if "n_jobs" in getattr(estimator, "_parameter_constraints", {}):
        check_n_jobs(estimator)
    fitted = getattr(estimator, "_fitted_params_", None)
    if fitted is None:  # fitted before the record existed
        return
    now = _params_snapshot(estimator, fitted)
    changed = [k for k, v in now.items() if fitted[k] != v]
    if changed:
        raise ValueError(
            f"{', '.join(changed)} changed since fit (set_params without "
            "refitting): " + (advice or f"refit {type(estimator).__name__} "
                                        "before using it.")
        )
