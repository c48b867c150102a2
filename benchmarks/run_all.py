"""Regenerate every accuracy result in doc/results/ (about 1.5-2 hours on 2 cores).

    python benchmarks/run_all.py [--quick]

Runs, each in its own process (each also runs alone, with its own flags):
``bench_tomita_table6.py`` (Bengio & Frasconi 1996, Table 6 and Figure 5),
``bench_long_term.py`` (Bengio & Frasconi 1996, Tables 1-4), ``bench_rnn_stability.py``
(Zeng, Goodman & Smyth 1993, analog vs discretized nets on long strings),
``bench_hierarchical.py`` (El Hihi & Bengio 1995, Figure 2), ``bench_long_memory.py``
(toggled regimes, the 2-sequence problem with little data), ``bench_real_data.py``
(four UCR/UEA data sets), ``bench_step_labelling.py`` (sessions of BasicMotions and
PLAID recordings, every step labelled; about 30 minutes; then
``bench_step_labelling_lag.py``, its section on how far the chain lags),
``bench_early_classification.py`` (the class from a series' first 20-50%) and
``bench_sequence_regression.py`` (one real target per sequence). The
timing pages come from ``bench_speed.py``, ``bench_memory.py``, ``bench_fused.py``,
``bench_scaling.py`` and ``bench_representations.py``, which want a quiet machine
and are run on their own. Needs the ``[bench]`` extra (hmmlearn, torch, sktime,
matplotlib), and sklearn-crfsuite for the step-labelling benchmark's CRF. The
Table 6, Tables 1-4, Figure 2 and step-labelling scripts also save their raw
results as JSON next to the page; ``--render`` on either rewrites its page and figure
from that JSON without rerunning.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = ("bench_tomita_table6.py", "bench_long_term.py", "bench_rnn_stability.py",
           "bench_hierarchical.py", "bench_long_memory.py", "bench_real_data.py",
           "bench_step_labelling.py", "bench_step_labelling_lag.py",
           "bench_early_classification.py", "bench_sequence_regression.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="pass --quick to every experiment (a few minutes)")
    parser.add_argument("--only", nargs="+", choices=SCRIPTS, default=SCRIPTS)
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    failed = []
    for script in args.only:
        start = time.perf_counter()
        cmd = [sys.executable, str(here / script)] + (["--quick"] if args.quick else [])
        print(f"== {script}", flush=True)
        if subprocess.run(cmd, cwd=here).returncode:
            failed.append(script)
        print(f"== {script}: {(time.perf_counter() - start) / 60:.1f} min", flush=True)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
