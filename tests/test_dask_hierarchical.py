"""HierarchicalIOHMM fitted on a Dask collection: what it records of its
choice of features.

Across a cluster ``features="auto"`` resolves by the data's type alone (no
held-out comparison of representations runs there), so ``features_scores_``,
"None: no comparison", must be None after such a fit, as after a local fit
that compares nothing, and never a previous local fit's scores.
"""

import logging

import numpy as np
import pytest

from skseq import HierarchicalIOHMM
from skseq.datasets import make_two_sequence
from skseq.utils import to_padded

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                 processes=False, dashboard_address=None,
                                 silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _data():
    X, y = make_two_sequence(24, max_length=8, random_state=3)
    return X, y, da.from_array(to_padded(X), chunks=(8, -1, -1))


@pytest.mark.parametrize("features", ["raw", "auto"])
def test_fit_on_dask_records_no_held_out_scores(client, features):
    """A fit on a Dask array has ``features_scores_`` (None) like a local
    fit that compares nothing; it was missing (AttributeError)."""
    X, y, Xd = _data()
    model = HierarchicalIOHMM(features=features, n_init=1, max_iter=3,
                              random_state=0).fit(Xd, y)
    assert model.features_scores_ is None
    # real-valued series: the flat rule's choice, "shape" (no comparison)
    assert model.features_ == {"raw": "raw", "auto": "shape"}[features]


def test_refit_on_dask_drops_a_local_fits_scores(client):
    """A model fitted locally with ``features="auto"`` compared raw steps
    with the shape; refitted anew on a Dask array it compared nothing, and
    kept the local fit's scores as if they were its own."""
    X, y, Xd = _data()
    model = HierarchicalIOHMM(n_init=1, max_iter=3, random_state=0).fit(X, y)
    assert set(model.features_scores_) == {"raw", "shape"}
    model.fit(Xd, y)
    assert model.features_scores_ is None
    # a warm refit keeps the fitted representation and its record, as locally
    local = HierarchicalIOHMM(n_init=1, max_iter=3, random_state=0).fit(X, y)
    scores = dict(local.features_scores_)
    local.set_params(warm_start=True, max_iter=1).fit(Xd, y)
    assert local.features_scores_ == scores
    assert np.isfinite(local.objective_)
