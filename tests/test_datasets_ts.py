"""The ``.ts`` reader against hand-written files, and the shipped ItalyPowerDemand."""

import io
import re
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq.datasets import load_italy_power_demand, load_ts

nan = np.nan


def _write(tmp_path, text, name="case.ts"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


UNIVARIATE = """\
# a comment
@problemName Uni
@timeStamps false
@univariate true
@equalLength true
@seriesLength 3
@classLabel true a b

@data
1.5,2,-3e-1:a
0,0,7:b
"""

MULTIVARIATE_UNEQUAL = """\
@problemName Multi
@univariate false
@dimensions 2
@equalLength false
@classLabel true 1 2 3
@data
1,2,3,4:5,6,7,8:2
9,?,?,?:10,?,?,?:3
1,2,?:3,4,?:1
"""


def test_univariate_equal_length_with_class_labels(tmp_path):
    X, y = load_ts(_write(tmp_path, UNIVARIATE))
    assert len(X) == 2
    assert_array_equal(X[0], [[1.5], [2.0], [-0.3]])
    assert_array_equal(X[1], [[0.0], [0.0], [7.0]])
    assert X[0].dtype == np.float64
    assert y.tolist() == ["a", "b"] and y.dtype.kind == "U"


def test_multivariate_unequal_lengths_drop_trailing_padding(tmp_path):
    X, y = load_ts(str(_write(tmp_path, MULTIVARIATE_UNEQUAL)))
    assert [x.shape for x in X] == [(4, 2), (1, 2), (2, 2)]
    assert_array_equal(X[0], [[1, 5], [2, 6], [3, 7], [4, 8]])
    assert_array_equal(X[1], [[9, 10]])
    assert_array_equal(X[2], [[1, 3], [2, 4]])
    assert y.tolist() == ["2", "3", "1"]


def test_dimensions_inferred_when_not_declared(tmp_path):
    text = "@classLabel true x\n@data\n1,2:3,4:5,6:x\n"
    X, _ = load_ts(_write(tmp_path, text))
    assert_array_equal(X[0], [[1, 3, 5], [2, 4, 6]])


def test_regression_targets_are_floats(tmp_path):
    text = ("@problemName R\n@univariate true\n@targetlabel true\n@data\n"
            "1,2:0.25\n3:-4e2\n")
    X, y = load_ts(_write(tmp_path, text))
    assert y.dtype == np.float64
    assert_array_equal(y, [0.25, -400.0])
    assert [x.ravel().tolist() for x in X] == [[1.0, 2.0], [3.0]]


def test_class_label_false_means_no_labels(tmp_path):
    text = "@univariate false\n@classLabel false\n@data\n1,2:3,4\n5:6\n"
    X, y = load_ts(_write(tmp_path, text))
    assert y is None
    assert_array_equal(X[1], [[5.0, 6.0]])


def test_file_objects_text_and_binary_and_a_byte_order_mark():
    X, y = load_ts(io.StringIO(UNIVARIATE))
    assert y.tolist() == ["a", "b"]
    X_b, y_b = load_ts(io.BytesIO(b"\xef\xbb\xbf" + UNIVARIATE.encode()))
    assert y_b.tolist() == ["a", "b"]
    for a, b in zip(X, X_b, strict=True):
        assert_array_equal(a, b)


def test_keys_are_case_insensitive_and_unknown_keys_ignored(tmp_path):
    text = ("@PROBLEMNAME p\n@Univariate TRUE\n@someFutureKey 3 4\n"
            "@CLASSLABEL True A\n@DATA\n1,2:A\n")
    X, y = load_ts(_write(tmp_path, text))
    assert y.tolist() == ["A"] and X[0].shape == (2, 1)


INTERIOR = "@classLabel false\n@data\n?,1,?,?,4,?\n"


def test_interior_missing_value_raises_naming_line_and_position(tmp_path):
    path = _write(tmp_path, INTERIOR)
    with pytest.raises(ValueError, match=re.escape(
            f"{path}, line 3: dimension 0, value 0 is missing ('?') inside")):
        load_ts(path)


def test_interior_missing_values_filled_forward(tmp_path):
    X, _ = load_ts(_write(tmp_path, INTERIOR), missing="ffill")
    # The leading '?' takes the first observed value; the trailing one is padding.
    assert_array_equal(X[0].ravel(), [1, 1, 1, 1, 4])


def test_dimensions_of_different_lengths(tmp_path):
    path = _write(tmp_path, "@classLabel false\n@data\n1,2,3:4,?,?\n")
    with pytest.raises(ValueError, match="line 3: dimension 1 has 1 values but "
                                         "dimension 0 has 3"):
        load_ts(path)
    X, _ = load_ts(path, missing="ffill")
    assert_array_equal(X[0], [[1, 4], [2, 4], [3, 4]])


def test_missing_parameter_is_checked(tmp_path):
    with pytest.raises(ValueError, match="missing must be 'raise' or 'ffill'"):
        load_ts(_write(tmp_path, UNIVARIATE), missing="zero")


HEADER = "@problemName P\n@univariate true\n@classLabel true a b\n@data\n"


@pytest.mark.parametrize("text, line, match", [
    ("@classLabel true a\n", None, "no @data line"),
    (HEADER, None, "no cases after @data"),
    ("@univariate maybe\n@classLabel false\n@data\n1\n", 1,
     "@univariate needs the value true or false, got 'maybe'"),
    ("@timeStamps true\n@classLabel false\n@data\n(0,1)\n", 1,
     "@timeStamps true: time-stamped series are not supported"),
    ("@univariate true\n@data\n1,2:a\n", 2,
     "the header declares neither @classLabel nor @targetLabel"),
    ("@classLabel true a\n@targetLabel true\n@data\n1:a\n", 2,
     "@targetLabel true and @classLabel true: a file has class labels or "
     "regression targets, not both"),
    ("@classLabel true\n@data\n1:a\n", 1, "@classLabel true must list the class"),
    ("@classLabel false a b\n@data\n1\n", 1, "@classLabel false is followed by"),
    ("@classLabel true a a\n@data\n1:a\n", 1, "@classLabel lists a label twice"),
    ("@dimensions two\n@classLabel false\n@data\n1\n", 1,
     "@dimensions needs one positive integer, got 'two'"),
    ("@univariate true\n@dimensions 3\n@classLabel false\n@data\n1\n", 2,
     "@dimensions 3 contradicts @univariate true"),
    ("@classLabel false\n@classLabel false\n@data\n1\n", 2,
     "@classLabel is declared twice"),
    ("@data 5\n", 1, "@data takes no value"),
    ("1,2,3\n@data\n", 1, "data before @data"),
    (HEADER + "1,2:a\n@missing false\n", 6, "header line @missing after @data"),
    (HEADER + "1,2:c\n", 5, "class label 'c' is not among those declared by "
                            "@classLabel (line 3)"),
    (HEADER + "1,2:3,4:a\n", 5, "2 dimensions, but @univariate true"),
    ("@dimensions 2\n@classLabel false\n@data\n1:2:3\n", 4,
     "3 dimensions, but @dimensions 2"),
    ("@classLabel false\n@data\n1:2\n1\n", 4,
     "1 dimensions, but the first case (line 3) has 2"),
    (HEADER + "1,x,3:a\n", 5, "dimension 0, value 1 is 'x', not a finite number"),
    (HEADER + "1,inf:a\n", 5, "dimension 0, value 1 is 'inf', not a finite number"),
    (HEADER + "1,NaN,2:a\n", 5, "dimension 0, value 1 is 'NaN', not a finite number "
     "('?' marks a missing value)"),
    (HEADER + "1,,3:a\n", 5, "dimension 0, value 1 is empty"),
    (HEADER + "?,?:a\n", 5, "dimension 0 has no values (all missing)"),
    (HEADER + "1,2\n", 5, "no ':' before the label"),
    ("@targetLabel true\n@data\n1,2:high\n", 3,
     "the target 'high' is not a finite number"),
    ("@equalLength true\n@classLabel false\n@data\n1,2\n1,2,3\n", 5,
     "the series has 3 values but @equalLength true and the first case say 2"),
    ("@equalLength true\n@seriesLength 3\n@classLabel false\n@data\n1,2\n", 5,
     "the series has 2 values but @equalLength true and @seriesLength say 3"),
    ("@seriesLength 3\n@classLabel false\n@data\n1,2,3\n1,2\n", 5,
     "the series has 2 values but @seriesLength says 3"),
])
def test_malformed_files_name_the_file_and_line(tmp_path, text, line, match):
    path = _write(tmp_path, text)
    where = f"{path}, line {line}: " if line else f"{path}: "
    with pytest.raises(ValueError, match=re.escape(where + match)):
        load_ts(path)


def test_italy_power_demand_official_split():
    X_train, y_train = load_italy_power_demand()
    X_test, y_test = load_italy_power_demand("test")
    assert (len(X_train), len(X_test)) == (67, 1029)
    assert {x.shape for x in X_train + X_test} == {(24, 1)}
    assert sorted(set(y_train)) == sorted(set(y_test)) == ["1", "2"]
    # First and last values of the first training day, read off the file.
    assert X_train[0][0, 0] == -0.71051757 and X_train[0][-1, 0] == -0.26923494
    assert y_train[0] == "1"
    with pytest.raises(ValueError, match="split must be 'train' or 'test'"):
        load_italy_power_demand("validation")


@pytest.mark.parametrize("name, kind", [
    ("ItalyPowerDemand", "numpy3D"),      # univariate, equal length
    ("BasicMotions", "numpy3D"),          # multivariate, equal length
    ("JapaneseVowels", "nested_univ"),    # multivariate, unequal lengths
    ("Covid3Month", "numpy3D"),           # regression targets
])
def test_agrees_with_sktimes_reader_on_archive_files(name, kind):
    sktime_datasets = pytest.importorskip("sktime.datasets")
    folder = Path(sktime_datasets.__file__).parent / "data" / name
    path = folder / f"{name}_TRAIN.ts"
    X, y = load_ts(path)
    X_ref, y_ref = sktime_datasets.load_from_tsfile(str(path),
                                                    return_data_type=kind)
    if kind == "numpy3D":  # (n, channels, length)
        assert_array_equal(np.stack(X), np.transpose(X_ref, (0, 2, 1)))
    else:  # a DataFrame of one Series per case and channel
        assert len(X) == len(X_ref)
        for x, (_, row) in zip(X, X_ref.iterrows(), strict=True):
            assert_array_equal(x, np.column_stack([s.to_numpy() for s in row]))
    if y.dtype.kind == "f":
        assert_array_equal(y, y_ref.astype(float))
    else:  # sktime's reader lower-cases labels
        assert_array_equal(np.char.lower(y), np.char.lower(y_ref.astype(str)))
    if name == "ItalyPowerDemand":  # the shipped copy is this file
        shipped = load_italy_power_demand("train")
        for a, b in zip(shipped[0], X, strict=True):
            assert_array_equal(a, b)
