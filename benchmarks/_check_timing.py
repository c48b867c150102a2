"""Time scikit-learn's check_estimator on the default estimators (issue 15).

    python benchmarks/_check_timing.py

Prints one line per estimator (seconds, checks passed / failed / skipped, the
slowest checks) and the total; used by bench_speed.py.
"""

import time
import warnings

from sklearn.utils.estimator_checks import check_estimator


def default_estimators():
    from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
    from skseq.rnn import DiscretizedRNNClassifier

    return [IOHMMClassifier(), IOHMMRegressor(), HierarchicalIOHMM(),
            DiscretizedRNNClassifier()]


def time_checks(estimator):
    """Seconds of the whole check_estimator run and each check's status and time."""
    records = []
    last = [time.perf_counter()]

    def callback(*, estimator, check_name, exception, status, expected_to_fail,
                 expected_to_fail_reason):
        now = time.perf_counter()
        records.append((check_name, status, now - last[0],
                        None if exception is None else repr(exception)[:200]))
        last[0] = now

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(estimator, on_fail=None, on_skip=None, callback=callback)
    return time.perf_counter() - start, records


def main():
    total = 0.0
    for est in default_estimators():
        seconds, records = time_checks(est)
        total += seconds
        status = {}
        for _, s, _, _ in records:
            status[s] = status.get(s, 0) + 1
        slow = sorted(records, key=lambda r: -r[2])[:5]
        print(f"{type(est).__name__}: {seconds:.1f} s, {status}", flush=True)
        for name, s, t, _ in slow:
            print(f"    {t:6.1f} s {s} {name}")
        for name, s, _, exc in records:
            if s == "failed":
                print(f"    FAILED {name}: {exc}")
    print(f"total {total:.1f} s")


if __name__ == "__main__":
    main()
