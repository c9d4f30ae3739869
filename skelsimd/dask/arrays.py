"""The batched kernels on dask arrays: lazy, chunk by chunk, bit-identical to the in-memory calls.

Every function here has the signature of the skelsimd function of the same name and returns a
dask array (float32) whose every chunk is that function applied to the matching chunks of the
inputs, so ``skelsimd.dask.f(x, ...).compute()`` equals ``skelsimd.f(x.compute(), ...)`` bit for
bit, whatever the chunking of the batch axes and whatever the scheduler.

Axes
----
* Batch (leading) axes are chunked freely and broadcast by NumPy rules between operands, as in
  the in-memory functions (a ``(J, 3, 4)`` ``inverse_bind`` against ``(N, J, 3, 4)`` poses, one
  ``t`` against many quaternions, ...). Operands may be dask arrays or anything array_like
  (NumPy arrays, lists, scalars), mixed freely.
* The joint axis and the trailing (per-element) axes must each be one chunk: a joint's global
  pose needs its parent's, and a kernel needs whole quaternions and matrices. An operand split
  along one of them is rechunked to one chunk with a :class:`RechunkWarning` naming the
  argument, the axis and how to avoid it; ``warnings.simplefilter("error", RechunkWarning)``
  turns that into an error instead.
* ``skin`` also chunks the vertex axis freely (``positions``, ``normals``, ``joint_indices`` and
  ``weights`` are aligned on it): vertices are independent.

Validation happens when the function is called, not at compute time: every rule of the
in-memory function (dtypes, shapes, hierarchies, ``start``/``stop``, ``method``, ``index``, ...)
is checked by running it on a one-element stand-in of each operand (the first batch element of a
NumPy operand, zeros of the right shape and dtype for a dask operand), so the same TypeError or
ValueError is raised with the same message. Values only a dask operand holds (e.g. a joint index
out of range in a dask ``joint_indices``) are checked when its chunk is computed, with the
same message.

``out``
-------
``out=None`` (default) returns the lazy dask array. Given an array (a NumPy array or a Zarr
array of the result's shape and dtype float32), the result is computed chunk by chunk into it
with :func:`dask.array.store` and ``out`` is returned, as the in-memory functions do. A NumPy
``out`` lives in this process, so it needs the threaded (default for dask arrays) or the
synchronous scheduler: with processes or a distributed cluster the workers would write into
copies, so that is refused with a ValueError (store into a Zarr array instead). ``out`` may be
an input that is a NumPy array of the same shape (in place), as in memory: every output chunk is
computed from the same region of the inputs before it is written.
"""
from __future__ import annotations
import warnings

import numpy as np

try:
    import dask
    from dask.base import tokenize
    import dask.array as da
    from dask.core import flatten
    from dask.layers import ArraySliceDep
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("skelsimd.dask needs the optional dependencies of the [dask] extra: "
                      "pip install 'skelsimd[dask]'") from exc

from .. import blend as _blend
from .. import joints as _joints
from .. import mat4 as _mat4
from .. import qts as _qts
from .. import skinning as _skinning
from .._validate import broadcast_shapes as _broadcast_shapes
from ..parallel import calling_thread_only as _calling_thread_only
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol
    from numpy.typing import ArrayLike, NDArray
    from .._typing import BlendMethod, Float32Array, Precision, SlerpMethod

    _DaskArray = Any  # a dask.array.Array (dask ships no type information)
    _Out = Any        # a NumPy or Zarr array (zarr ships no type information either)
    _Result = Float32Array | tuple[Float32Array, Float32Array]
    _Kernel = Callable[..., _Result]

    class _Walk(Protocol):
        """The signature of the batched hierarchy walks (see :func:`_walk`)."""
        def __call__(self, local: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None,
                     *, start: int = 0, stop: int | None = None,
                     precision: Precision = "float32") -> _DaskArray: ...

