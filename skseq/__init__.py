"""skseq: scikit-learn estimators for sequences of feature vectors.

Sequences come in as a 3-D array padded at the end with NaN rows, a list of
``(len_i, n_features)`` arrays, or a 2-D array of one-step sequences; the first axis
is always the sequence, so scikit-learn's splitters, searches and pipelines work
unchanged.
"""

from ._show_versions import show_versions
from .classifier import IOHMMClassifier
from .hierarchical import HierarchicalIOHMM
from .hybrid import HybridHMMClassifier
from .regressor import IOHMMRegressor
from .rnn import DiscretizedRNNClassifier

__version__ = "0.1.0.dev0"

__all__ = [
    "DiscretizedRNNClassifier",
    "HierarchicalIOHMM",
    "HybridHMMClassifier",
    "IOHMMClassifier",
    "IOHMMRegressor",
    "__version__",
    "show_versions",
]
