"""The thread count of large calls: one call divided over several CPUs, with the same bits.

skelsimd divides a call over a pool of threads inside the extension when its estimated
single-thread time is above about 60 microseconds (10,000 skeletons, a million vertices, a
dataset's conversions); a per-frame call (one skeleton, a thousand quaternion pairs) runs on the
calling thread and never touches the pool. Every item is computed by the same code whatever
thread runs it, so every function returns the same bytes at every thread count.

The count is process-wide. It starts at the CPUs this process may run on (its affinity mask,
``os.sched_getaffinity`` where the system has one, not the machine's count), or at the value of
the environment variable ``SKELSIMD_NUM_THREADS`` read at import (a positive integer; anything
else makes ``import skelsimd`` raise ValueError). A count above the CPUs available is allowed:
the extra threads share the CPUs, which only adds switching. Under Dask, ``skelsimd.dask``
sets one thread per worker thread, so that a worker's threads do not oversubscribe the CPUs.

While one call uses the pool, a call from another thread runs on its own thread: several Python
threads calling skelsimd at once never start more threads than the count.
"""
import contextlib
import operator
import os
from collections.abc import Iterator

from . import _core

__all__ = ["set_num_threads", "get_num_threads", "threads", "available_cpus",
           "calling_thread_only"]

ENVIRONMENT_VARIABLE = "SKELSIMD_NUM_THREADS"


def _check_count(n: object, name: str) -> int:
    if isinstance(n, bool):
        raise ValueError(f"{name}: expected a positive integer, got {n!r}")
    try:
        count = operator.index(n)  # type: ignore[arg-type]  # checked: TypeError below
    except TypeError:
        raise ValueError(f"{name}: expected a positive integer, got {n!r} "
                         f"({type(n).__name__})") from None
    if count < 1:
        raise ValueError(f"{name}: expected a positive integer, got {count}")
    if count > _MAX_THREADS:
        raise ValueError(f"{name}: expected at most {_MAX_THREADS} threads, got {count}")
    return count


_MAX_THREADS = 256


def available_cpus() -> int:
    """The CPUs this process may run on: its affinity mask where the system has one.

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.available_cpus() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return int(_core._available_cpus())


def set_num_threads(n: int) -> None:
    """Set how many threads (the calling one included) a large call is divided over.

    Parameters
    ----------
    n : int
        A positive integer (at most 256). More threads than :func:`available_cpus` is allowed:
        they share the CPUs. Calls under about 60 microseconds of work always run on the
        calling thread.

    Raises
    ------
    ValueError
        ``n`` is not a positive integer (0, negative, a float, a bool, a string).

    Examples
    --------
    >>> import skelsimd
    >>> before = skelsimd.get_num_threads()
    >>> skelsimd.set_num_threads(2)
    >>> skelsimd.get_num_threads()
    2
    >>> skelsimd.set_num_threads(before)
    """
    _core._set_num_threads(_check_count(n, "n"))


def get_num_threads() -> int:
    """The number of threads a large call is divided over (the calling one included).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.get_num_threads() >= 1
    True
    """
    return int(_core._get_num_threads())


@contextlib.contextmanager
def threads(n: int) -> Iterator[int]:
    """Run the block with ``n`` threads per large call, then restore the previous count.

    The count is process-wide: the block changes it for every thread of the process.

    Parameters
    ----------
    n : int
        A positive integer, as for :func:`set_num_threads`.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> local = np.tile(np.eye(3, 4, dtype=np.float32), (20000, 3, 1, 1))
    >>> with skelsimd.threads(1):
    ...     one = skelsimd.local_to_global(local, [-1, 0, 1])
    >>> with skelsimd.threads(3):
    ...     three = skelsimd.local_to_global(local, [-1, 0, 1])
    >>> one.tobytes() == three.tobytes()
    True
    """
    count = _check_count(n, "n")
    before = get_num_threads()
    _core._set_num_threads(count)
    try:
        yield count
    finally:
        _core._set_num_threads(before)


@contextlib.contextmanager
def calling_thread_only() -> Iterator[None]:
    """Run the block's calls on the calling thread alone (this thread only; others keep the
    process-wide count). :mod:`skelsimd.dask` runs every block and every clip of a dataset
    inside it: a Dask worker already runs one task per thread, so dividing each call again
    would only oversubscribe the CPUs.

    Examples
    --------
    >>> import skelsimd
    >>> from skelsimd.parallel import calling_thread_only
    >>> with calling_thread_only():
    ...     q = skelsimd.euler_to_quat([[0.0, 0.0, 0.0]], "xyz")
    >>> q.tolist()
    [[0.0, 0.0, 0.0, 1.0]]
    """
    before = int(_core._get_thread_limit())
    _core._set_thread_limit(1)
    try:
        yield
    finally:
        _core._set_thread_limit(before)


def _apply_environment() -> None:
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is None or value.strip() == "":
        _core._set_num_threads(min(available_cpus(), _MAX_THREADS))
        return
    text = value.strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ENVIRONMENT_VARIABLE}: expected a positive integer, got {value!r}")
    _core._set_num_threads(_check_count(int(text), ENVIRONMENT_VARIABLE))


_apply_environment()
