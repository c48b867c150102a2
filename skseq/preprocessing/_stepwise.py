""":class:`Stepwise` applies an ordinary (2-D) scikit-learn transformer to every
step; :func:`on_raw_steps` calls a method of a pipeline's last step and maps its
per-step output back onto the raw steps.
"""

from contextlib import contextmanager
from itertools import repeat

import numpy as np
from sklearn import get_config
from sklearn.base import (
    BaseEstimator,
    TransformerMixin,
    clone,
)
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._data import (
    Reading,
    check_sample_weight,
    check_sequences,
    missing_values,
    quote,
    restore_on_failure,
    validate_sequences,
)
from ._base import _refuse_not_finite, _SequenceOutput
from ._window import WindowMean

# What the raw steps of a pipeline may hold: its first step reads them.
_ANY_STEPS = Reading(symbols=True, allow_nan=True)


class Stepwise(_SequenceOutput, TransformerMixin, BaseEstimator):
    """Apply a 2-D transformer to every step, keeping the sequence structure.

    The transformer is fitted on all steps of all sequences pooled, and then
    transforms each step; the output has the form of the input (list in, list out;
    3-D padded in, 3-D padded out; 2-D in, 2-D out). The transformer must return
    finite numbers, one row per step (a NaN step could not be told from padding),
    and at least one column.

    Steps may be symbols (strings, pandas categories) for a transformer that
    reads them, such as ``OneHotEncoder`` or ``OrdinalEncoder``: a list of 1-D
    string arrays (univariate symbol sequences), of 2-D object arrays or of
    DataFrames with string or categorical columns, or a 3-D object array
    padded at the end with rows whose every feature is None or NaN. The
    transformer then receives all steps pooled as one 2-D object array
    (numbers among the symbols kept as they are); a ``ColumnTransformer``
    (alone or in a Pipeline) receives them, when X's DataFrames have string
    column names, as one DataFrame with those names, so that it may select
    its columns by name, by position or by dtype (the columns of category
    dtype in X's first DataFrame arrive as categories, those of the pooled
    steps: ``make_column_selector(dtype_include="category")`` takes them as
    it would in X; string columns arrive as objects);
    bytes must be decoded to str first. A ``ColumnTransformer`` accepts
    missing values when all its transformers do (``"passthrough"`` passing
    them on).

    Missing values (NaN, None) inside a sequence are passed on, as NaN, to a
    transformer that accepts them (its ``allow_nan`` tag, e.g.
    ``SimpleImputer``, ``KNNImputer`` or ``OneHotEncoder``, which makes them a
    category; a Pipeline's first step's), and refused otherwise. A 3-D
    array's trailing all-NaN rows stay padding; any row before a sequence's
    last observed one is a step, even all NaN. A transformer that keeps
    missing values as NaN (``StandardScaler``) passes them on at the steps
    that had them, for a later imputer; anywhere else the output must be
    finite.

    Parameters
    ----------
    transformer : estimator
        Any scikit-learn transformer working on ``(n_samples, n_features)``, e.g.
        ``StandardScaler()`` or ``OneHotEncoder(sparse_output=False)``.

    Attributes
    ----------
    transformer_ : estimator
        The fitted clone of ``transformer``.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skseq.preprocessing import Stepwise
    >>> X = [np.array([[0.0], [2.0]]), np.array([[4.0]])]
    >>> X_new = Stepwise(StandardScaler()).fit_transform(X)
    >>> [x.ravel().round(2).tolist() for x in X_new]
    [[-1.22, 0.0], [1.22]]

    Symbols, one per step, one-hot encoded:

    >>> from sklearn.preprocessing import OneHotEncoder
    >>> events = [np.array(["login", "view", "buy"]), np.array(["login", "view"])]
    >>> onehot = Stepwise(OneHotEncoder(sparse_output=False)).fit(events)
    >>> onehot.transform(events)[1]
    array([[0., 1., 0.],
           [0., 0., 1.]])
    >>> onehot.get_feature_names_out()
    array(['x0_buy', 'x0_login', 'x0_view'], dtype=object)
    """

    _parameter_constraints: dict = {"transformer": [HasMethods(["fit", "transform"])]}

    def __init__(self, transformer):
        self.transformer = transformer

    def fit(self, X, y=None, **fit_params):
        """Fit the transformer on all steps pooled.

        A failed fit leaves a fitted Stepwise exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : ignored
            Not used, present for API consistency.
        **fit_params : dict
            ``sample_weight``, array-like of shape (n_sequences,): the
            transformer's fit weighs every step with its sequence's weight. In
            a Pipeline, ``stepwise__sample_weight``; under metadata routing,
            passed when the transformer requests it
            (``StandardScaler().set_fit_request(sample_weight=True)``).

        Returns
        -------
        self : object
        """
        with restore_on_failure(self):
            self._validate_params()
            seqs = self._validated(X, self.transformer, reset=True)
            params = _step_fit_params(self, seqs, fit_params)
            self._categories = _categorical_columns(
                X, getattr(self, "feature_names_in_", None))
            steps = self._steps_table(seqs.data, self.transformer)
            self._text_features = _text_features(seqs.data)
            with _naming_symbols(self.transformer, seqs):
                self.transformer_ = clone(self.transformer).fit(steps, **params)
                # the number (and kind) of output columns, read from the first
                # step's
                first = self.transformer_.transform(steps[:1])
            self._check_columns(self._as_numbers(first))
        return self

    def _validated(self, X, transformer, reset):
        """The sequences of X, steps of symbols kept as objects and missing
        values kept where the transformer accepts them."""
        return validate_sequences(self, X, reset=reset, symbols=True,
                                  allow_nan=_allows_nan(transformer))

    def _steps_table(self, data, transformer):
        """The pooled steps as the transformer reads them: for a
        ColumnTransformer (or a Pipeline holding one), a DataFrame with the
        columns' names when X had them, so that it may select columns by
        name (or by dtype: the columns of category dtype at fit are
        categories); else the packed array."""
        names = getattr(self, "feature_names_in_", None)
        if names is None or not any(isinstance(step, ColumnTransformer)
                                    for step in _steps(transformer)):
            return data
        import pandas as pd  # X was a DataFrame (or a list of them)

        table = pd.DataFrame(data, columns=names, copy=False).infer_objects()
        categories = getattr(self, "_categories", [])
        return table.astype(dict.fromkeys(categories, "category")) if (
            categories) else table

    def _as_numbers(self, out):
        """The transformer's output as float64; refused, naming the
        transformer, unless it holds numbers (steps of symbols left as
        they were, say)."""
        if hasattr(out, "toarray"):
            out = out.toarray()
        out = np.asarray(out)
        if out.dtype.kind in "fiub":
            return np.asarray(out, dtype=np.float64)
        try:
            if out.dtype.kind != "O":
                raise TypeError(out.dtype)
            return out.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{type(self.transformer_).__name__} returned values that are not "
                f"numbers (dtype {out.dtype}); Stepwise's output must be numeric: "
                "end the transformer with an encoder, e.g. make_pipeline("
                "SimpleImputer(strategy='most_frequent'), OneHotEncoder())."
            ) from None

    def _check_columns(self, out):
        """Refuse a transformer's output of no columns (sequences of 0
        features, which no estimator can read)."""
        if np.ndim(out) == 2 and np.shape(out)[1] == 0:
            raise ValueError(
                f"{type(self.transformer_).__name__} returned no columns (output "
                f"shape {np.shape(out)}); Stepwise needs at least one output "
                "feature per step.")

    def get_metadata_routing(self):
        """Metadata routing: ``fit`` (and ``fit_transform``) pass what the
        transformer's ``fit`` requests.

        Returns
        -------
        routing : MetadataRouter
        """
        mapping = (MethodMapping().add(caller="fit", callee="fit")
                   .add(caller="fit_transform", callee="fit"))
        return MetadataRouter(owner=type(self).__name__).add(
            transformer=self.transformer, method_mapping=mapping)

    def transform(self, X):
        """Transform every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the transformer's number of output features per step.
        """
        check_is_fitted(self)
        seqs = self._validated(X, self.transformer_, reset=False)
        with _naming_symbols(self.transformer_, seqs,
                             getattr(self, "_text_features", None)):
            out = self.transformer_.transform(
                self._steps_table(seqs.data, self.transformer_))
        out = self._as_numbers(out)
        if out.ndim != 2 or out.shape[0] != seqs.data.shape[0]:
            raise ValueError(
                f"{type(self.transformer_).__name__} returned shape {out.shape} for "
                f"{seqs.data.shape[0]} steps; Stepwise needs one output row per step."
            )
        self._check_columns(out)
        _check_output_values(type(self.transformer_).__name__, seqs, out)
        if seqs.form == "rows":
            return out
        return seqs.unpack(out)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features, as the transformer gives them.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; default ``feature_names_in_``, else
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        return self.transformer_.get_feature_names_out(names)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = _allows_nan(self.transformer)
        return tags


