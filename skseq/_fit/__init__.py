"""The fitting machinery of the IOHMM estimators: the objective (``objective``),
its solvers (``solvers``: L-BFGS in lockstep, ``lbfgs``; GEM), the restart driver
(``restarts``), the convergence monitor (``monitor``), resource checks
(``resources``), the automatic penalty (``penalty``) and standard errors
(``information``)."""
