"""Reader for the ``.ts`` files of the UCR/UEA time series archive.

The format (Bagnall et al., the archive's own description): ``#`` (or ``%``)
comment lines, then a header of ``@key value`` lines, then ``@data`` and one
case per line. A case holds its dimensions (channels) separated by ``:``, the
values of a dimension separated by ``,``, ``?`` for a missing value, and (if the
header declares labels) the class label or regression target last. Keys are
case-insensitive.
"""

import os
from dataclasses import dataclass, field
from importlib.resources import files

import numpy as np

from .._data import quote

__all__ = ["load_italy_power_demand", "load_ts"]

_BOOLEAN_KEYS = {"timestamps", "missing", "univariate", "equallength", "targetlabel"}
_INTEGER_KEYS = {"dimensions", "serieslength"}
# A file may name its problem twice (sktime's own test file does); the
# structural keys must not contradict themselves.
_REPEATABLE_KEYS = {"problemname"}


@dataclass
class _Header:
    """The declarations of a ``.ts`` header, with the line of each."""

    source: str
    values: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)
    classes: list = None

    def error(self, line, message):
        return ValueError(f"{self.source}, line {line}: {message}")

    def get(self, key, default=None):
        return self.values.get(key, default)

    def declare(self, spelled, tokens, line):
        """Record ``@spelled tokens`` (the key as written, any case)."""
        key = spelled.lower()
        if key in self.lines and key not in _REPEATABLE_KEYS:
            raise self.error(line, f"@{spelled} is declared twice (first on line "
                                   f"{self.lines[key]}).")
        self.lines[key] = line
        if key == "classlabel":
            self.values[key] = self._boolean(spelled, tokens[:1], line)
            labels = tokens[1:]
            if self.values[key] and not labels:
                raise self.error(line, "@classLabel true must list the class labels, "
                                       "e.g. '@classLabel true 1 2'.")
            if not self.values[key] and labels:
                raise self.error(line, f"@classLabel false is followed by {labels}; "
                                       "labels are only listed after 'true'.")
            if len(set(labels)) != len(labels):
                raise self.error(line, f"@classLabel lists a label twice: {labels}.")
            self.classes = labels
        elif key in _BOOLEAN_KEYS:
            self.values[key] = self._boolean(spelled, tokens, line)
        elif key in _INTEGER_KEYS:
            if len(tokens) != 1 or not tokens[0].isdigit() or int(tokens[0]) < 1:
                raise self.error(line, f"@{spelled} needs one positive integer, got "
                                       f"{' '.join(tokens)!r}.")
            self.values[key] = int(tokens[0])
        else:  # @problemName and keys this reader does not use
            self.values[key] = " ".join(tokens)

    def _boolean(self, key, tokens, line):
        if len(tokens) != 1 or tokens[0].lower() not in ("true", "false"):
            raise self.error(line, f"@{key} needs the value true or false, got "
                                   f"{' '.join(tokens)!r}.")
        return tokens[0].lower() == "true"

    def check(self, data_line):
        """Checks across keys, once the header is complete."""
        if self.get("timestamps"):
            raise self.error(self.lines["timestamps"],
                             "@timeStamps true: time-stamped series are not "
                             "supported (skseq's sequences have no time axis of "
                             "their own).")
        if self.get("classlabel") and self.get("targetlabel"):
            raise self.error(self.lines["targetlabel"],
                             "@targetLabel true and @classLabel true: a file has "
                             "class labels or regression targets, not both.")
        if "classlabel" not in self.values and "targetlabel" not in self.values:
            raise self.error(data_line,
                             "the header declares neither @classLabel nor "
                             "@targetLabel, so whether each case ends with a label "
                             "is unknown (write '@classLabel false' for none).")
        if self.get("univariate") and self.get("dimensions", 1) != 1:
            raise self.error(self.lines["dimensions"],
                             f"@dimensions {self.values['dimensions']} contradicts "
                             f"@univariate true (line {self.lines['univariate']}).")

    @property
    def labelled(self):
        return bool(self.get("classlabel") or self.get("targetlabel"))

    def n_dimensions(self):
        """Declared number of dimensions, or None when the data decide."""
        if self.get("univariate"):
            return 1
        return self.get("dimensions")