__all__ = [
    "RechunkWarning",
    "local_to_global", "global_to_local", "multiply_joints", "invert_joints",
    "qts_local_to_global", "qts_local_to_global_matrix",
    "mat4_local_to_global", "matmul4", "transform_points",
    "skinning_palette", "skin",
    "slerp", "nlerp", "blend_joints", "blend_layers",
]


class RechunkWarning(UserWarning):
    """An operand was split along an axis that must be one chunk (the joint axis or a trailing
    axis) and was rechunked. Turn it into an error with
    ``warnings.simplefilter("error", skelsimd.dask.RechunkWarning)``."""


# Names of the core (non-batch) axes, for messages.
_AXIS_NAMES = {
    "J": "joint", "R": "matrix row", "C": "matrix column", "E": "QTS component",
    "Q": "quaternion component", "L": "layer", "X": "coordinate", "K": "influence",
    "V": "vertex", "M": "matrix row", "N": "matrix column",
}


class _Operand:
    """One argument of a batched function: its name, value and core axes (trailing axes with
    fixed roles, as index letters); ``free`` lists core axes that may be chunked."""

    __slots__ = ("name", "value", "core", "free", "is_dask", "nbatch")

    def __init__(self, name: str, value: ArrayLike | _DaskArray, core: str, free: str = "") -> None:
        self.name = name
        self.core = core
        self.free = free
        self.is_dask: bool = isinstance(value, da.Array)
        # a dask array (untyped: Any) or the operand as a NumPy array
        v: _DaskArray = value if self.is_dask else np.asarray(value)
        self.value = v
        self.nbatch: int = v.ndim - len(core)

    def stand_in(self) -> NDArray[Any]:
        """A one-element (per batch axis) array that the in-memory function validates."""
        v = self.value
        if self.nbatch < 0:              # too few dimensions: let the in-memory function say so
            whole: NDArray[Any] = np.zeros(v.shape, dtype=v.dtype) if self.is_dask else v
            return whole
        if not self.is_dask:
            first: NDArray[Any] = v[(slice(0, 1),) * self.nbatch]
            return first
        core_shape = v.shape[self.nbatch:]
        if any(not np.isfinite(s) for s in core_shape):
            raise ValueError(f"{self.name}: the sizes of its trailing axes are unknown "
                             f"({v.shape}); call {self.name}.compute_chunk_sizes() first")
        return np.zeros((1,) * self.nbatch + tuple(core_shape), dtype=v.dtype)

    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape[:self.nbatch])


def _name(fname: str, *inputs: object) -> str:
    """The key name of a result: a token of everything it depends on (dask's convention), so
    the same call on the same inputs names the same graph. Dask arrays are tokenized by their
    names, NumPy operands by their bytes (as ``da.from_array`` names them), out arrays by
    where they are (``_where``). A fresh uuid per call filled dask's ``key_split`` cache
    (about 28 MiB over 50,000 calls)."""
    return f"{fname}-{tokenize(fname, *inputs)}"


def _where(o: object) -> object:
    """What names an out array in a token: its memory, shape, strides and type (its values
    are about to be overwritten, so they are not hashed)."""
    if isinstance(o, np.ndarray):
        return ("ndarray", o.__array_interface__["data"][0], o.shape, o.strides, o.dtype.str)
    return o


def _real_shapes(message: str, operands: Sequence[_Operand],
                 stand_ins: dict[str, NDArray[Any]]) -> str:
    """The in-memory message about a stand-in, with the operand's real shape: the message of a
    shape error names its argument first ("local: expected shape ..., got (1, 96, 3, 3)")."""
    for op in operands:
        fake, real = stand_ins[op.name].shape, tuple(op.value.shape)
        if fake != real and message.startswith(f"{op.name}:"):
            return message.replace(str(fake), str(real))
    return message


_DASK_MAX_DIMS = 32


