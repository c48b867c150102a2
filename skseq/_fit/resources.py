"""Resource checks before allocating: a fit (or prediction) that cannot fit in
memory is refused in O(1) with a ValueError that names its size and what to
change, instead of failing (or swapping) halfway through.

The available memory is the kernel's MemAvailable, capped by a cgroup v2 limit
and by an address-space limit (``ulimit -v``).
"""

class NotEnoughMemoryError(ValueError):
    """The ValueError of :func:`check_allocation`: an allocation refused
    before it was tried."""


def _available_memory():
    """Bytes of memory available to this process, or None if unknown (the
    kernel's MemAvailable, capped by a cgroup v2 limit)."""
    try:
        with open("/proc/meminfo") as f:
            info = dict(line.split(":", 1) for line in f)
        available = int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
        if limit != "max":
            available = min(available, int(limit) - used)
    except (OSError, ValueError):
        pass
    try:  # an address-space limit (ulimit -v) caps what this process may map
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            mapped = int(status["VmSize"].split()[0]) * 1024
            available = min(available, soft - mapped)
    except (ImportError, OSError, KeyError, ValueError):
        pass
    return available


def check_allocation(estimator, n_bytes, what, advice):
    """ValueError if ``n_bytes`` (for ``what``) exceed the available memory:
    a check in O(1), before allocating."""
    available = _available_memory()
    if available is not None and n_bytes > available:
        raise NotEnoughMemoryError(
            f"{type(estimator).__name__} with {what} needs about "
            f"{n_bytes / 2**30:.3g} GiB, but only {max(available, 0) / 2**30:.3g} "
            f"GiB are available: {advice}"
        )


def check_memory(estimator, n_steps, n_states, n_params=0, entries_per_step=None):
    """ValueError, before allocating, if a fit (or prediction) of this size cannot
    fit in memory: ``entries_per_step`` float64 per step (by default 3 n_states^2:
    the per-step transition matrices and their statistics; a fit asks its state
    family, ``fit_entries_per_step``) and, for a fit, L-BFGS's history of ~25
    parameter vectors."""
    if entries_per_step is None:
        entries_per_step = 3 * n_states**2
    check_allocation(
        estimator, 8 * (entries_per_step * n_steps + 25 * n_params),
        f"{n_states} states on {n_steps} steps ({n_params} parameters; per-step "
        f"{n_states}x{n_states} transition matrices and their statistics, or "
        "state posteriors)",
        "use fewer states, shorter or fewer sequences (e.g. "
        "skseq.preprocessing.WindowMean), or more memory.")


def check_restarts(estimator, n_init, n_params):
    """ValueError, before drawing them, if the starting points of ``n_init``
    restarts (a row of ``n_params`` float64 each, and the record of each
    restart's objective) cannot fit in memory."""
    check_allocation(
        estimator, 8 * n_init * (n_params + 5),
        f"n_init={n_init} (a starting point of {n_params} parameters for every "
        "restart)", "use fewer restarts.")