def _read_text(path):
    """Text and name of a path or an open text file."""
    if hasattr(path, "read"):
        name = str(getattr(path, "name", "<stream>"))
        try:
            text = path.read()
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name}: not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start} of a chunk); open it in binary mode for "
                             "the line, or re-encode it as UTF-8.") from exc
        if isinstance(text, bytes):
            text = _decode(text, name)
        return text.removeprefix("\ufeff"), name
    name = os.fspath(path)
    with open(name, "rb") as f:
        return _decode(f.read(), str(name)), str(name)


def _decode(data, name):
    """UTF-8 bytes as text; a byte that is not UTF-8 is named with its line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"{name}, line {line}: not UTF-8 text ({exc.reason}: byte "
            f"{data[exc.start:exc.start + 1]!r}); re-encode the file as UTF-8."
        ) from exc


def _parse_values(text, header, line, dim):
    """One dimension's values as float64, '?' as NaN."""
    tokens = [t.strip() for t in text.split(",")]
    try:
        values = np.array(["nan" if t == "?" else t for t in tokens], dtype=np.float64)
    except ValueError:
        values = None
    # only '?' marks a missing value: a literal NaN or inf is refused by name
    if values is None or np.count_nonzero(np.isnan(values)) > tokens.count("?") \
            or np.isinf(values).any():
        for i, token in enumerate(tokens):
            try:
                value = float("nan" if token == "?" else token)
            except ValueError:
                value = None
            if value is None or (not np.isfinite(value) and token != "?"):
                what = "empty" if not token else f"{quote(token)}, not a finite number"
                if value is not None and np.isnan(value):
                    what += " ('?' marks a missing value)"
                raise header.error(line, f"dimension {dim}, value {i} is {what}.")
    return values


def _fill_forward(x):
    """Missing values take the last observed value of their dimension (the first
    observed one before it); in place."""
    for k in range(x.shape[1]):
        col = x[:, k]
        seen = np.flatnonzero(~np.isnan(col))
        # For each step, the last observed step at or before it (else the first).
        last = np.maximum.accumulate(np.where(np.isnan(col), -1, np.arange(col.size)))
        col[:] = col[np.where(last < 0, seen[0], last)]
    return x


def _parse_case(fields, header, line, missing):
    """One data line's dimensions as a (length, n_dimensions) array."""
    columns = []
    for dim, text in enumerate(fields):
        values = _parse_values(text, header, line, dim)
        observed = np.flatnonzero(~np.isnan(values))
        if observed.size == 0:
            raise header.error(line, f"dimension {dim} has no values (all missing).")
        columns.append(values[: observed[-1] + 1])  # trailing '?' are padding
    lengths = [c.size for c in columns]
    length = max(lengths)
    x = np.full((length, len(columns)), np.nan)
    for k, c in enumerate(columns):
        x[: c.size, k] = c
    if missing == "raise":
        if min(lengths) != length:
            short = int(np.argmin(lengths))
            raise header.error(line, (
                f"dimension {short} has {lengths[short]} values but dimension "
                f"{int(np.argmax(lengths))} has {length} (after dropping trailing "
                "'?' padding); pass missing='ffill' to fill the shorter ones."))
        gaps = np.argwhere(np.isnan(x))
        if gaps.size:
            step, dim = gaps[0]
            raise header.error(line, (
                f"dimension {dim}, value {step} is missing ('?') inside the series; "
                "skseq's sequences hold no missing values: pass missing='ffill' to "
                "carry the last observed value forward."))
    elif np.isnan(x).any():
        _fill_forward(x)
    return x


def _parse_label(text, header, line):
    label = text.strip()
    if header.get("targetlabel"):
        try:
            target = float(label)
        except ValueError:
            target = np.nan
        if not np.isfinite(target):
            raise header.error(line, f"the target {quote(label)} is not a finite "
                                     "number (@targetLabel true).")
        return target
    if label not in header.classes:
        raise header.error(line, (
            f"class label {quote(label)} is not among those declared by @classLabel "
            f"(line {header.lines['classlabel']}): {header.classes}."))
    return label


