"""Regimes toggled by the input: a regression whose law depends on the whole past.

Two regimes, each with its own linear law, and an event in the input that flips
the regime (a flip-flop): the regime at a step is the parity of the number of
events so far, so it depends on the whole input history, and a model must keep
it in its state for as long as no event comes. A model of the current input
alone cannot do better than the pooled linear law, whose R^2 is about 0.
"""

import numpy as np
from sklearn.utils import check_random_state

from .._data import check_flag, check_number
from ._long_term import _lengths
from ._tomita import _check_int

__all__ = ["make_toggled_regimes"]


def _check_real(value, name, low, high=None):
    """A finite real in [low, high], as a float; a ValueError naming it if not."""
    return check_number(value, name, low=low, high=high)


def make_toggled_regimes(n_samples=100, *, max_length=100, min_length=None,
                         n_features=1, event_rate=0.1, trigger_noise=0.25,
                         noise=0.3, random_state=None, return_regimes=False):
    """Two regression regimes toggled by events in the input (a flip-flop).

    Every sequence starts in regime 0; an event at step t flips the regime from
    step t on, so the regime is the parity of the number of events up to and
    including t. Each step has ``n_features`` inputs x_t ~ N(0, I) and, in the
    last column, a trigger: 1 at an event (probability ``event_rate`` per step,
    independently) and 0 otherwise, plus uniform noise in
    [-trigger_noise, trigger_noise]. The target follows the regime's law,

        y_t = s_t (a . x_t + 1) + N(0, noise^2),  s_t = +1 in regime 0, -1 in 1,

    with a = (2 / sqrt(n_features), ...). Both regimes have the same spread and
    opposite laws, so the pooled linear law explains nothing (R^2 about 0) while
    the true regime's law explains 5 / (5 + noise^2) of the variance (0.982 for
    noise 0.3). With ``trigger_noise < 0.5`` the events are separated from the
    quiet steps by a margin of 1 - 2 trigger_noise, and the regime is a
    function of the inputs so far; with ``trigger_noise >= 0.5`` some events
    cannot be told from quiet steps.

    Parameters
    ----------
    n_samples : int, default=100
        Number of sequences.
    max_length : int, default=100
        Longest sequence.
    min_length : int, default=None
        Shortest sequence; default ``max_length // 2``. Lengths are uniform
        between the two.
    n_features : int, default=1
        Inputs of the linear laws (the trigger comes in addition).
    event_rate : float, default=0.1
        Probability of an event at each step, in [0, 1].
    trigger_noise : float, default=0.25
        Half-width of the uniform noise on the trigger channel (>= 0).
    noise : float, default=0.3
        Standard deviation of the Gaussian noise on the target (>= 0).
    random_state : int, RandomState instance or None, default=None
        Controls the lengths, inputs, events and noise.
    return_regimes : bool, default=False
        Also return the regime (0 or 1) of every step.

    Returns
    -------
    X : list of ndarray of shape (len_i, n_features + 1)
        The law inputs, then the trigger.
    y : list of ndarray of shape (len_i,)
        Step-level targets.
    regimes : list of ndarray of shape (len_i,), dtype=int
        Only with ``return_regimes=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.datasets import make_toggled_regimes
    >>> X, y, regimes = make_toggled_regimes(3, max_length=20, random_state=0,
    ...                                      return_regimes=True)
    >>> X[0].shape[1], y[0].shape == regimes[0].shape
    (2, True)
    >>> events = X[0][:, -1] > 0.5
    >>> bool(np.all(regimes[0] == np.cumsum(events) % 2))
    True
    """
    n_features = _check_int(n_features, "n_features", 1)
    event_rate = _check_real(event_rate, "event_rate", 0.0, 1.0)
    trigger_noise = _check_real(trigger_noise, "trigger_noise", 0.0)
    noise = _check_real(noise, "noise", 0.0)
    check_flag(return_regimes, "return_regimes")
    rng = check_random_state(random_state)
    lengths = _lengths(rng, n_samples, min_length, max_length)
    X, y, regimes = _toggled_sequences(rng, lengths, n_features, event_rate,
                                       trigger_noise, noise)
    return (X, y, regimes) if return_regimes else (X, y)


def _toggled_sequences(rng, lengths, n_features, event_rate, trigger_noise, noise):
    """The inputs, targets and regimes of :func:`make_toggled_regimes`."""
    slope = np.full(n_features, 2.0 / np.sqrt(n_features))
    X, y, regimes = [], [], []
    for length in lengths:
        x = rng.normal(size=(length, n_features))
        events = rng.uniform(size=length) < event_rate
        trigger = events + rng.uniform(-trigger_noise, trigger_noise, size=length)
        regime = np.cumsum(events) % 2
        X.append(np.column_stack([x, trigger]))
        y.append((1.0 - 2.0 * regime) * (x @ slope + 1.0)
                 + noise * rng.normal(size=length))
        regimes.append(regime.astype(int))
    return X, y, regimes