def _allows_nan(transformer):
    """The transformer's ``allow_nan`` input tag (False for no estimator); a
    Pipeline's is that of its first step, which reads the input, and a
    ColumnTransformer's is that of every transformer it has, "passthrough"
    passing missing values on (scikit-learn leaves both tags False)."""
    try:
        if isinstance(transformer, ColumnTransformer):
            return all(_allows_nan(inner) for inner in _column_transformers(
                transformer))
        if isinstance(transformer, Pipeline):
            return _allows_nan(_steps(transformer)[0])
        return bool(get_tags(transformer).input_tags.allow_nan)
    except (AttributeError, TypeError, ValueError, IndexError):
        return False


def _column_transformers(column_transformer):
    """The transformers of a ColumnTransformer (its remainder among them)
    that read columns, "passthrough" as StandardScaler, which keeps missing
    values."""
    inner = [step for _, step, _ in column_transformer.transformers]
    inner.append(column_transformer.remainder)
    return [StandardScaler() if isinstance(step, str) and step == "passthrough"
            else step for step in inner
            if not (isinstance(step, str) and step == "drop")]


def _categorical_columns(X, names):
    """The names of the columns of category dtype in X's first DataFrame (X
    itself, or the first of a list; read once, not in every sequence), when
    X has feature ``names``."""
    if names is None:
        return []
    first = X if hasattr(X, "columns") else next(
        (x for x in X if hasattr(x, "columns")), None)
    return [] if first is None else [
        name for name, dtype in zip(first.columns, first.dtypes, strict=True)
        if getattr(dtype, "name", None) == "category"]