# Every block runs on its Dask worker thread alone (_calling_thread_only): the workers are
# already one per CPU, and dividing each block's call over skelsimd's pool too would
# oversubscribe them.
def _call_block(*blocks: NDArray[Any], _func: _Kernel, _names: tuple[str, ...],
                _kwargs: dict[str, Any]) -> _Result:
    with _calling_thread_only():
        return _func(**dict(zip(_names, blocks)), **_kwargs)


def _call_skin_pair(*blocks: NDArray[Any], _func: _Kernel, _names: tuple[str, ...],
                    _kwargs: dict[str, Any]) -> Float32Array:
    """skin with normals: both outputs of one kernel call, in one (2, ..., V, 3) block whose
    halves are C-contiguous ``out`` and ``normals_out`` arrays."""
    args = dict(zip(_names, blocks))
    pos, nrm, pal = args["positions"], args["normals"], args["palette"]
    batch = _broadcast_shapes([pos.shape[:-2], nrm.shape[:-2], pal.shape[:-3]],
                              "positions, normals and palette")
    both = np.empty((2,) + batch + pos.shape[-2:], dtype=np.float32)
    with _calling_thread_only():
        _func(**args, **_kwargs, out=both[0], normals_out=both[1])
    return both


def _check_out(fname: str, argname: str, out: _Out, shape: tuple[int, ...],
               inputs: Sequence[object]) -> None:
    """Validate an ``out`` target for :func:`dask.array.store`."""
    if isinstance(out, da.Array):
        raise TypeError(f"{argname}: dask arrays are immutable; got a dask array (leave {argname}=None "
                        f"for a lazy result, or pass a NumPy or Zarr array to write into)")
    if not hasattr(out, "__setitem__") or not hasattr(out, "shape") or not hasattr(out, "dtype"):
        raise TypeError(f"{argname}: expected a NumPy or Zarr array (shape, dtype, item assignment), "
                        f"got {type(out).__name__}")
    if np.dtype(out.dtype) != np.float32:
        raise TypeError(f"{argname}: expected dtype float32, got {np.dtype(out.dtype)}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{argname}: expected shape {tuple(shape)}, got {tuple(out.shape)}")
    if isinstance(out, np.ndarray):
        if not out.flags.writeable:
            raise ValueError(f"{argname}: the array is read-only")
        for x in inputs:
            if (isinstance(x, np.ndarray) and x is not out and x.size and out.size
                    and np.shares_memory(x, out)):
                raise ValueError(f"{argname}: overlaps an input without being exactly it")
        get = dask.base.get_scheduler()  # type: ignore[no-untyped-call]  # dask is unannotated
        if get not in (None, dask.threaded.get, dask.local.get_sync):
            raise ValueError(f"{argname}: a NumPy array can only be filled by the threaded or the "
                             f"synchronous scheduler (this process); the active scheduler runs "
                             f"tasks elsewhere and would write into copies. Store into a Zarr "
                             f"array instead, or leave {argname}=None and compute")


def _check_outs_apart(name: str, a: NDArray[Any], other_name: str, b: NDArray[Any]) -> None:
    """The in-memory rule for two outputs of one call (skin's out and normals_out): their bytes
    must not overlap, with the in-memory messages."""
    if not (a.size and b.size and np.may_share_memory(a, b)):
        return
    if a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.nbytes == b.nbytes:
        raise ValueError(f"{name}: must not be the same memory as {other_name} (this function "
                         f"does not work in place)")
    raise ValueError(f"{name}: partially overlaps {other_name}; pass the same array for in-place "
                     f"operation or a separate array")


