""":class:`SequenceUnion`: the per-step features of several transformers side
by side.
"""

import numpy as np
from sklearn import get_config
from sklearn.base import (
    TransformerMixin,
    clone,
)
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import _BaseComposition
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._data import (
    N_JOBS_CONSTRAINT,
    NumberParams,
    Reading,
    check_n_jobs,
    check_number,
    check_sequences,
    restore_on_failure,
    validate_sequences,
)
from .._data.checks import quiet_repeats
from ._base import _output, _refuse_not_finite, _SequenceOutput
from ._stepwise import _allows_nan, _check_output_values

# How the transformers' outputs are read: numbers, missing values let through
# to the check of where they stand (_check_output_values).
_OUTPUTS = Reading(allow_nan=True)


def _workers(n_jobs, n_tasks):
    """``n_jobs`` for joblib, at most one worker per task: joblib fails on a
    count beyond the C integers, valid here as for the other transformers."""
    if n_jobs is not None and n_jobs > n_tasks:
        return max(n_tasks, 1)
    return n_jobs


# Each runs in a worker of the union's Parallel; quiet_repeats applies to the
# thread that enters it, so the worker enters it: the union has warned of X once.
def _fit_transform_one(transformer, X, y, params):
    with quiet_repeats():
        return transformer, transformer.fit_transform(X, y, **params)


def _transform_one(transformer, X):
    """None stands for the input itself (``"passthrough"``)."""
    if transformer == "passthrough":
        return None
    with quiet_repeats():
        return transformer.transform(X)


