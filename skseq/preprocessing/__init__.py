"""Transformers of sequences.

:class:`Stepwise` applies an ordinary (2-D) scikit-learn transformer to every
step; :class:`WindowMean` shortens sequences by averaging windows of steps;
:class:`SequenceFeatures` appends per-step features computed along each
sequence (differences, relative time); :class:`DilatedConvolution` describes the
local shape around every step with MiniRocket's kernels; :class:`RunningPooling`
averages (or takes the maximum of) features over a trailing window or the whole
prefix; :class:`ForwardFill` fills missing values with the last observed ones;
:class:`SequenceUnion` puts the features of several such transformers side by
side. All but WindowMean keep one output step per input step.

:func:`on_raw_steps` calls a method of a pipeline's last step (state
posteriors, Viterbi paths) and maps its per-step output back onto the raw steps.
"""

from ._convolution import DilatedConvolution, RunningPooling
from ._fill import ForwardFill
from ._stepwise import Stepwise, on_raw_steps
from ._summaries import SequenceFeatures
from ._union import SequenceUnion
from ._window import WindowMean

__all__ = [
    "DilatedConvolution",
    "ForwardFill",
    "RunningPooling",
    "SequenceFeatures",
    "SequenceUnion",
    "Stepwise",
    "WindowMean",
    "on_raw_steps",
]
