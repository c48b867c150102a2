"""The model families: the math of the state and output networks.

``params`` (parameters in one flat vector), ``layers`` (what a network sees of
the input), ``transitions`` and ``hierarchy`` (the state networks), ``starts``
(where their restarts start), ``passes`` (their lbfgs E-step for many restarts
at once), ``emissions`` (the output networks), ``outputs`` (the output
distributions, fitted as the estimators' ``outputs_``, and their registry
``OUTPUTS``) and ``registry`` (the options' documentation, from which the
estimators' docstrings and constraints are made).
"""