def _batched(func: _Kernel, fname: str, operands: list[_Operand], out_core: str,
             kwargs: dict[str, Any], *, out: _Out = None,
             pair: tuple[str, _Out] | None = None) -> Any:
    """Apply ``func`` chunk by chunk: the shared machinery of every function here.

    operands: _Operand list (None values already dropped); out_core: index letters of the
    result's trailing axes; kwargs: non-array arguments passed to every call; pair: for skin with
    normals, the names of the two out arguments (the result is then a tuple).
    """
    # 1. The in-memory function validates everything it can see on one-element stand-ins, and
    #    tells us the trailing shape of the result.
    stand_ins = {op.name: op.stand_in() for op in operands}
    try:
        sample = func(**stand_ins, **kwargs)
    except (TypeError, ValueError) as exc:
        raise type(exc)(_real_shapes(str(exc), operands, stand_ins)) from None
    sample0 = sample[0] if isinstance(sample, tuple) else sample
    core_sizes = dict(zip(out_core, sample0.shape[sample0.ndim - len(out_core):]))

    # 2. Batch axes broadcast by NumPy rules.
    shapes = [op.batch_shape() for op in operands]
    try:
        batch = _broadcast_shapes(shapes, fname)
    except ValueError:
        desc = ", ".join(f"{op.name} {s}" for op, s in zip(operands, shapes))
        raise ValueError(f"{fname}: the leading (batch) dimensions do not broadcast: {desc}") from None
    nb = len(batch)
    batch_letters = tuple(f"b{i}" for i in range(nb))
    # Dask's rechunking and broadcasting use NumPy functions limited to 32 dimensions.
    for op in operands:
        if np.ndim(op.value) > _DASK_MAX_DIMS:
            raise ValueError(f"{op.name}: skelsimd.dask takes operands of up to {_DASK_MAX_DIMS} "
                             f"dimensions (dask's limit), got {np.ndim(op.value)}")
    if nb + len(out_core) > _DASK_MAX_DIMS:
        raise ValueError(f"{fname}: the result would have {nb + len(out_core)} dimensions; "
                         f"skelsimd.dask makes results of up to {_DASK_MAX_DIMS} (dask's limit)")

    # 3. Dask operands: the joint and trailing axes in one chunk (warned rechunk).
    args: list[Any] = []          # (array, index) pairs, as da.blockwise takes them
    names: list[str] = []
    for op in operands:
        x = op.value
        if op.is_dask:
            split: dict[int, str] = {}
            for k, letter in enumerate(op.core):
                axis = op.nbatch + k
                if letter not in op.free and len(x.chunks[axis]) > 1:
                    split[axis] = letter
            if split:
                desc = "; ".join(
                    f"axis {a - x.ndim} ({_AXIS_NAMES.get(l, l)} axis) has chunks {x.chunks[a]}"
                    for a, l in split.items())
                spec = ", ".join(f"{a - x.ndim}: -1" for a in split)
                warnings.warn(
                    f"skelsimd.dask.{fname}: {op.name} must be one chunk along its joint and "
                    f"trailing axes but {desc}; rechunked to one chunk there (a copy of every "
                    f"batch chunk). Chunk only the batch axes to avoid it, e.g. "
                    f"{op.name}.rechunk({{{spec}}})", RechunkWarning, stacklevel=3)
                x = x.rechunk({a: -1 for a in split})
        else:
            chunks: tuple[str | int, ...] = ("auto",) * op.nbatch + tuple(
                "auto" if letter in op.free else -1 for letter in op.core)
            if x.size == 0:      # dask's automatic chunking divides by the size
                chunks = x.shape
            # named by a token of its bytes (dask's default), so equal calls name equal graphs
            x = da.from_array(x, chunks=chunks) if x.ndim else x  # type: ignore[no-untyped-call]  # dask is unannotated
        ind = batch_letters[nb - op.nbatch:] + tuple(op.core)
        args += [x, ind]
        names.append(op.name)

    out_ind = batch_letters + tuple(out_core)
    known = {letter for op in operands for letter in op.core}
    new_axes = {letter: core_sizes[letter] for letter in out_core if letter not in known}
    outs: tuple[_Out, ...] = (out,) if pair is None else (out, pair[1])
    out_shape = tuple(batch) + tuple(core_sizes[letter] for letter in out_core)

    def lazy() -> tuple[_DaskArray, ...]:
        if pair is None:
            return (da.blockwise(  # type: ignore[no-untyped-call]  # dask is unannotated
                _call_block, out_ind, *args, new_axes=new_axes, dtype=np.float32,
                meta=np.empty((0,) * len(out_ind), dtype=np.float32), concatenate=True,
                name=_name(fname, args, kwargs), _func=func, _names=tuple(names),
                _kwargs=kwargs),)
        both = da.blockwise(  # type: ignore[no-untyped-call]  # dask is unannotated
            _call_skin_pair, ("pair",) + out_ind, *args, new_axes={"pair": 2, **new_axes},
            dtype=np.float32, meta=np.empty((0,) * (1 + len(out_ind)), dtype=np.float32),
            concatenate=True, name=_name(fname, "pair", args, kwargs), _func=func,
            _names=tuple(names), _kwargs=kwargs)
        return both[0], both[1]

    # 4. out: compute into the given arrays.
    if all(o is None for o in outs):
        results = lazy()
        return results[0] if pair is None else results
    if pair is not None and (outs[0] is None) != (outs[1] is None):
        missing = "out" if outs[0] is None else pair[0]
        raise ValueError(f"{fname}: give both out and {pair[0]} or neither ({missing} is None): "
                         f"a stored result and a lazy one cannot come from one call")
    inputs = [op.value for op in operands if not op.is_dask]
    for argname, o in zip(("out",) + ((pair[0],) if pair else ()), outs):
        _check_out(fname, argname, o, out_shape, inputs)
    if pair is not None and all(isinstance(o, np.ndarray) for o in outs):
        _check_outs_apart(pair[0], outs[1], "out", outs[0])
    if not all(isinstance(o, np.ndarray) for o in outs):
        da.store(list(lazy()), list(outs), lock=False)
        return outs[0] if pair is None else outs

    # NumPy outs: every chunk's kernel writes straight into its region of out (a C-contiguous
    # view when only the first axis is split), so there is no copy. The region of each chunk comes
    # from the chunks of the lazy result (dask's ArraySliceDep, as map_blocks passes block_info).
    chunkss, aligned = da.core.unify_chunks(*args)  # type: ignore[no-untyped-call]  # dask is unannotated
    out_chunks = tuple(chunkss.get(letter, (core_sizes.get(letter),)) for letter in out_ind)
    aligned_args = [a for pair in zip(aligned, args[1::2]) for a in pair]
    into = da.blockwise(  # type: ignore[no-untyped-call]  # dask is unannotated
        _call_block_into, out_ind, *aligned_args, ArraySliceDep(out_chunks), out_ind,
        new_axes=new_axes, dtype=np.float32, align_arrays=False,
        meta=np.empty((0,) * len(out_ind), dtype=np.float32), concatenate=True,
        name=_name(fname + "-into", args, kwargs, [_where(o) for o in outs]), _func=func,
        _names=tuple(names), _kwargs=kwargs, _outs=outs)
    if into.size:
        _run_for_effect(into)
    return outs[0] if pair is None else outs