def _check_lengths(X, data_lines, header):
    """Lengths against ``@equalLength true`` and ``@seriesLength`` (which an
    ``@equalLength false`` file may give as a bound: not checked then)."""
    lengths = np.array([x.shape[0] for x in X])
    declared = "serieslength" in header.values
    equal = header.get("equallength")
    if not (equal or (declared and equal is None)):
        return
    expected = header.get("serieslength", lengths[0])
    bad = np.flatnonzero(lengths != expected)
    if bad.size:
        s = bad[0]
        source = "@seriesLength" if declared else "the first case"
        if equal:
            source = f"@equalLength true and {source}"
        raise header.error(data_lines[s], (
            f"the series has {lengths[s]} values but {source} "
            f"{'say' if equal else 'says'} {expected}."))


def load_ts(path, *, missing="raise", numeric_labels=False):
    """Read a ``.ts`` file of the UCR/UEA time series archive.

    Univariate and multivariate files, equal and unequal lengths, with class
    labels (``@classLabel true ...``), regression targets (``@targetLabel
    true``) or neither (``@classLabel false``).

    Parameters
    ----------
    path : str, path-like or file object
        The ``.ts`` file, or an open text (or binary, UTF-8) file object.
    missing : {"raise", "ffill"}, default="raise"
        What to do with a missing value (``?``) inside a series. Trailing ``?``
        are always padding of unequal lengths and are dropped. ``"raise"``: a
        ValueError naming the line, dimension and position (skseq's sequences
        hold no missing values), and likewise when the dimensions of one case
        end at different lengths. ``"ffill"``: the value takes the last
        observed value of its dimension (the first observed one if none came
        before); a dimension that ends early is filled the same way up to the
        case's longest dimension.
    numeric_labels : bool, default=False
        Class labels as numbers: int64 when every label is an integer, else
        float64 (a ValueError names a label that is not a number). The default
        keeps them as the strings of the file, which sort as text
        (``"10" < "2"``): set True for archives whose classes are numbered, so
        that ``classes_`` is in numeric order.

    Returns
    -------
    X : list of ndarray of shape (len_i, n_dimensions)
        One float64 array per case, its dimensions (channels) as features: the
        list form of :ref:`the data model <data_model>`.
    y : ndarray of shape (n_cases,) or None
        Class labels as strings (as written in the file; numbers with
        ``numeric_labels=True``), regression targets as float64, or None for
        ``@classLabel false``.

    Raises
    ------
    ValueError
        For a malformed header or data line, naming the file and the line:
        a missing ``@data``, a boolean key without ``true``/``false``,
        ``@timeStamps true`` (not supported), no label declaration, a case with
        the wrong number of dimensions, a value that is not a number, a class
        label not declared in the header, lengths that contradict
        ``@equalLength true`` or ``@seriesLength``, and missing values as
        described under ``missing``. Header keys this reader does not use are
        ignored.

    See Also
    --------
    load_italy_power_demand : A univariate data set read with this function.
    skseq.utils.from_channels_first : For data already loaded as
        ``(n_cases, n_channels, length)`` arrays.

    Examples
    --------
    >>> import io
    >>> from skseq.datasets import load_ts
    >>> text = '''@problemName Tiny
    ... @univariate false
    ... @dimensions 2
    ... @classLabel true up down
    ... @data
    ... 1,2,3:0,0,1:up
    ... 3,1:1,0:down
    ... '''
    >>> X, y = load_ts(io.StringIO(text))
    >>> [x.shape for x in X], y.tolist()
    ([(3, 2), (2, 2)], ['up', 'down'])
    >>> X[1]
    array([[3., 1.],
           [1., 0.]])
    """
    if missing not in ("raise", "ffill"):
        raise ValueError(f"missing must be 'raise' or 'ffill', got {missing!r}.")
    if numeric_labels not in (True, False):
        raise ValueError(f"numeric_labels must be True or False, got "
                         f"{numeric_labels!r}.")
    text, source = _read_text(path)
    header = _Header(source)
    X, y, data_lines = _read_cases(text, header, missing, source)
    if not X:
        raise ValueError(f"{source}: no cases after @data.")
    _check_lengths(X, data_lines, header)
    if not header.labelled:
        return X, None
    if header.get("targetlabel"):
        return X, np.array(y, dtype=np.float64)
    return X, _numeric(y, data_lines, source) if numeric_labels else np.array(y, str)


