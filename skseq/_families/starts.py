"""The starting points a transition family's restarts can be pushed toward.

The estimators' ``init`` option names them (:data:`STARTING_POINTS`); each
pushes a random parameter vector of a flat family
(:meth:`~skseq._families.transitions.TransitionFamily.init`). The hierarchical
family applies the same pushes level by level
(:meth:`~skseq._families.hierarchy.HierarchicalTransitions.init`).
"""

import numpy as np

# A "hold" start's stay logit: with 3 states a held state stays with probability
# e^7 / (e^7 + 2) = 0.998 at a zero input, so that about 2/3 of what it holds
# survives 200 steps. Measured on the 2-sequence problem (150-300 noise steps,
# flat 6-state IOHMM, 30 restarts on each of 3 data seeds): with 3 / 5 / 7 / 9,
# 0-3 / 9-19 / 26-30 / 28-30 restarts of 30 found the reading machine.
HOLD_LOGIT = 7.0

# The start scale of a model whose networks are all linear in their parameters
# (see ``Problem.initial_theta``): its weights start at N(0, (0.3 init_scale)^2).
# Measured over Tomita 1-7 and parity (100 starts each, doc/results/restarts.md):
# the share of starts reaching a perfect training fit is 0.385 at 0.3 against
# 0.285 at 1.0 (Tomita 4: 0.64 against 0.28); drawing only the state networks
# small gives 0.360, only the output networks 0.269. A tanh layer needs the full
# scale: on the magnitude problem (tests/test_mlp_networks.py) the MLP state
# networks fell from 1.00 to 0.54 test accuracy with every network at 0.3, and
# to 0.85 with only the output networks at 0.3.
SMALL_START = 0.3


class RandomStart:
    """Every weight drawn from N(0, scale^2), nothing more."""

    summary = "small random weights."

    @staticmethod
    def push(family, theta, rng, scale):
        """Push ``theta`` (in place) toward this starting point."""


class PermutationStart:
    """Every (n, n) slice of the parameters (the intercept and, for ``"input"``,
    each input feature's weights) also gets ``3 * scale`` on a random
    permutation: each state is pushed toward its own distinct successor.

    Such near-deterministic, information-preserving transitions keep early
    inputs visible at the end of a sequence, which is when temporal credit
    assignment works (Bengio & Frasconi 1996, §5.1) -- the random start of the
    counting grammars (Tomita #5, #6) that diffuse soft transitions cannot learn.
    """

    summary = "transitions pushed toward a random permutation of the states."

    @staticmethod
    def push(family, theta, rng, scale):
        n = family.n_states
        for block in family.unpack(theta).values():
            if block.shape[-2:] == (n, n):
                for sl in block.reshape(-1, n, n):
                    sl[np.arange(n), rng.permutation(n)] += 3.0 * scale


class HoldStart:
    """Every state but the first also gets :data:`HOLD_LOGIT` on its own stay
    logit, whatever the input; the first state, where the estimator starts the
    chain with such a start, keeps its random network.

    The chain reads the input from its first state and keeps what it read in
    the others, so that the early inputs reach the end of a long sequence, and
    the gradient reaches back to them, from the first iteration (Bengio &
    Frasconi 1996, §5.1: credit survives where transitions are near 0 or 1),
    while the first state's network is free to learn what to read.
    """

    summary = ("a chain that starts in its first state, whose network reads the "
               "input, while every other state is pushed to keep its value (a "
               "stay logit of 7; for long memory, see :ref:`long_memory`).")

    @staticmethod
    def push(family, theta, rng, scale):
        held = np.arange(1, family.n_states)
        family.unpack(theta)["intercept"][held, held] += HOLD_LOGIT


# init= option -> starting point
STARTING_POINTS = {"random": RandomStart, "permutation": PermutationStart,
                   "hold": HoldStart}
# Their names, in order (the estimators check ``init`` against them).
STARTS = tuple(STARTING_POINTS)

# HierarchicalIOHMM's init="auto" with a level of 3 values or more: three hold
# starts to one other, random and permutation in turn. On the 2-sequence problem
# with 150-300 noise steps (60 training sequences, data seeds 0-9, 7 restarts,
# two levels (3, 2) and one slow level (3,)) hold starts read the pattern in 110
# of 180 starts, random and permutation starts in 0 of 100; with this cycle all
# 20 fits found it, with hold, random and permutation in turn 19
# (doc/results/long_memory.md).
HOLD_HEAVY_STARTS = ("hold", "hold", "hold", "random",
                     "hold", "hold", "hold", "permutation")