def _run_for_effect(result: _DaskArray) -> None:
    """Compute every chunk of ``result`` (tasks run for their side effect) on the active local
    scheduler, without the graph optimizations of ``dask.compute``: the tasks only write into
    ``out``, so there is nothing to fuse, and fusing each input chunk with its task would make
    every task a subgraph the scheduler orders again (about a millisecond per chunk, against the
    tenths of a millisecond the plain graph costs). The graph is culled to the result's keys."""
    keys = list(flatten(result.__dask_keys__()))  # type: ignore[no-untyped-call]  # dask is unannotated
    graph = result.__dask_graph__().cull(set(keys))
    get = dask.base.get_scheduler(collections=[result])  # type: ignore[no-untyped-call]  # dask is unannotated
    get(graph, keys)


def _call_block_into(*blocks: Any, _func: _Kernel, _names: tuple[str, ...],
                     _kwargs: dict[str, Any], _outs: tuple[NDArray[np.float32], ...]
                     ) -> NDArray[np.float32]:
    """One chunk computed straight into its region (the last block, a tuple of slices) of the
    NumPy out arrays."""
    n = len(_names)
    args = dict(zip(_names, blocks[:n]))
    region = blocks[n]
    views = [o[region] for o in _outs]
    named = dict(out=views[0]) if len(views) == 1 else dict(out=views[0], normals_out=views[1])
    if all(v.flags.c_contiguous and v.flags.aligned for v in views):
        with _calling_thread_only():
            _func(**args, **_kwargs, **named)
    else:            # a region of a later axis, or a misaligned out: compute, then copy
        with _calling_thread_only():
            res = _func(**args, **_kwargs)
        for v, r in zip(views, res if isinstance(res, tuple) else (res,)):
            v[...] = r
    return np.broadcast_to(np.float32(0), views[0].shape)     # a placeholder, no memory