def _check_output_values(name, seqs, out):
    """The transformer's output must be finite, but for the NaN it keeps at
    steps that had a missing value (a StandardScaler's, for a later imputer);
    and in a 3-D output no sequence may end with an all-NaN step, which would
    read as padding."""
    kept = missing_values(seqs.data).any(axis=1)
    values = out
    if kept.any():
        values = out.copy()
        values[kept] = np.where(np.isnan(out[kept]), 0.0, out[kept])
    _refuse_not_finite(seqs, values, lambda seq, step, _: (
        f"{name} produced NaN or inf at sequence {seq}, step {step}."))
    ends = np.isnan(out[seqs.last_steps]).all(axis=1)
    if seqs.form == "padded" and ends.any():
        seq = int(np.argmax(ends))
        raise ValueError(
            f"{name} left every feature NaN at the last step of sequence {seq}, "
            "which a 3-D array would read as padding: impute the missing values "
            "first, or pass the sequences as a list."
        )


@contextmanager
def _naming_symbols(transformer, seqs, fitted_text=None):
    """A transformer's failure on steps of symbols said as such, its own
    message following: naming the first feature that mixes strings with
    numbers (which encoders refuse), within X or against the strings it held
    at fit (``fitted_text``, one bool per feature); else, on an object array,
    when the transformer's tags say it reads neither strings nor categories
    (StandardScaler, say), advising an encoder."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        error = ValueError if isinstance(exc, ValueError) else TypeError
        own = str(exc).rstrip(".")
        mixed = _mixed_feature(seqs, fitted_text)
        if mixed:
            raise error(f"{type(transformer).__name__} failed on steps of "
                        f"symbols: {own}. {mixed}") from exc
        if seqs.data.dtype != object or _reads_symbols(transformer, leaf=True):
            raise
        if _reads_symbols(transformer):  # an encoder inside: no advice
            raise error(f"{type(transformer).__name__} failed on steps of "
                        f"symbols: {own}.") from exc
        raise error(
            f"{type(transformer).__name__} failed on steps of symbols (non-numeric "
            f"features, which Stepwise passes as an object array): "
            f"{own}. Encode "
            "symbols with a transformer that reads them, e.g. "
            "Stepwise(OneHotEncoder())."
        ) from exc


def _text_values(data):
    """Where ``data`` (packed steps) holds a string: ``isinstance`` mapped over
    the values in C, with no Python code run per value."""
    if data.dtype != object:
        return np.zeros(data.shape, bool)
    return np.fromiter(map(isinstance, data.flat, repeat(str)), bool,
                       count=data.size).reshape(data.shape)


def _text_features(data):
    """Which features of ``data`` (packed steps) hold a string: as
    ``_text_values(data).any(axis=0)``, each feature read in C up to its
    first string only (the first value, for a feature of symbols)."""
    if data.dtype != object:
        return np.zeros(data.shape[1], bool)
    return np.array([any(map(isinstance, data[:, j], repeat(str)))
                     for j in range(data.shape[1])], dtype=bool)


def _mixed_feature(seqs, fitted_text=None):
    """Where the first feature holding both strings (now, or at fit:
    ``fitted_text``) and numbers has one of each, said in a sentence; "" if
    no feature does."""
    data = seqs.data
    text = _text_values(data)
    other = ~text & ~missing_values(data)
    had_text = text.any(axis=0)
    if fitted_text is not None:
        had_text = had_text | fitted_text
    mixed = np.flatnonzero(had_text & other.any(axis=0))
    if not mixed.size:
        return ""
    col = mixed[0]
    row = np.argmax(other[:, col])
    s, t = seqs.locate(row)
    value = data[row, col]
    if isinstance(value, np.generic):  # from an array of numbers
        value = value.item()
    if text[:, col].any():
        row_text = np.argmax(text[:, col])
        s2, t2 = seqs.locate(row_text)
        strings = (f"where sequence {s2}, step {t2} holds "
                   f"{quote(data[row_text, col])}")
    else:
        strings = "where it held strings at fit"
    return (f"Feature {col} mixes strings and other values: sequence {s}, step "
            f"{t} holds {quote(value)} {strings}; make every value of a "
            "feature a string (e.g. x.astype(str)) or a number.")


def _reads_symbols(transformer, leaf=False):
    """Whether the transformer, or unless ``leaf`` one inside it (a step of a
    Pipeline, a transformer of a ColumnTransformer or FeatureUnion), reads
    strings or categories by its tags: its failure on symbols is then not a
    want of an encoder."""
    if not leaf and isinstance(transformer,
                               (Pipeline, ColumnTransformer, FeatureUnion)):
        inner = (transformer.steps if isinstance(transformer, Pipeline) else
                 transformer.transformer_list if isinstance(
                     transformer, FeatureUnion) else
                 [(None, t) for _, t, *_ in transformer.transformers]
                 + [(None, transformer.remainder)])
        try:
            return any(_reads_symbols(step) for _, step in inner)
        except (TypeError, ValueError):  # malformed steps
            return False
    try:
        tags = get_tags(transformer).input_tags
    except (AttributeError, TypeError, ValueError):
        return False
    return tags.string or tags.categorical


def _step_fit_params(stepwise, seqs, fit_params):
    """The transformer's fit parameters: the routed ones under metadata
    routing, and sequence weights repeated over the sequences' steps."""
    if get_config()["enable_metadata_routing"]:
        fit_params = process_routing(stepwise, "fit", **fit_params).transformer.fit
    other = sorted(set(fit_params) - {"sample_weight"})
    if other:
        raise TypeError(
            f"Stepwise cannot pass {other} to its transformer: it passes only "
            "sample_weight, one weight per sequence, repeated over its steps."
        )
    if fit_params.get("sample_weight") is None:
        return {}
    weight = check_sample_weight(fit_params["sample_weight"], seqs.n_sequences)
    return {"sample_weight": np.repeat(weight, seqs.lengths)}


