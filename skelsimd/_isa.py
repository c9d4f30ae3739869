"""Run-time SIMD variant selection.

The C extension picks the best variant the CPU supports when it is imported. The environment
variable ``SKELSIMD_ISA`` (``scalar``, ``sse41``, ``avx2``, ``neon``; ``auto`` or empty for the best) forces
one; an unknown name is a ValueError and a variant this CPU lacks a RuntimeError, both raised by
``import skelsimd``.

``use_isa`` switches the active variant temporarily (tests and benchmark sweeps use it to run
every variant in one process). It changes process-wide state: do not use it while other threads
call kernels.
"""
import contextlib
import os

from . import _core

__all__ = ["isa", "supported_isas", "compiled_isas", "best_isa", "use_isa"]

isa = _core.isa
supported_isas = _core.supported_isas
compiled_isas = _core.compiled_isas
best_isa = _core.best_isa


def _apply_environment():
    name = os.environ.get("SKELSIMD_ISA", "").strip().lower()
    if name in ("", "auto", "best"):
        return
    try:
        _core._set_isa(name)
    except (ValueError, RuntimeError) as exc:
        raise type(exc)(f"SKELSIMD_ISA={name!r}: {exc}") from None


@contextlib.contextmanager
def use_isa(name):
    """Make ``name`` the active variant inside a ``with`` block, then restore the previous one."""
    previous = _core.isa()
    _core._set_isa(name)
    try:
        yield name
    finally:
        _core._set_isa(previous)


_apply_environment()