def _scalar_or_operand(name: str, t: ArrayLike | _DaskArray,
                       kwargs: dict[str, Any]) -> _Operand | None:
    """``t`` as a kwarg (put in ``kwargs``) when it is one number, else a batch operand (core
    ())."""
    if not isinstance(t, da.Array) and np.ndim(t) == 0:
        kwargs[name] = t
        return None
    return _Operand(name, t, "")


def _ops(*operands: _Operand | None) -> list[_Operand]:
    return [op for op in operands if op is not None and op.value is not None]


def _op(name: str, value: ArrayLike | _DaskArray | None, core: str,
        free: str = "") -> _Operand | None:
    return None if value is None else _Operand(name, value, core, free)


def _small(value: ArrayLike | None) -> ArrayLike | None:
    """A small argument that selects or configures (parents, index): a NumPy array, computed
    if it is a dask array."""
    return np.asarray(value) if isinstance(value, da.Array) else value


# --- joint matrices ---------------------------------------------------------------------------------


def _walk(func: _Kernel, core_in: str, core_out: str, doc: str) -> _Walk:
    """The batched form of one hierarchy walk (``func(local, parents, out, *, start, stop,
    precision)``, its local poses with trailing axes ``core_in``, its result ``core_out``): the
    four walks differ only in these."""
    fname = func.__name__

    def walk(local: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None, *,
             start: int = 0, stop: int | None = None,
             precision: Precision = "float32") -> _DaskArray:
        return _batched(func, fname, _ops(_op("local", local, core_in)), core_out,
                        dict(parents=_small(parents), start=start, stop=stop, precision=precision),
                        out=out)

    walk.__name__ = walk.__qualname__ = fname
    walk.__doc__ = doc
    return walk


local_to_global = _walk(
    _joints.local_to_global, "JRC", "JRC",
    """:func:`skelsimd.local_to_global` on a dask array of local joint matrices ``(..., J, 3, 4)``
    (the J, 3 and 4 axes one chunk). Returns a dask array, or ``out`` when given.""")


def global_to_local(
    global_: ArrayLike | _DaskArray,
    parents: ArrayLike,
    out: _Out = None,
    *,
    start: int = 0,
    stop: int | None = None,
    rigid: bool = False,
) -> _DaskArray:
    """:func:`skelsimd.global_to_local` on a dask array ``(..., J, 3, 4)``."""
    return _batched(_joints.global_to_local, "global_to_local", _ops(_op("global_", global_, "JRC")),
                    "JRC", dict(parents=_small(parents), start=start, stop=stop, rigid=rigid),
                    out=out)


def multiply_joints(
    a: ArrayLike | _DaskArray, b: ArrayLike | _DaskArray, out: _Out = None
) -> _DaskArray:
    """:func:`skelsimd.multiply_joints`: ``a @ b`` per joint matrix ``(..., 3, 4)``, broadcast."""
    return _batched(_joints.multiply_joints, "multiply_joints",
                    _ops(_op("a", a, "RC"), _op("b", b, "RC")), "RC", {}, out=out)