def _steps(estimator):
    """The estimators of a (possibly nested) Pipeline, in order, without
    ``"passthrough"`` / None steps; a single estimator for anything else."""
    if not isinstance(estimator, Pipeline):
        return [estimator]
    return [inner for _, step in estimator.steps
            if step is not None and not (isinstance(step, str)
                                         and step == "passthrough")
            for inner in _steps(step)]


# Methods whose output is per sequence unless the model labels every step.
_PER_SEQUENCE_METHODS = frozenset({"predict", "predict_proba", "predict_log_proba",
                                   "decision_function", "score"})


def on_raw_steps(estimator, method, X, *args, **kwargs):
    """Call a method of a pipeline's last step on X, with outputs on X's steps.

    ``pipe.predict_state_proba(X)`` does not exist on a scikit-learn Pipeline,
    which forwards only ``predict``-like methods. This transforms X by every
    step but the last (as ``pipe[:-1].transform(X)`` would), calls
    ``method`` of the last step on the result, and maps the per-step output
    back through every :class:`WindowMean` of the pipeline
    (:meth:`WindowMean.to_raw_steps`), so that step ``t`` of the output belongs
    to raw step ``t`` of X.

    Parameters
    ----------
    estimator : Pipeline or estimator
        A fitted pipeline (nested pipelines are followed); any other fitted
        estimator just has ``method`` called.
    method : str
        Name of a method of the last step returning one value per step, e.g.
        ``"predict_state_proba"``, ``"decode"``, ``"transition_proba"``; or,
        when the pipeline has no WindowMean, any method.
    X : array-like or list of sequences
        Raw sequences, as the pipeline takes them.
    *args, **kwargs
        Passed to ``method`` as they are (e.g. ``y`` for ``decode(X, y)``: with
        a WindowMean, step-level targets must then be on the window axis).

    Returns
    -------
    result : list of arrays, or array
        The method's output, one value per raw step of X, in the method's own
        form (list or padded array).

    Raises
    ------
    ValueError
        If a step other than WindowMean changes the sequences' lengths, or the
        method's output is not per step (e.g. ``predict_proba`` of a model
        fitted on sequence-level labels) while the pipeline has a WindowMean.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from skseq import IOHMMClassifier
    >>> from skseq.preprocessing import WindowMean, on_raw_steps
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(9, 1)) + (s % 2) for s in range(10)]
    >>> y = [s % 2 for s in range(10)]
    >>> pipe = make_pipeline(WindowMean(window=3), IOHMMClassifier(
    ...     n_states=2, n_init=1, random_state=0)).fit(X, y)
    >>> pipe[-1].predict_state_proba(pipe[:-1].transform(X))[0].shape  # windows
    (3, 2)
    >>> on_raw_steps(pipe, "predict_state_proba", X)[0].shape  # raw steps
    (9, 2)
    """
    *transformers, last = _steps(estimator)
    Xt, windows = _transform_keeping_windows(transformers, X)
    _check_per_step_output(last, method, windows)
    result = getattr(last, method)(Xt, *args, **kwargs)
    return _back_through_windows(result, windows)


