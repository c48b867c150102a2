"""Model selection on a Dask cluster through joblib's Dask backend (DESIGN §5).

A real ``dask.distributed.LocalCluster`` with two worker processes: the grid
search must run its fits there and produce exactly the scores of a local run.
"""

import logging

import joblib
import numpy as np
from dask.distributed import Client, LocalCluster, get_task_stream
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from skseq import IOHMMClassifier
from skseq.datasets import make_tomita


def test_grid_search_on_local_dask_cluster_matches_local_run():
    X, y = make_tomita(4, n_samples=60, random_state=0)
    search = GridSearchCV(
        IOHMMClassifier(emission="state", n_init=2, max_iter=60, random_state=0),
        {"n_states": [2, 3, 4]},
        # A continuous score too, so that the comparison is not only of counts.
        scoring=["accuracy", "neg_log_loss"],
        refit="accuracy",
        cv=3,
    )
    with joblib.parallel_backend("sequential"):
        expected = clone(search).fit(X, y).cv_results_

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                     dashboard_address=None, silence_logs=logging.ERROR) as cluster,
        Client(cluster) as client,
        get_task_stream(client) as tasks,
        joblib.parallel_backend("dask"),
    ):
        result = clone(search).set_params(n_jobs=-1).fit(X, y)
        workers = set(client.scheduler_info()["workers"])

    # The 9 fits (3 candidates x 3 folds) ran on the cluster's workers.
    ran_on = {task["worker"] for task in tasks.data}
    assert len(tasks.data) >= 9
    assert ran_on and ran_on <= workers

    cv_results = result.cv_results_
    for k in range(3):
        assert_array_equal(cv_results[f"split{k}_test_accuracy"],
                           expected[f"split{k}_test_accuracy"])
        assert_allclose(cv_results[f"split{k}_test_neg_log_loss"],
                        expected[f"split{k}_test_neg_log_loss"], rtol=1e-10)
    assert_array_equal(cv_results["rank_test_accuracy"],
                       expected["rank_test_accuracy"])
    best = np.argmin(expected["rank_test_accuracy"])
    assert result.best_params_ == expected["params"][best]