def invert_joints(
    m: ArrayLike | _DaskArray, out: _Out = None, *, rigid: bool = False
) -> _DaskArray:
    """:func:`skelsimd.invert_joints` on ``(..., 3, 4)``."""
    return _batched(_joints.invert_joints, "invert_joints", _ops(_op("m", m, "RC")), "RC",
                    dict(rigid=rigid), out=out)


# --- QTS walks --------------------------------------------------------------------------------------


qts_local_to_global = _walk(
    _qts.qts_local_to_global, "JE", "JE",
    """:func:`skelsimd.qts_local_to_global` on a dask array of QTS joints ``(..., J, 8)``.""")

qts_local_to_global_matrix = _walk(
    _qts.qts_local_to_global_matrix, "JE", "JRC",
    """:func:`skelsimd.qts_local_to_global_matrix`: QTS ``(..., J, 8)`` in, global matrices
    ``(..., J, 3, 4)`` out.""")


# --- 4x4 matrices and points -------------------------------------------------------------------------


mat4_local_to_global = _walk(
    _mat4.mat4_local_to_global, "JRC", "JRC",
    """:func:`skelsimd.mat4_local_to_global` on ``(..., J, 4, 4)``.""")


def matmul4(a: ArrayLike | _DaskArray, b: ArrayLike | _DaskArray, out: _Out = None) -> _DaskArray:
    """:func:`skelsimd.matmul4`: ``a @ b`` on ``(..., 4, 4)`` with broadcasting."""
    return _batched(_mat4.matmul4, "matmul4", _ops(_op("a", a, "RC"), _op("b", b, "RC")), "RC",
                    {}, out=out)


def transform_points(
    m: ArrayLike | _DaskArray, points: ArrayLike | _DaskArray, out: _Out = None
) -> _DaskArray:
    """:func:`skelsimd.transform_points`: ``(..., 3, 4)`` or ``(..., 4, 4)`` matrices applied to
    ``(..., 3)`` points, with broadcasting."""
    return _batched(_mat4.transform_points, "transform_points",
                    _ops(_op("m", m, "MN"), _op("points", points, "X")), "X", {}, out=out)


# --- palette and skinning ----------------------------------------------------------------------------


def skinning_palette(
    local: ArrayLike | _DaskArray,
    parents: ArrayLike,
    inverse_bind: ArrayLike | _DaskArray,
    out: _Out = None,
    *,
    precision: Precision = "float32",
) -> _DaskArray:
    """:func:`skelsimd.skinning_palette` on ``(..., J, 3, 4)`` poses; ``inverse_bind`` ``(J, 3, 4)``
    or broadcast per character."""
    return _batched(_skinning.skinning_palette, "skinning_palette",
                    _ops(_op("local", local, "JRC"), _op("inverse_bind", inverse_bind, "JRC")),
                    "JRC", dict(parents=_small(parents), precision=precision), out=out)


def skin(
    positions: ArrayLike | _DaskArray,
    joint_indices: ArrayLike,
    weights: ArrayLike,
    palette: ArrayLike | _DaskArray,
    out: _Out = None,
    *,
    normals: ArrayLike | _DaskArray | None = None,
    normals_out: _Out = None,
) -> Any:
    """:func:`skelsimd.skin`: linear-blend skinning by a batch of palettes ``(..., J, 3, 4)``.

    The vertex axis may be chunked (``positions``, ``normals``, ``joint_indices`` and ``weights``
    are aligned on it); the palette's joint axis and the trailing axes are one chunk. With
    ``normals`` the result is the tuple ``(positions, normals)`` of dask arrays (both from one
    kernel call per chunk); ``out`` and ``normals_out`` are given together or not at all.
    """
    if not isinstance(palette, da.Array):       # its values are here: checked at the call
        _skinning._check_finite_palette(palette)
    ops = _ops(_op("positions", positions, "VX", free="V"),
               _op("joint_indices", joint_indices, "VK", free="V"),
               _op("weights", weights, "VK", free="V"),
               _op("palette", palette, "JRC"),
               _op("normals", normals, "VX", free="V"))
    if normals is None:
        if normals_out is not None:
            raise ValueError("normals_out: given without normals")
        return _batched(_skinning.skin, "skin", ops, "VX", {}, out=out)
    return _batched(_skinning.skin, "skin", ops, "VX", {}, out=out,
                    pair=("normals_out", normals_out))