def _back_through_windows(result, windows):
    """Per-step values on the raw steps, through every WindowMean met, from
    the last to the first."""
    for step, X_in in reversed(windows):
        result = step.to_raw_steps(result, X_in)
    return result


def _check_per_step_output(last, method, windows):
    """A method whose output is per sequence cannot be mapped back through the
    pipeline's WindowMeans (``windows``): refused, saying what to call."""
    if windows and method in _PER_SEQUENCE_METHODS and not getattr(
            last, "step_level_", False):
        raise ValueError(
            f"{type(last).__name__}.{method} gives one value per sequence (it was "
            "not fitted on step-level labels), so there are no steps to map back "
            f"through WindowMean: call {method} on the pipeline itself instead. "
            "on_raw_steps is for per-step outputs such as predict_state_proba."
        )


def _transform_keeping_windows(transformers, X):
    """X transformed by every step of ``transformers``, and each WindowMean
    met on the way with its input (to map outputs back through it); any other
    step that changes the sequences' lengths is refused."""
    Xt, windows = X, []
    lengths = check_sequences(X, reading=_ANY_STEPS).lengths
    for step in transformers:
        X_in, Xt = Xt, step.transform(Xt)
        name = type(step).__name__
        new = check_sequences(Xt, name=f"output of {name}",
                              reading=_ANY_STEPS).lengths
        if isinstance(step, WindowMean):
            windows.append((step, X_in))
        elif not np.array_equal(new, lengths):
            raise ValueError(
                f"{name} changes the lengths of the sequences (only WindowMean's "
                "can be mapped back onto the raw steps)."
            )
        lengths = new
    return Xt, windows
