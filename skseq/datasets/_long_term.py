"""Long-term dependency benchmarks: the 2-sequence and parity problems.

Bengio, Simard & Frasconi (1994) built both so that the span of the dependency is
controlled by the sequence length; Bengio & Frasconi (1996, §5.3, Tables 1-4) use them
to compare IOHMMs with recurrent networks. Lengths are drawn uniformly in
``[max_length // 2, max_length]`` as in the paper (for the 2-sequence problem at
least ``n_informative``), unless ``min_length`` is given.
"""

import numpy as np
from sklearn.utils import check_random_state

from .._data import check_number, is_number
from ._tomita import _check_int, _check_lengths

__all__ = ["make_parity", "make_two_sequence"]


def _lengths(rng, n_samples, min_length, max_length, floor=1):
    """Lengths uniform in [min_length, max_length]; by default
    ``max(floor, max_length // 2)`` is the minimum."""
    n_samples = _check_int(n_samples, "n_samples", 1)
    max_length = _check_int(max_length, "max_length", floor)
    if min_length is None:
        min_length = max(floor, max_length // 2)
    min_length, max_length = _check_lengths(min_length, max_length)
    return rng.randint(min_length, max_length + 1, size=n_samples)


def _check_prototypes(prototypes, n_informative):
    """None (draw from random_state), an int seed, or a (2, n_informative) array."""
    if prototypes is None or is_number(prototypes, integral=True):
        return prototypes
    proto = np.asarray(prototypes, dtype=np.float64)
    if proto.shape != (2, n_informative):
        raise ValueError(
            f"prototypes must have shape (2, n_informative) = (2, {n_informative}); "
            f"got {proto.shape}."
        )
    if not np.isfinite(proto).all():
        raise ValueError("prototypes must be finite.")
    return proto


def make_two_sequence(n_samples=100, *, max_length=100, min_length=None,
                      n_informative=3, noise=0.2, prototypes=None,
                      random_state=None):
    """The 2-sequence problem: the class is carried by the first steps only.

    Each class has a prototype of ``n_informative`` values drawn uniformly in
    [-1, 1]; a sequence starts with its class's prototype plus uniform noise in
    [-noise, noise], and every later step is uniform noise in [-1, 1]. Only the
    last step is supervised, so the model must remember the beginning for up to
    ``max_length`` steps.

    Parameters
    ----------
    n_samples : int, default=100
        Number of sequences.
    max_length : int, default=100
        Longest sequence (T in the paper's tables). At least ``n_informative``.
    min_length : int, default=None
        Shortest sequence, at least ``n_informative``. Default
        ``max(n_informative, max_length // 2)`` (the paper's lengths: T/2 to T).
    n_informative : int, default=3
        Number of informative first steps (N = 3 in the paper).
    noise : float, default=0.2
        Amplitude of the uniform noise on the informative steps.
    prototypes : None, int or array-like of shape (2, n_informative), default=None
        The two classes' initial patterns, which define the task. None: drawn
        from ``random_state``, so calls with different seeds pose *different*
        problems (draw training and test sets from one call, or share
        ``prototypes``). An int: drawn from their own generator seeded with it,
        independently of ``random_state`` (calls sharing this int share the
        task). An array: row k is class k's pattern.
    random_state : int, RandomState instance or None, default=None
        Draws the lengths, the classes (balanced in expectation) and the noise,
        and the prototypes when ``prototypes`` is None.

    Returns
    -------
    X : list of ndarray of shape (len_i, 1)
    y : ndarray of shape (n_samples,), dtype=int
        The class, 0 or 1.

    Examples
    --------
    >>> from skseq.datasets import make_two_sequence
    >>> X, y = make_two_sequence(4, max_length=10, random_state=0)
    >>> [x.shape[0] >= 5 for x in X], sorted(set(y.tolist())) <= [0, 1]
    ([True, True, True, True], True)

    A test set for the same task from a second call:

    >>> X_train, y_train = make_two_sequence(50, max_length=20, prototypes=7,
    ...                                      random_state=0)
    >>> X_test, y_test = make_two_sequence(20, max_length=20, prototypes=7,
    ...                                    random_state=1)
    """
    n_informative, prototypes = _check_two_sequence_params(
        n_informative, noise, prototypes, min_length)
    rng = check_random_state(random_state)
    lengths = _lengths(rng, n_samples, min_length, max_length, floor=n_informative)
    return _two_sequences(rng, lengths, prototypes, n_informative, noise)


def _check_two_sequence_params(n_informative, noise, prototypes, min_length):
    """The checked ``n_informative`` and ``prototypes`` of
    :func:`make_two_sequence`; ``noise`` and ``min_length`` are checked too."""
    n_informative = _check_int(n_informative, "n_informative", 1)
    check_number(noise, "noise", low=0)
    prototypes = _check_prototypes(prototypes, n_informative)
    if min_length is not None:
        _check_int(min_length, "min_length", n_informative)
    return n_informative, prototypes


def _two_sequences(rng, lengths, prototypes, n_informative, noise):
    """The sequences and classes of :func:`make_two_sequence`, of the given
    lengths."""
    # Drawn after the lengths whatever the source, so that prototypes=None keeps
    # the stream of earlier versions.
    if prototypes is None:
        prototypes = rng.uniform(-1, 1, size=(2, n_informative))
    elif not isinstance(prototypes, np.ndarray):
        prototypes = np.random.RandomState(prototypes).uniform(
            -1, 1, size=(2, n_informative))
    y = rng.randint(2, size=len(lengths))
    X = []
    for label, length in zip(y, lengths, strict=True):
        x = rng.uniform(-1, 1, size=length)
        x[:n_informative] = prototypes[label] + rng.uniform(-noise, noise,
                                                            size=n_informative)
        X.append(x[:, None])
    return X, y


def make_parity(n_samples=100, *, max_length=20, min_length=None,
                random_state=None):
    """The parity problem: is the number of 1s in a sequence of +/-1 odd?

    Parameters
    ----------
    n_samples : int, default=100
        Number of sequences.
    max_length : int, default=20
        Longest sequence (T in the paper's tables).
    min_length : int, default=None
        Shortest sequence; default ``max_length // 2``.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : list of ndarray of shape (len_i, 1)
        Values +1 or -1.
    y : ndarray of shape (n_samples,), dtype=int
        1 if the number of +1 is odd, else 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.datasets import make_parity
    >>> X, y = make_parity(3, max_length=6, random_state=0)
    >>> all(int((x == 1).sum() % 2) == label for x, label in zip(X, y))
    True
    """
    rng = check_random_state(random_state)
    lengths = _lengths(rng, n_samples, min_length, max_length)
    X = [rng.choice([-1.0, 1.0], size=(length, 1)) for length in lengths]
    y = np.array([int((x == 1).sum() % 2) for x in X])
    return X, y
