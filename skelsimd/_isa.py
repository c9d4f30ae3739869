"""Run-time SIMD variant selection.

The C extension picks the best variant the CPU supports when it is imported. The environment
variable ``SKELSIMD_ISA`` (``scalar``, ``sse41``, ``avx2``, ``avx512``, ``neon``; ``auto`` or empty
for the best) forces one; an unknown name is a ValueError and a variant this CPU lacks a
RuntimeError, both raised by ``import skelsimd``.

Dispatch is per kernel family: the variant chosen at import runs in every family except those
that measured slower on it than on the next variant (on AVX-512 machines some families keep
``avx2``); ``dispatch_table()`` says which family runs which variant. A variant forced by name
(``SKELSIMD_ISA``, ``use_isa``) runs in every family.

``use_isa`` switches the active variant temporarily (tests and benchmark sweeps use it to run
every variant in one process). It changes process-wide state: do not use it while other threads
call kernels.
"""
import contextlib
import os
from collections.abc import Iterator

from . import _core

__all__ = ["isa", "supported_isas", "compiled_isas", "best_isa", "use_isa", "dispatch_table"]

isa = _core.isa
supported_isas = _core.supported_isas
compiled_isas = _core.compiled_isas
best_isa = _core.best_isa


def dispatch_table() -> dict[str, str]:
    """The SIMD variant each kernel family runs now, as ``{family: variant}``.

    With the variant chosen at import (the default) a family that measured slower on the best
    variant than on the next one runs that one (on AVX-512 machines, ``avx2`` for some
    families); with a variant forced by ``SKELSIMD_ISA`` or ``use_isa`` every family runs it.

    Examples
    --------
    >>> import skelsimd
    >>> table = skelsimd.dispatch_table()
    >>> table['joints'] in skelsimd._isa.supported_isas()
    True
    >>> set(table.values()) <= set(skelsimd._isa.supported_isas())
    True
    """
    return _core.dispatch_table()


def _apply_environment() -> None:
    name = os.environ.get("SKELSIMD_ISA", "").strip().lower()
    if name in ("", "auto", "best"):
        return
    try:
        _core._set_isa(name)
    except (ValueError, RuntimeError) as exc:
        raise type(exc)(f"SKELSIMD_ISA={name!r}: {exc}") from None


@contextlib.contextmanager
def use_isa(name: str) -> Iterator[str]:
    """Make ``name`` the active variant of every family inside a ``with`` block (``"auto"``: the
    variant chosen at import, per family), then restore the previous one."""
    previous = "auto" if _core._isa_automatic() else _core.isa()
    _core._set_isa(name)
    try:
        yield name
    finally:
        _core._set_isa(previous)


_apply_environment()
