"""The model families: what the state networks, output networks and output
distributions are (``outputs``: the output distributions and their registry
``OUTPUTS``)."""
