"""Read the UCR/UEA ``.ts`` files shipped inside sktime's wheel.

No download at run time: the files are found in an installed sktime (located
through ``importlib.resources``), in an unpacked directory, or inside the wheel
itself (``pip download --no-deps sktime`` puts it in pip's cache or a folder
you choose). Parsing is :func:`skseq.datasets.load_ts`'s; a missing value
inside a series (none in the panel's sets) carries the last observed one forward.
"""

import io
import zipfile
from importlib.resources import files
from pathlib import Path

from skseq.datasets import load_ts

_MEMBER = "sktime/datasets/data/{name}/{name}_{split}.ts"


def _load_split(name, split, source):
    member = _MEMBER.format(name=name, split=split)
    if source is None:
        path = files("sktime").joinpath(*member.split("/")[1:])
        with path.open(encoding="utf-8") as f:
            return load_ts(f, missing="ffill")
    source = Path(source)
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel, wheel.open(member) as f:
            return load_ts(io.TextIOWrapper(f, encoding="utf-8"), missing="ffill")
    return load_ts(source / name / f"{name}_{split}.ts", missing="ffill")


def load(name, source=None):
    """Official train/test split: ``X_train, y_train, X_test, y_test``.

    ``source``: None (installed sktime), a sktime wheel, or a directory with
    ``<name>/<name>_TRAIN.ts``.
    """
    X_train, y_train = _load_split(name, "TRAIN", source)
    X_test, y_test = _load_split(name, "TEST", source)
    return X_train, y_train, X_test, y_test