def _read_cases(text, header, missing, source):
    """The cases, their labels and their line numbers in the text of a ``.ts``
    file; the header lines are declared to ``header`` on the way."""
    X, y, data_lines = [], [], []
    in_data = False
    n_dims = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "%")):
            continue
        if line.startswith("@"):
            if _header_line(line, header, number, in_data):
                in_data = True
                n_dims = header.n_dimensions()
            continue
        if not in_data:
            raise header.error(number, f"data before @data: {quote(line)}.")
        fields = line.split(":")
        if header.labelled:
            if len(fields) < 2:
                raise header.error(number, "no ':' before the label; each case "
                                           "ends with ':' and its label.")
            y.append(_parse_label(fields.pop(), header, number))
        if n_dims is None:
            n_dims = len(fields)
        elif len(fields) != n_dims:
            if header.n_dimensions() is not None:
                declared = ("@univariate true" if header.get("univariate")
                            else f"@dimensions {n_dims}")
            else:
                declared = f"the first case (line {data_lines[0]}) has {n_dims}"
            raise header.error(number, f"{len(fields)} dimensions, but {declared}.")
        X.append(_parse_case(fields, header, number, missing))
        data_lines.append(number)
    if not in_data:
        raise ValueError(f"{source}: no @data line; is this a .ts file?")
    return X, y, data_lines


def _header_line(line, header, number, in_data):
    """Declare a header line to ``header``; True if it is ``@data``."""
    spelled, *tokens = line[1:].split()
    if in_data:
        raise header.error(number, f"header line @{spelled} after @data.")
    if spelled.lower() != "data":
        header.declare(spelled, tokens, number)
        return False
    if tokens:
        raise header.error(number, "@data takes no value.")
    header.check(number)
    return True


def _numeric(labels, lines, source):
    """Class labels as int64 if all are integers, else float64."""
    for kind in (int, float):
        try:
            return np.array([kind(label) for label in labels],
                            dtype=np.int64 if kind is int else np.float64)
        except (ValueError, OverflowError):
            continue
    for label, line in zip(labels, lines, strict=True):
        try:
            float(label)
        except ValueError:
            raise ValueError(
                f"{source}, line {line}: numeric_labels=True, but the class label "
                f"{quote(label)} is not a number."
            ) from None


def load_italy_power_demand(split="train"):
    """The ItalyPowerDemand data set of the UCR archive (univariate, 2 classes).

    Twelve monthly series of Italy's electrical power demand (1997), cut into
    days of 24 hourly values; the task is to tell days from October to March
    (class ``"1"``) from days from April to September (class ``"2"``). Each
    day is z-normalised. The official split has 67 training and 1,029 test
    days, all 24 steps long.

    Source: the UCR time series classification archive (Dau et al. 2019); the
    data were first used by Keogh et al. (2006). The files shipped here are
    those distributed with sktime (BSD-3-Clause); the archive asks users to cite
    it.

    Parameters
    ----------
    split : {"train", "test"}, default="train"
        The official training or test split.

    Returns
    -------
    X : list of ndarray of shape (24, 1)
        One univariate sequence per day.
    y : ndarray of shape (n_days,) of str
        ``"1"`` (October-March) or ``"2"`` (April-September).

    References
    ----------
    H. A. Dau, A. Bagnall, K. Kamgar, C.-C. M. Yeh, Y. Zhu, S. Gharghabi,
    C. A. Ratanamahatana and E. Keogh, "The UCR time series archive",
    IEEE/CAA Journal of Automatica Sinica 6(6), 2019.

    E. Keogh, L. Wei, X. Xi, S. Lonardi, J. Shieh and S. Sirowy, "Intelligent
    Icons: Integrating Lite-Weight Data Mining and Visualization into GUI
    Operating Systems", ICDM 2006.

    Examples
    --------
    >>> from skseq.datasets import load_italy_power_demand
    >>> X, y = load_italy_power_demand("train")
    >>> len(X), X[0].shape, sorted(set(y.tolist()))
    (67, (24, 1), ['1', '2'])
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}.")
    path = files("skseq.datasets") / "data" / f"ItalyPowerDemand_{split.upper()}.ts"
    with path.open(encoding="utf-8-sig") as f:
        return load_ts(f)
