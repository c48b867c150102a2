"""The compiled kernels, each beside its thin wrapper under a matching name.

``forward_backward`` (the E-step and Viterbi), ``softmax`` (the row operations of
the networks), ``fused`` (the fused value-and-gradient pass of linear state
networks), ``convolution`` (the dilated convolutions of the per-step
representations), ``pooling`` (running means, maxima and standard deviations
along each sequence), ``select`` (the order statistics of the convolutions'
columns), ``standardize`` (the standardization of the shape representation's
sample) and ``semi_markov`` (the filter, smoother and Viterbi of the hybrid
model's explicit-duration chain) check shapes, allocate and, where it pays,
spread the work over threads (``_parallel``); the compiled ``_<name>`` modules
only fill the arrays they are given. ``_build`` picks, for every compiled
module, the widest build this CPU runs. Nothing here imports the rest of skseq.
"""