class SequenceUnion(_SequenceOutput, TransformerMixin, NumberParams, _BaseComposition):
    """Concatenate, step by step, the features of several sequence transformers.

    scikit-learn's :class:`~sklearn.pipeline.FeatureUnion` for sequences: every
    transformer gets the same sequences, and their outputs, which must keep
    one step per input step, are put side by side at every step, in the form of
    the input (list in, list out; 3-D padded in, 3-D out; 2-D rows in, 2-D
    out). Unlike FeatureUnion, ``fit`` fits clones of the transformers (in
    ``transformers_``) and leaves ``transformer_list`` as it was. Nested
    parameters are set as in FeatureUnion (``"shape__n_dilations"``), so
    GridSearchCV reaches them.

    Steps of symbols (strings, pandas categories) and missing values reach
    the transformers as they are, for those that read them (a
    :class:`Stepwise` encoder or imputer, :class:`ForwardFill`); missing
    values are accepted when every transformer accepts them (the union's
    ``allow_nan`` tag). The union's output must be numbers: a
    ``"passthrough"`` entry is refused on steps of symbols, and a
    transformer's NaN is let through only at the steps that had a missing
    value, as in :class:`Stepwise`.

    Parameters
    ----------
    transformer_list : list of (str, transformer) tuples
        The transformers, each keeping one output step per input step (e.g.
        :class:`DilatedConvolution`, :class:`Stepwise`,
        :class:`SequenceFeatures`, :class:`RunningPooling`, or pipelines of
        them); ``"passthrough"`` keeps the input features, ``"drop"`` leaves
        the entry out.
    n_jobs : int or None, default=None
        Transformers fitted and run in parallel (joblib).
    transformer_weights : dict or None, default=None
        Multiplier of each transformer's features, keyed by name. A weight
        that takes a feature beyond the float64 range raises a ValueError
        naming the transformer and where.
    verbose_feature_names_out : bool, default=True
        Prefix the output feature names with ``<transformer name>__``.

    Attributes
    ----------
    transformers_ : list of (str, transformer) tuples
        The fitted clones (``"passthrough"`` as such), without dropped entries.
    n_features_in_ : int
        Number of features per input step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    sklearn.pipeline.FeatureUnion : The same for tables.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import SplineTransformer
    >>> from skseq.preprocessing import (DilatedConvolution, SequenceFeatures,
    ...                                  SequenceUnion, Stepwise)
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(40, 1)), rng.normal(size=(25, 1))]
    >>> union = SequenceUnion([
    ...     ("shape", DilatedConvolution(n_dilations=2, random_state=0)),
    ...     ("amplitude", Stepwise(SplineTransformer(n_knots=4))),
    ...     ("change", SequenceFeatures(keep_input=False)),
    ... ])
    >>> [x.shape for x in union.fit_transform(X)]   # 336 + 6 + 1 per step
    [(40, 343), (25, 343)]
    >>> union.get_feature_names_out()[-2:]
    array(['amplitude__x0_sp_5', 'change__diff_x0'], dtype=object)

    Symbols, one-hot and as ordinal codes side by side:

    >>> from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder
    >>> events = [np.array(["login", "view", "buy"]), np.array(["view"])]
    >>> codes = SequenceUnion([
    ...     ("onehot", Stepwise(OneHotEncoder(sparse_output=False))),
    ...     ("code", Stepwise(OrdinalEncoder())),
    ... ])
    >>> codes.fit_transform(events)[1]   # view: buy, login, view; code 2
    array([[0., 0., 1., 2.]])
    """

    _parameter_constraints: dict = {
        "transformer_list": [list],
        "n_jobs": N_JOBS_CONSTRAINT,
        "transformer_weights": [dict, None],
        "verbose_feature_names_out": ["boolean"],
    }

    def __init__(self, transformer_list, *, n_jobs=None, transformer_weights=None,
                 verbose_feature_names_out=True):
        self.transformer_list = transformer_list
        self.n_jobs = n_jobs
        self.transformer_weights = transformer_weights
        self.verbose_feature_names_out = verbose_feature_names_out

    def get_params(self, deep=True):
        """Parameters of the union and, with ``deep``, of its transformers.

        Parameters
        ----------
        deep : bool, default=True
            Also return the transformers and their parameters
            (``<name>__<parameter>``).

        Returns
        -------
        params : dict
        """
        return self._get_params("transformer_list", deep=deep)

    def set_params(self, **params):
        """Set parameters of the union or of its transformers.

        Parameters
        ----------
        **params : keyword arguments
            ``transformer_list``, a transformer by its name, or
            ``<name>__<parameter>``.

        Returns
        -------
        self : object
        """
        self._set_params("transformer_list", **params)
        return self

    def _active(self):
        """(name, transformer) of the entries not dropped, names, entries and
        weights checked."""
        for entry in self.transformer_list:
            if not (isinstance(entry, tuple | list) and len(entry) == 2
                    and isinstance(entry[0], str)):
                raise TypeError(
                    f"SequenceUnion: transformer_list holds {entry!r}; expected "
                    "(name, transformer) pairs, e.g. [('diff', SequenceFeatures())]."
                )
        names = [entry[0] for entry in self.transformer_list]
        self._validate_names(names)
        self._check_weights(names)
        active = []
        for name, trans in self.transformer_list:
            if isinstance(trans, str):
                if trans == "drop":
                    continue
                if trans != "passthrough":
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} is the string "
                        f"{trans!r}; expected a transformer, 'passthrough' or "
                        "'drop'."
                    )
            elif not (hasattr(trans, "fit") and hasattr(trans, "transform")):
                raise TypeError(
                    f"SequenceUnion: transformer {name!r} ({type(trans).__name__}) "
                    "has no fit and transform methods."
                )
            active.append((name, trans))
        if not active:
            raise ValueError("SequenceUnion: every transformer is 'drop'.")
        return active

    def _check_weights(self, names):
        """Every weight a finite number, of a transformer of the list (a
        misspelt name would leave its transformer unweighted, silently)."""
        for name, weight in (self.transformer_weights or {}).items():
            if name not in names:
                raise ValueError(
                    f"SequenceUnion: transformer_weights has a weight for {name!r}, "
                    f"which is not a transformer of transformer_list ({names})."
                )
            check_number(weight, f"SequenceUnion: the weight of {name!r}")

    def fit(self, X, y=None, **fit_params):
        """Fit clones of the transformers on X.

        A failed fit leaves a fitted union exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or None, default=None
            Passed to every transformer's ``fit``.
        **fit_params : dict
            Passed to every transformer's ``fit_transform`` (e.g.
            ``sample_weight`` to a :class:`Stepwise`); under metadata routing,
            to the transformers that request them.

        Returns
        -------
        self : object
        """
        self.fit_transform(X, y, **fit_params)
        return self

    def get_metadata_routing(self):
        """Metadata routing: ``fit`` and ``fit_transform`` pass what each
        transformer's ``fit_transform`` requests.

        Returns
        -------
        routing : MetadataRouter
        """
        router = MetadataRouter(owner=type(self).__name__)
        for name, trans in self.transformer_list:
            if isinstance(trans, str):  # "passthrough", "drop"
                continue
            mapping = (MethodMapping().add(caller="fit", callee="fit_transform")
                       .add(caller="fit_transform", callee="fit_transform"))
            router.add(**{name: trans}, method_mapping=mapping)
        return router

    def _routed_params(self, active, fit_params):
        """Each active transformer's fit parameters: under metadata routing
        those it requests, else all of them (as FeatureUnion does)."""
        if not get_config()["enable_metadata_routing"]:
            return {name: fit_params for name, _ in active}
        routed = process_routing(self, "fit_transform", **fit_params)
        return {name: routed[name].fit_transform
                for name, trans in active if trans != "passthrough"}

    def fit_transform(self, X, y=None, **fit_params):
        """Fit clones of the transformers on X and concatenate their outputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or None, default=None
            Passed to every transformer's ``fit_transform``.
        **fit_params : dict
            As in :meth:`fit`.

        Returns
        -------
        X_new : same form as X
            The transformers' features, side by side at every step.
        """
        with restore_on_failure(self):
            self._validate_params()
            active = self._active()
            seqs = self._validated(X, active, reset=True)
            params = self._routed_params(active, fit_params)
            tasks = [delayed(_fit_transform_one)(clone(trans), X, y, params[name])
                     for name, trans in active if trans != "passthrough"]
            fitted = Parallel(n_jobs=_workers(self.n_jobs, len(tasks)))(tasks)
            fitted = iter(fitted)
            self.transformers_, outputs = [], []
            for name, trans in active:
                trans, out = (("passthrough", None) if trans == "passthrough"
                              else next(fitted))
                self.transformers_.append((name, trans))
                outputs.append(out)
            return self._hstack(seqs, outputs)

    def transform(self, X):
        """Transform X by every transformer and concatenate the outputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            The transformers' features, side by side at every step.
        """
        check_is_fitted(self)
        check_n_jobs(self)
        self._active()  # the weights are read again
        seqs = self._validated(X, self.transformers_, reset=False)
        outputs = Parallel(n_jobs=_workers(self.n_jobs, len(self.transformers_)))(
            delayed(_transform_one)(trans, X) for _, trans in self.transformers_
        )
        return self._hstack(seqs, outputs)

    def _validated(self, X, entries, reset):
        """The sequences of X, steps of symbols kept (for the transformers
        that read them) and missing values allowed when every transformer
        accepts them; a ``"passthrough"`` entry refused on symbols, which
        it would pass to the output."""
        seqs = validate_sequences(self, X, reset=reset, symbols=True,
                                  allow_nan=_all_allow_nan(entries))
        if seqs.data.dtype == object:
            name = next((name for name, trans in entries
                         if trans == "passthrough"), None)
            if name is not None:
                raise ValueError(
                    f"SequenceUnion: {name!r} is 'passthrough', which would put "
                    "X's steps of symbols in the output, whose features must be "
                    f"numbers; encode them instead, e.g. ({name!r}, "
                    "Stepwise(OneHotEncoder()))."
                )
        return seqs

    def _hstack(self, seqs, outputs):
        """Every output packed, checked against the input's lengths, weighted
        and concatenated along the features; None stands for the input."""
        weights = self.transformer_weights or {}
        blocks = []
        for (name, _), out in zip(self.transformers_, outputs, strict=True):
            data = seqs.data
            if out is not None:
                try:
                    packed = check_sequences(out, name=f"output of {name!r}",
                                             reading=_OUTPUTS)
                except (TypeError, ValueError) as exc:
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} did not return "
                        f"sequences: {exc}"
                    ) from exc
                if not np.array_equal(packed.lengths, seqs.lengths):
                    s = int(np.argmax(packed.lengths != seqs.lengths)) if (
                        packed.n_sequences == seqs.n_sequences) else None
                    what = (f"{packed.n_sequences} sequences for {seqs.n_sequences}"
                            if s is None else f"{packed.lengths[s]} steps for the "
                            f"{seqs.lengths[s]} of sequence {s}")
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} returned {what}; "
                        "every transformer must keep one output step per input "
                        "step."
                    )
                data = packed.data
                _check_output_values(f"SequenceUnion: transformer {name!r}",
                                     seqs, data)
            blocks.append(_weighted(seqs, data, name, weights[name])
                          if name in weights else data)
        return _output(seqs, np.hstack(blocks))

    def get_feature_names_out(self, input_features=None):
        """Names of the output features.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; default ``feature_names_in_``, else
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            Every transformer's names, prefixed by ``<name>__`` when
            ``verbose_feature_names_out``.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        out = []
        for name, trans in self.transformers_:
            inner = (names if trans == "passthrough"
                     else trans.get_feature_names_out(names))
            out.extend(f"{name}__{f}" if self.verbose_feature_names_out else f
                       for f in inner)
        return np.asarray(out, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.input_tags.allow_nan = _all_allow_nan(self._active())
        except (TypeError, ValueError):  # a malformed list, refused by fit
            tags.input_tags.allow_nan = False
        return tags


def _all_allow_nan(entries):
    """Whether every transformer of ``entries`` accepts missing values (its
    ``allow_nan`` tag, as :class:`Stepwise` reads it); ``"passthrough"``
    passes them on, at the steps that have them."""
    return all(trans == "passthrough" or _allows_nan(trans)
               for _, trans in entries)


def _weighted(seqs, data, name, weight):
    """The features ``data`` (finite) of transformer ``name`` times its
    weight, or a ValueError naming the transformer and the first value the
    product takes beyond the float64 range."""
    with np.errstate(over="ignore"):
        out = data * float(weight)
    # a missing value stays one (passed on where X had one)
    finite = np.where(np.isnan(data), 0.0, out)
    _refuse_not_finite(seqs, finite, lambda seq, step, feature: (
        f"SequenceUnion: transformer_weights gives {name!r} the weight "
        f"{float(weight):g}, which takes its output feature {feature} at "
        f"sequence {seq}, step {step} "
        f"({data[seqs.offsets[seq] + step, feature]:.3g}) beyond the float64 "
        "range; use a smaller weight, or scale the features first."))
    return out