# --- quaternions and blending ------------------------------------------------------------------------


def _interpolate(func: _Kernel, q0: ArrayLike | _DaskArray, q1: ArrayLike | _DaskArray,
                 t: ArrayLike | _DaskArray, out: _Out, kwargs: dict[str, Any]) -> _DaskArray:
    """slerp and nlerp: quaternions ``(..., 4)`` and ``t`` a number (passed in ``kwargs``) or a
    batch operand."""
    t_op = _scalar_or_operand("t", t, kwargs)
    return _batched(func, func.__name__, _ops(_op("q0", q0, "Q"), _op("q1", q1, "Q"), t_op),
                    "Q", kwargs, out=out)


def slerp(
    q0: ArrayLike | _DaskArray,
    q1: ArrayLike | _DaskArray,
    t: ArrayLike | _DaskArray,
    out: _Out = None,
    *,
    method: SlerpMethod = "fast",
) -> _DaskArray:
    """:func:`skelsimd.slerp` on ``(..., 4)`` quaternions; ``t`` a number or broadcast with the
    batch."""
    return _interpolate(_blend.slerp, q0, q1, t, out, dict(method=method))


def nlerp(
    q0: ArrayLike | _DaskArray,
    q1: ArrayLike | _DaskArray,
    t: ArrayLike | _DaskArray,
    out: _Out = None,
) -> _DaskArray:
    """:func:`skelsimd.nlerp` on ``(..., 4)`` quaternions."""
    return _interpolate(_blend.nlerp, q0, q1, t, out, {})


def blend_joints(
    joints: ArrayLike | _DaskArray,
    blend: ArrayLike | _DaskArray,
    t: ArrayLike | _DaskArray,
    *,
    index: ArrayLike | None = None,
    method: BlendMethod = "fast",
    out: _Out = None,
) -> _DaskArray:
    """:func:`skelsimd.blend_joints` on QTS poses ``(..., J, 8)``; ``t`` a number or per pose."""
    kwargs: dict[str, Any] = dict(index=_small(index), method=method)
    t_op = _scalar_or_operand("t", t, kwargs)
    return _batched(_blend.blend_joints, "blend_joints",
                    _ops(_op("joints", joints, "JE"), _op("blend", blend, "JE"), t_op),
                    "JE", kwargs, out=out)


def blend_layers(
    layers: ArrayLike | _DaskArray, weights: ArrayLike | _DaskArray, out: _Out = None
) -> _DaskArray:
    """:func:`skelsimd.blend_layers` on ``(..., L, J, 8)`` layers; ``weights`` ``(L,)`` or
    ``(L, J)`` (a NumPy array: computed if it is a dask array)."""
    weights = np.asarray(_small(weights))
    # (L,) or (L, J); any other shape is refused by the in-memory function on the stand-ins
    return _batched(_blend.blend_layers, "blend_layers",
                    _ops(_op("layers", layers, "LJE"),
                         _Operand("weights", weights, "L" if weights.ndim <= 1 else "LJ")),
                    "JE", {}, out=out)


# Keep the names the kernels' docs use when shown as skelsimd.dask.<name>.
for _f in (local_to_global, global_to_local, multiply_joints, invert_joints, qts_local_to_global,
           qts_local_to_global_matrix, mat4_local_to_global, matmul4, transform_points,
           skinning_palette, skin, slerp, nlerp, blend_joints, blend_layers):
    _f.__module__ = "skelsimd.dask"
del _f
