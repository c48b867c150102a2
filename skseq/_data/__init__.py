"""The data model: sequences and targets packed for the kernels, their checks,
and the estimator-lifecycle helpers every estimator shares.

:mod:`.sequences` holds the packed layout and the packing of each input form,
:mod:`.checks` the checks of X, :mod:`.targets` those of y and of sample and
class weights, :mod:`.lifecycle` what keeps an estimator consistent across calls,
:mod:`.representation` what the networks see of each step (the classes in
:mod:`.representation_base`, :mod:`.shape` and :mod:`.window`), :mod:`.prefixes`
the prefixes a classifier trained to answer early fits on, :mod:`.held_out`
the training sequences a choice from the data is scored on, and
:mod:`.dilated` MiniRocket's kernels fitted on packed sequences (shared with
:class:`skseq.preprocessing.DilatedConvolution`).
"""

from .checks import (
    check_sequences,
    mark_laid_out,
    record_fit_lengths,
    validate_sequences,
)
from .lifecycle import (
    N_JOBS_CONSTRAINT,
    NumberParams,
    check_fitted_params,
    check_flag,
    check_n_jobs,
    check_number,
    is_number,
    record_fitted_params,
    restore_on_failure,
)
from .sequences import NUMBERS, Reading, Sequences, Targets, missing_values, quote
from .targets import accuracy, check_targets, needs_lengths, score_targets
from .weights import check_class_weights, check_sample_weight, check_score_weight

__all__ = [
    "NUMBERS",
    "N_JOBS_CONSTRAINT",
    "Reading",
    "Sequences",
    "Targets",
    "accuracy",
    "check_class_weights",
    "check_fitted_params",
    "check_flag",
    "check_n_jobs",
    "check_number",
    "check_sample_weight",
    "check_score_weight",
    "check_sequences",
    "check_targets",
    "is_number",
    "mark_laid_out",
    "missing_values",
    "needs_lengths",
    "quote",
    "record_fitted_params",
    "NumberParams",
    "restore_on_failure",
    "score_targets",
    "record_fit_lengths",
    "validate_sequences",
]
