"""The compiled kernels, each beside its thin wrapper under a matching name.

``forward_backward`` (the E-step and Viterbi), ``softmax`` (the row operations of
the networks), ``fused`` (the fused value-and-gradient pass of linear state
networks) and ``convolution`` (the dilated convolutions and running pooling of the
per-step representations) check shapes, allocate and spread the work over threads
(``_parallel``); the compiled ``_<name>`` modules only fill the arrays they are
given. ``_build`` picks, for every compiled module, the widest build this CPU
runs. Nothing here imports the rest of skseq.
"""
