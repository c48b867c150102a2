"""Test-session settings."""

import os

# scikit-learn's check_array_api_input runs only when SciPy's array-API support is
# on; set it before SciPy is imported so the check runs instead of being skipped.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
