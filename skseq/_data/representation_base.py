"""The input representations' common base, and the representation of the raw
inputs themselves.

A representation is a configured object (:class:`Representation`, a
scikit-learn ``BaseEstimator``: its constructor stores its parameters
unchanged) that an IOHMM estimator takes as ``features`` and fits, as a clone,
on its training sequences. Its two methods are the estimators' own, on packed
sequences (``skseq._data.sequences.Sequences``): ``fit(seqs, rng, n_jobs,
sample_weight)``, and ``inputs(seqs, rows, n_jobs)``, the state networks'
inputs at every step and the output networks' at the packed steps ``rows``.
"""

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import InvalidParameterError

from .lifecycle import NumberParams
from .sequences import Sequences


def _on_packed(fit):
    """A representation's ``fit``, refusing what is not the packed sequences
    an estimator hands it (raw sequences given by hand failed with an
    AttributeError deep inside)."""

    @functools.wraps(fit)
    def checked(self, seqs, *args, **kwargs):
        if not isinstance(seqs, Sequences):
            name = type(self).__name__
            raise TypeError(
                f"{name}.fit takes the sequences an estimator has validated, not "
                f"{type(seqs).__name__}: pass the object as an estimator's "
                f"features, e.g. IOHMMClassifier(features={name}()), which fits "
                "a clone of it.")
        return fit(self, seqs, *args, **kwargs)

    return checked


class Representation(NumberParams, BaseEstimator):
    """Base class of the input representations. Not for direct use.

    A subclass sets ``name`` (the value of ``features`` it answers to),
    ``summary`` (one sentence for the estimators' docstrings), ``causal``
    (whether a step's inputs depend on the steps up to it only) and
    ``_parameter_constraints``, and implements ``fit`` and ``inputs`` and the
    properties ``n_state_features`` and ``n_output_features``.
    """

    name = None
    summary = None
    causal = True
    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in cls.__dict__:
            cls.fit = _on_packed(cls.__dict__["fit"])

    def _validate_for(self, owner):
        """Check the parameters, as ``owner`` (the estimator's name) fits
        with ``features=self``: the error names both."""
        try:
            self._validate_params()
        except InvalidParameterError as err:
            raise InvalidParameterError(
                f"{owner}(features={self!r}): {err}") from None


class RawFeatures(Representation):
    """The input features as they are (``features="raw"``).

    The state and output networks of Bengio & Frasconi's (1996) IOHMM read
    each step's input unchanged: linear in one step's input, they see neither
    local shape nor what the sequence did before that step (the hidden state
    carries that). The representation for symbols (one-hot or +-1 codes) and
    for one-step rows, which ``features="auto"`` picks for them.

    It has no parameters: ``features=RawFeatures()`` and ``features="raw"``
    fit the same model.

    Attributes
    ----------
    n_features_ : int
        Number of input features per step, as fitted.

    See Also
    --------
    ShapeFeatures : Local shape summarized over the prefix, for real-valued
        series.
    WindowFeatures : The recent past of every step, for labelling every step.

    References
    ----------
    Bengio, Y. & Frasconi, P. (1996). Input/output HMMs for sequence
    processing. IEEE Transactions on Neural Networks, 7(5), 1231-1249.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq import IOHMMClassifier
    >>> from skseq.representations import RawFeatures
    >>> X = np.eye(2)[[[0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0]]]
    >>> clf = IOHMMClassifier(n_states=2, features=RawFeatures(), n_init=2,
    ...                       random_state=0).fit(X, [1, 0, 1, 0])
    >>> clf.features_
    'raw'
    """

    name = "raw"
    summary = ("the input features as they are (the paper's model, linear in one "
               "step's input).")

    def fit(self, seqs, rng, n_jobs=None, sample_weight=None):
        """Fit on packed training sequences (the estimator's ``fit`` calls it
        on a clone of its ``features``)."""
        self.n_features_ = seqs.n_features
        return self

    @property
    def n_state_features(self):
        return self.n_features_

    @property
    def n_output_features(self):
        return self.n_features_

    def inputs(self, seqs, rows, n_jobs=None):
        """The state networks' inputs (every step) and the output networks'
        (at ``rows``)."""
        return seqs.data, seqs.data[rows]


# Integer sample weights are honoured by repeating sequences while the
# repeated steps stay within this many times the given ones.
_MAX_REPEAT = 4


def as_weighted(seqs, sample_weight):
    """The sequences the representation learns from, so that an integer weight equals
    repeating its sequence: each repeated as many times as its weight (exactly what the
    repeated data would give, the fit being blind to the order of the sequences).
    Sequences of weight 0 are left out; other weights (fractions, or repetitions beyond
    ``_MAX_REPEAT`` times the steps) count each sequence of positive weight once."""
    if sample_weight is None:
        return seqs
    weight = np.asarray(sample_weight, dtype=np.float64)
    # compared as floats first: a weight near float64's limit has no intp
    if (np.all(weight == np.rint(weight))
            and weight @ seqs.lengths <= _MAX_REPEAT * seqs.data.shape[0]):
        return seqs.repeated(weight.astype(np.intp))
    return seqs.repeated((weight > 0).astype(np.intp))
