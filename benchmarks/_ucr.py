"""Read the UCR/UEA ``.ts`` files shipped inside sktime's wheel.

No download at run time: the files are found in an installed sktime (located
through ``importlib.resources``), in an unpacked directory, or inside the wheel
itself (``pip download --no-deps sktime`` puts it in pip's cache or a folder
you choose).
"""

import io
import zipfile
from importlib.resources import files
from pathlib import Path

import numpy as np

_MEMBER = "sktime/datasets/data/{name}/{name}_{split}.ts"


def parse_ts(text):
    """Parse a ``.ts`` file: returns (list of (len_i, n_dims) arrays, labels).

    Each data line holds the dimensions separated by ``:`` and the class label
    last; values within a dimension are comma-separated, ``?`` is missing.
    Trailing missing values (padding of unequal lengths) are cut off.
    """
    X, y, in_data = [], [], False
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not in_data:
            in_data = line.lower() == "@data"
            continue
        *dims, label = line.split(":")
        cols = [np.array([np.nan if v == "?" else float(v) for v in d.split(",")])
                for d in dims]
        length = max(len(c) for c in cols)
        x = np.full((length, len(cols)), np.nan)
        for k, c in enumerate(cols):
            x[: len(c), k] = c
        keep = np.flatnonzero(~np.isnan(x).all(axis=1))
        x = x[: keep[-1] + 1]
        if np.isnan(x).any():  # interior gaps: carry the last value forward
            for k in range(x.shape[1]):
                col = x[:, k]
                idx = np.where(np.isnan(col), 0, np.arange(len(col)))
                np.maximum.accumulate(idx, out=idx)
                x[:, k] = np.nan_to_num(col[idx])
        X.append(x)
        y.append(label.strip())
    return X, np.array(y)


def _read(name, split, source):
    member = _MEMBER.format(name=name, split=split)
    if source is None:
        path = files("sktime").joinpath(*member.split("/")[1:])
        return path.read_text(encoding="utf-8")
    source = Path(source)
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            return io.TextIOWrapper(wheel.open(member), encoding="utf-8").read()
    return (source / name / f"{name}_{split}.ts").read_text(encoding="utf-8")


def load(name, source=None):
    """Official train/test split: ``X_train, y_train, X_test, y_test``.

    ``source``: None (installed sktime), a sktime wheel, or a directory with
    ``<name>/<name>_TRAIN.ts``.
    """
    X_train, y_train = parse_ts(_read(name, "TRAIN", source))
    X_test, y_test = parse_ts(_read(name, "TEST", source))
    return X_train, y_train, X_test, y_test
