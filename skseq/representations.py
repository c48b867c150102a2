"""Input representations: what an IOHMM estimator's networks see of each step.

Every estimator of :class:`~skseq.IOHMMClassifier`,
:class:`~skseq.IOHMMRegressor` and :class:`~skseq.HierarchicalIOHMM` takes
``features`` as a name (``"auto"``, ``"raw"``, ``"shape"``,
``"shape_centred"``, ``"window"``) or as one of these objects, configured::

    from skseq import IOHMMClassifier
    from skseq.representations import ShapeFeatures

    clf = IOHMMClassifier(features=ShapeFeatures(n_indicators=9996,
                                                 threshold_sample="series"))

The estimator fits a clone (``representation_``; the object passed stays
unfitted), and ``features__<parameter>`` reaches the object's parameters in
``set_params`` and in a grid search. A name gives the object of that name with
its defaults: ``features="shape"`` and ``features=ShapeFeatures()`` fit the
same model.
"""

from ._data.representation_base import RawFeatures
from ._data.shape import CentredShapeFeatures, ShapeFeatures
from ._data.window import WindowFeatures

__all__ = [
    "CentredShapeFeatures",
    "RawFeatures",
    "ShapeFeatures",
    "WindowFeatures",
]
