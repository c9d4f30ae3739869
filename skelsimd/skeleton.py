"""Skeletons: a joint hierarchy validated once, with names, depths, children, subtrees, masks
and reordering (flattened hierarchies with parent indices).

A :class:`Skeleton` is accepted wherever a function takes ``parents`` (``local_to_global``,
``global_to_local`` and every later family), and it is *not* validated again there: its
parents array was checked when the skeleton was built and cannot be changed afterwards (the
array is read-only and NumPy refuses to make it writeable). Only its joint count is compared
with the pose's, so passing a Skeleton costs a pointer read per call instead of a pass over the
parents (measured in ``benchmarks/sweep_skeleton.py``).

Joint order
-----------
The kernels need ``parents[j] < j``. Depth-first order (the order a BVH file lists its joints)
also makes every subtree a contiguous range ``start <= j < stop``, usable as the ``start`` /
``stop`` of ``local_to_global`` to update one limb. Breadth-first order (proposed in the
comments on "Adventures in data-oriented design, part 2" so that siblings such as fingers share their parent's cached matrix) is valid for the
kernels too, but its subtrees are not contiguous. ``Skeleton.from_parents_any_order`` builds a
skeleton from parents in any order (forward references, several roots); ``reorder`` converts
between the orders. Both return the permutation to apply to pose arrays and its inverse::

    skel2, perm, inverse = skel.reorder("breadth-first")
    local2 = local[..., perm, :, :]            # poses in the new order
    glob = skelsimd.local_to_global(local2, skel2)[..., inverse, :, :]   # back to the old order
"""
from __future__ import annotations
import difflib

import numpy as np

from . import _core
from . import _names
from . import ik as _ik
from .bounds import fill_docstrings
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

if TYPE_CHECKING:
    from ._typing import _View, _Joint
    from collections.abc import Iterable, Sequence
    import numpy
    from numpy.typing import ArrayLike, DTypeLike, NDArray
    from typing_extensions import Self
    from ._typing import BoolArray, Float32Array, Int32Array, Order
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_T = TypeVar("_T", bound="np.generic[Any]")

__all__ = ["Skeleton", "ORDERS", "mirror_pairs"]

ORDERS: tuple[str, ...] = ("depth-first", "breadth-first")


def _frozen(a: NDArray[_T]) -> NDArray[_T]:
    a = np.array(a, copy=True)
    a.flags.writeable = False
    return a


def _depths(parents: NDArray[np.integer[Any]]) -> Int32Array:
    """Depth of every joint by pointer jumping (O(J log depth) NumPy operations): ``anc[j]`` is
    an ancestor of j at distance ``depth[j]``, or -1 once ``depth[j]`` is final."""
    anc = parents.astype(np.intp)
    depth = (anc >= 0).astype(np.int32)
    live = np.flatnonzero(anc >= 0)
    while live.size:
        a = anc[live]
        depth[live] += depth[a]   # right-hand sides read the previous step's values
        anc[live] = anc[a]
        live = live[anc[live] >= 0]
    return depth


def _check_order(order: object) -> None:
    if order not in ORDERS:
        raise ValueError(f"order: expected one of {', '.join(repr(o) for o in ORDERS)}, got {order!r}")


def _traversal(parents: NDArray[np.intp], order: str) -> NDArray[np.intp]:
    """The joints of a forest (parents in any order, already range-checked and acyclic) in
    depth-first pre-order or breadth-first order; roots and siblings in ascending index."""
    n = len(parents)
    kids = np.argsort(parents, kind="stable")          # roots (-1) first, then by parent
    counts = np.bincount(parents + 1, minlength=n + 1)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    roots = kids[:counts[0]].tolist()
    children = [kids[offsets[j + 1]:offsets[j + 2]].tolist() for j in range(n)]
    result: list[int] = []
    if order == "depth-first":
        stack = roots[::-1]
        while stack:
            j = stack.pop()
            result.append(j)
            stack.extend(children[j][::-1])
    else:
        queue = roots
        while queue:
            result.extend(queue)
            queue = [c for j in queue for c in children[j]]
    if len(result) != n:  # unreachable from a root: a cycle (the caller checked for them)
        raise AssertionError("traversal did not reach every joint")
    return np.asarray(result, dtype=np.intp)


def _find_cycle(parents: NDArray[np.integer[Any]], names: Sequence[str] | None) -> str | None:
    """A message naming the joints of one cycle of `parents`, or None when there is none."""
    n = len(parents)
    state = np.zeros(n, dtype=np.int8)   # 0 unseen, 1 on the current walk, 2 known acyclic
    for j0 in range(n):
        walk: list[int] = []
        j = j0
        while j >= 0 and state[j] == 0:
            state[j] = 1
            walk.append(j)
            j = int(parents[j])
        if j >= 0 and state[j] == 1:     # walked back into this walk: a cycle
            cycle = walk[walk.index(j):]
            label = " -> ".join(_label(k, names) for k in cycle + [j])
            if len(cycle) == 1:
                return f"parents[{j}] = {j}: joint {_label(j, names)} is its own parent"
            return f"parents: joints {label} form a cycle (each is the parent of the one before)"
        for k in walk:
            state[k] = 2
    return None


def _similar_names(query: str, names: Sequence[str], n: int = 5) -> list[str]:
    """Up to n joint names close to `query`, best first: equal but for case, then by difflib's
    similarity ratio (case-insensitive), where a name that contains the query or is contained in
    it (``LeftToeBase`` -> ``LeftToe``, ``hand`` -> ``hand_l``) ranks above the others."""
    q = query.lower()
    scored: list[tuple[bool, bool, float, int, str]] = []
    for k, name in enumerate(names):
        low = name.lower()
        ratio = difflib.SequenceMatcher(None, q, low).ratio()
        contains = bool(q) and (q in low or low in q)
        if low == q or contains or ratio >= 0.6:
            scored.append((low != q, not contains, -ratio, k, name))
    return [name for *_, name in sorted(scored)[:n]]


def _label(j: int, names: Sequence[str] | None) -> str:
    return f"{j} ({names[j]!r})" if names is not None else str(j)


class Skeleton(_core.SkeletonBase):
    """A joint hierarchy, validated once, with everything kernels and users need from it.

    Parameters
    ----------
    parents : array_like of int, (J,)
        ``-1`` for a root (several roots are allowed), otherwise ``parents[j] < j``
        (depth-first or breadth-first flattening). For any other order use
        :meth:`from_parents_any_order`.
    names : sequence of str, optional
        Unique joint names (default ``"joint_0"``, ``"joint_1"``, ...).
    rest : array_like, optional
        The rest (bind) pose: QTS ``(J, 8)`` as ``(qx, qy, qz, qw, tx, ty, tz, s)`` or joint
        matrices ``(J, 3, 4)``; stored as a read-only float32 copy. A BVH skeleton's rest pose
        is its OFFSETs with identity rotations (QTS).

    Attributes
    ----------
    parents : ndarray of int32, (J,), read-only
        The kernels' parents array. The Skeleton itself can be passed as ``parents``.
    names : tuple of str
    depth : ndarray of int32, (J,), read-only
        Number of ancestors of each joint (roots 0).
    rest : ndarray of float32 or None, read-only
    offsets : ndarray of float32 (J, 3) or None
        The rest pose's translations (a BVH skeleton's OFFSETs).
    is_depth_first : bool
        True when every subtree is a contiguous index range (depth-first pre-order).

    Notes
    -----
    ``np.asarray(skeleton)`` is its parents array, so NumPy code that takes a parents array
    (e.g. ``skelsimd.reference``) takes a Skeleton too. Skeletons pickle.

    Examples
    --------
    >>> import skelsimd
    >>> skel = skelsimd.Skeleton([-1, 0, 1, 0], names=["hips", "spine", "head", "leg"])
    >>> skel.roots, skel.index("head"), skel.parents[2]
    (array([0], dtype=int32), 2, np.int32(1))
    """

    def __init__(
        self, parents: ArrayLike, names: Sequence[str] | None = None, rest: ArrayLike | None = None
    ) -> None:
        # SkeletonBase.__new__ has validated `parents` and stored the read-only int32 copy.
        p = self.parents
        n = len(p)
        if names is None:
            names = tuple(f"joint_{j}" for j in range(n))
        else:
            if isinstance(names, str):
                raise TypeError(f"names: expected a sequence of {n} str, got a str")
            names = tuple(names)
            if len(names) != n:
                raise ValueError(f"names: expected {n} names (one per joint), got {len(names)}")
            for j, name in enumerate(names):
                if not isinstance(name, str):
                    raise TypeError(f"names[{j}]: expected a str, got {type(name).__name__}")
        index: dict[str, int] = {}
        for j, name in enumerate(names):
            if name in index:
                raise ValueError(f"names[{j}] = {name!r}: expected unique names, "
                                 f"already used by joint {index[name]}")
            index[name] = j
        self._names = names
        self._index = index
        self._rest = None if rest is None else self._check_rest(rest, n)
        # chains resolved by the IK methods (skelsimd.ik), keyed by the joints as given
        self._ik_chains: dict[Any, tuple[int, ...]] = {}

        depth = _depths(p)
        self._depth = _frozen(depth)
        kids = np.argsort(p, kind="stable").astype(np.int32)
        counts = np.bincount(p.astype(np.intp) + 1, minlength=n + 1)
        self._child_offsets = np.concatenate(([0], np.cumsum(counts)))
        self._child_index = _frozen(kids)
        # subtree size and last descendant, gathered level by level from the leaves up
        size = np.ones(n, dtype=np.intp)
        last = np.arange(n, dtype=np.intp)
        by_depth = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[by_depth], np.arange(int(depth.max(initial=0)) + 2))
        for d in range(len(bounds) - 2, 0, -1):
            level = by_depth[bounds[d]:bounds[d + 1]]
            np.add.at(size, p[level], size[level])
            np.maximum.at(last, p[level], last[level])
        self._subtree_size = _frozen(size.astype(np.int32))
        self._contiguous = _frozen(last - np.arange(n) + 1 == size)
        self._is_depth_first = bool(self._contiguous.all())

    @staticmethod
    def _check_rest(rest: ArrayLike, n: int) -> Float32Array:
        r = np.array(_core._as_array(rest, "rest"), dtype=np.float32, copy=True)
        if r.shape not in ((n, 8), (n, 3, 4)):
            raise ValueError(f"rest: expected shape ({n}, 8) (QTS) or ({n}, 3, 4) (joint matrices), "
                             f"got {r.shape}")
        r.flags.writeable = False
        return r

    # --- construction from other orders ---------------------------------------------------------

    @classmethod
    def from_parents_any_order(
        cls,
        parents: ArrayLike,
        names: Sequence[str] | None = None,
        rest: ArrayLike | None = None,
        *,
        order: Order = "depth-first",
    ) -> tuple[Self, NDArray[np.intp], NDArray[np.intp]]:
        """Build a skeleton from parents in any order and flatten it for the kernels.

        Parameters
        ----------
        parents : array_like of int, (J,)
            ``parents[j]`` is the index of j's parent or -1 for a root; parents may come after
            their children; several roots are allowed.
        names, rest : optional
            As for :class:`Skeleton`, in the order of ``parents``.
        order : {"depth-first", "breadth-first"}
            The joint order of the result (roots and siblings keep their relative order).

        Returns
        -------
        skeleton : Skeleton
            The hierarchy in the requested order.
        perm : ndarray of intp, (J,)
            New joint i is old joint ``perm[i]``: poses convert with ``pose[..., perm, :]``
            (e.g. ``local[..., perm, :, :]`` or ``qts[..., perm, :]``).
        inverse : ndarray of intp, (J,)
            The inverse permutation: ``new_pose[..., inverse, :]`` is back in the old order.

        Raises
        ------
        ValueError
            A parent index outside ``[-1, J)``, or a cycle (the message names its joints).
        """
        _check_order(order)
        arr = _core._as_array(parents, "parents")
        if isinstance(parents, Skeleton):
            arr = parents.parents
        if arr.ndim != 1:
            raise ValueError(f"parents: expected a 1-D integer array, got shape {arr.shape}")
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"parents: expected a 1-D integer array, got dtype {arr.dtype}")
        n = arr.shape[0]
        names_t = None
        if names is not None:
            if isinstance(names, str):
                raise TypeError(f"names: expected a sequence of {n} str, got a str")
            names_t = tuple(names)
            if len(names_t) != n:
                raise ValueError(f"names: expected {n} names (one per joint), got {len(names_t)}")
        p = arr.astype(np.int64)
        bad = np.flatnonzero((p < -1) | (p >= n))
        if bad.size:
            j = int(bad[0])
            raise ValueError(f"parents[{j}] = {int(arr[j])}: expected -1 (a root) or a joint index "
                             f"in [0, {n}) (joint {_label(j, names_t)})")
        p = p.astype(np.intp)
        cycle = _find_cycle(p, names_t)
        if cycle is not None:
            raise ValueError(cycle)
        perm = _traversal(p, order)
        return cls._permuted(p, names_t, rest, perm)

    @classmethod
    def _permuted(cls, old_parents: NDArray[np.intp], names: Sequence[str] | None,
                  rest: ArrayLike | None, perm: NDArray[np.intp]
                  ) -> tuple[Self, NDArray[np.intp], NDArray[np.intp]]:
        inverse = np.empty_like(perm)
        inverse[perm] = np.arange(len(perm), dtype=perm.dtype)
        old = old_parents[perm]
        new_parents = np.where(old >= 0, inverse[np.maximum(old, 0)], -1).astype(np.int32)
        if names is not None:
            names = [names[i] for i in perm]
        if rest is not None:
            rest = np.asarray(rest)
            rest = cls._check_rest(rest, len(perm))[perm]
        return cls(new_parents, names, rest), perm, inverse

    def reorder(self, order: Order = "depth-first") -> tuple[Self, NDArray[np.intp], NDArray[np.intp]]:
        """The same hierarchy in depth-first or breadth-first order.

        Returns ``(skeleton, perm, inverse)`` as :meth:`from_parents_any_order` does: new joint
        i is old joint ``perm[i]``; ``pose[..., perm, :]`` converts poses to the new order and
        ``new_pose[..., inverse, :]`` back. Roots and siblings keep their relative order, so
        reordering a skeleton that is already in that order gives the identity permutation.
        Global poses are bit-identical in either order (each joint is computed from the same
        operands).
        """
        _check_order(order)
        perm = _traversal(self.parents.astype(np.intp), order)
        return self._permuted(self.parents.astype(np.intp), self._names, self._rest, perm)

    # --- properties -----------------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def depth(self) -> Int32Array:
        return self._depth

    @property
    def rest(self) -> Float32Array | None:
        return self._rest

    @property
    def offsets(self) -> Float32Array | None:
        """The rest pose's translations (J, 3) float32 (a BVH skeleton's OFFSETs), or None
        without a rest pose."""
        if self._rest is None:
            return None
        return self._rest[:, 4:7] if self._rest.ndim == 2 else self._rest[:, :, 3]

    @property
    def is_depth_first(self) -> bool:
        return self._is_depth_first

    @property
    def roots(self) -> Int32Array:
        """Indices of the root joints (int32)."""
        return self._child_index[:self._child_offsets[1]]

    @property
    def num_joints(self) -> int:
        return len(self.parents)

    def __len__(self) -> int:
        return len(self.parents)

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NDArray[Any]:
        if copy is False and dtype is not None and np.dtype(dtype) != np.int32:
            raise ValueError("Skeleton.__array__: cannot convert the parents without a copy")
        p = self.parents
        if dtype is not None:
            p = p.astype(dtype)
        elif copy:
            p = p.copy()
        return p

    def __repr__(self) -> str:
        n = len(self)
        shown = ", ".join(self._names[:4]) + (", ..." if n > 4 else "")
        return (f"Skeleton({n} joints, {len(self.roots)} root{'s' if len(self.roots) != 1 else ''}, "
                f"depth {int(self._depth.max(initial=0))}, "
                f"{'depth-first' if self._is_depth_first else 'not depth-first'}: {shown})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (np.asarray(self.parents), self._names, self._rest))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Skeleton):
            return NotImplemented
        same_rest = (self._rest is None and other._rest is None) or (
            self._rest is not None and other._rest is not None
            and self._rest.shape == other._rest.shape and np.array_equal(self._rest, other._rest))
        return (np.array_equal(self.parents, other.parents) and self._names == other._names
                and same_rest)

    __hash__ = None  # type: ignore[assignment]  # unhashable, as its __eq__ compares contents

    # --- lookup ---------------------------------------------------------------------------------

    def index(self, joint: _Joint) -> int:
        """The index of a joint given by name or index (ValueError when there is none)."""
        if isinstance(joint, str):
            try:
                return self._index[joint]
            except KeyError:
                close = _similar_names(joint, self._names)
                hint = f"; similar: {', '.join(close)}" if close else ""
                raise ValueError(f"joint: no joint named {joint!r} in this skeleton of "
                                 f"{len(self)} joints{hint}") from None
        if isinstance(joint, (bool, np.bool_)) or not isinstance(joint, (int, np.integer)):
            raise TypeError(f"joint: expected a joint name (str) or index (int), got "
                            f"{type(joint).__name__}")
        j = int(joint)
        if not 0 <= j < len(self):
            raise ValueError(f"joint: expected an index in [0, {len(self)}), got {j}")
        return j

    def indices(self, joints: Iterable[_Joint]) -> Int32Array:
        """Indices (int32) of several joints given by names or indices."""
        if isinstance(joints, str):
            joints = [joints]
        return np.asarray([self.index(j) for j in joints], dtype=np.int32)

    def children(self, joint: _Joint) -> Int32Array:
        """The children of a joint (int32, ascending)."""
        j = self.index(joint)
        return self._child_index[self._child_offsets[j + 1]:self._child_offsets[j + 2]]

    def ancestors(self, joint: _Joint) -> Int32Array:
        """The path from a joint's parent up to its root (int32), nearest first."""
        j = self.index(joint)
        path = []
        p = self.parents
        j = int(p[j])
        while j >= 0:
            path.append(j)
            j = int(p[j])
        return np.asarray(path, dtype=np.int32)

    def subtree(self, joint: _Joint) -> tuple[int, int]:
        """The subtree of a joint (itself and its descendants) as ``(start, stop)``.

        In depth-first order every subtree is the contiguous range ``start <= j < stop``, usable
        directly as ``local_to_global(..., start=start, stop=stop)`` (to update one limb after
        changing its local poses) or as ``slice(start, stop)``. ValueError when the subtree is
        not contiguous in this order (use :meth:`subtree_indices`, or ``reorder()`` first).
        """
        j = self.index(joint)
        if not self._contiguous[j]:
            raise ValueError(f"joint {_label(j, self._names)}: its subtree is not a contiguous range "
                             "in this joint order; use subtree_indices() or reorder('depth-first')")
        return j, j + int(self._subtree_size[j])

    def subtree_indices(self, joint: _Joint) -> Int32Array:
        """The joints of a subtree (int32, ascending), in any joint order."""
        return np.flatnonzero(self.subtree_mask(joint)).astype(np.int32)

    def chain(self, start: _Joint, end: _Joint) -> Int32Array:
        """The joints from ``start`` down to its descendant ``end``, both included (int32, in
        hierarchy order), e.g. ``chain("LeftShoulder", "LeftHand")``."""
        a, b = self.index(start), self.index(end)
        path = [b]
        p = self.parents
        j = b
        while j != a:
            j = int(p[j])
            if j < 0:
                raise ValueError(f"end: joint {_label(b, self._names)} is not a descendant of "
                                 f"start joint {_label(a, self._names)}")
            path.append(j)
        return np.asarray(path[::-1], dtype=np.int32)

    # --- masks ----------------------------------------------------------------------------------

    def subtree_mask(self, joint: _Joint) -> BoolArray:
        """Boolean mask (J,) of a joint and all its descendants."""
        j = self.index(joint)
        if self._contiguous[j]:
            m = np.zeros(len(self), dtype=bool)
            m[j:j + int(self._subtree_size[j])] = True
            return m
        m = np.zeros(len(self), dtype=bool)
        m[j] = True
        p = self.parents
        # joints are ordered parents-first, so one forward pass marks every descendant
        for k in range(j + 1, len(self)):
            if p[k] >= 0 and m[p[k]]:
                m[k] = True
        return m

    def chain_mask(self, start: _Joint, end: _Joint) -> BoolArray:
        """Boolean mask (J,) of the chain from ``start`` down to ``end`` (see :meth:`chain`)."""
        m = np.zeros(len(self), dtype=bool)
        m[self.chain(start, end)] = True
        return m

    def mask(
        self,
        joints: Iterable[_Joint] = (),
        *,
        subtrees: Iterable[_Joint] = (),
        chains: Iterable[tuple[_Joint, _Joint]] = (),
        invert: bool = False,
    ) -> BoolArray:
        """A boolean mask (J,) for partial updates and blend masks: the union of single
        ``joints``, whole ``subtrees`` and ``chains`` given as ``(start, end)`` pairs (joints by
        name or index); ``invert=True`` gives the complement (e.g. everything but the arms).
        ``mask.astype(np.float32)`` is a per-joint blend weight; ``np.flatnonzero(mask)`` an
        index subset."""
        if isinstance(joints, (str, int, np.integer)):
            joints = [joints]
        if isinstance(subtrees, (str, int, np.integer)):
            subtrees = [subtrees]
        m = np.zeros(len(self), dtype=bool)
        m[self.indices(list(joints))] = True
        for s in subtrees:
            m |= self.subtree_mask(s)
        for c in chains:
            if isinstance(c, str) or len(c) != 2:
                raise TypeError(f"chains: expected (start, end) pairs, got {c!r}")
            m |= self.chain_mask(*c)
        return ~m if invert else m

    @staticmethod
    def mask_ranges(mask: ArrayLike) -> list[tuple[int, int]]:
        """The runs of True in a boolean mask as ``[(start, stop), ...]``: the ranges to pass to
        ``local_to_global(..., start=, stop=)`` for a partial update."""
        m = _core._as_array(mask, "mask").astype(bool, copy=False)
        if m.ndim != 1:
            raise ValueError(f"mask: expected a 1-D boolean array, got shape {m.shape}")
        edges = np.flatnonzero(np.diff(np.concatenate(([False], m, [False])).astype(np.int8)))
        return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]

    # --- inverse kinematics on local poses (skelsimd.ik) ---------------------------------------

    def two_bone(
        self,
        local: ArrayLike,
        joints: Sequence[_Joint],
        target: ArrayLike,
        *,
        pole: ArrayLike,
        mid_axis: ArrayLike | None = (0, 0, 1),
        twist: ArrayLike = 0.0,
        soften: ArrayLike = 1.0,
        weight: ArrayLike = 1.0,
        return_reached: bool = False,
    ) -> Any:
        """Two-bone IK on local QTS poses (ozz-animation's IKTwoBoneJob and its sample's use):
        model-space matrices by forward kinematics, :func:`skelsimd.ik_two_bone`, and the
        corrections multiplied into the start and mid joints' local rotations.

        Parameters
        ----------
        local : array_like, (..., J, 8)
            Local QTS poses (frames x characters leading dimensions).
        joints : (start, mid, end)
            Joint names or indices, each an ancestor of the next (not necessarily the parent).
        target, pole : array_like, (..., 3)
            Model-space target of the end joint and pole direction; broadcast with the poses.
        mid_axis, twist, soften, weight
            As :func:`skelsimd.ik_two_bone`: ``mid_axis=None`` (the choice for motion-capture
            clips) takes the mid joint's bend axis from each pose's chain
            (:func:`skelsimd.bend_axis`).
        return_reached : bool
            Also return the ``reached`` flags.

        Returns
        -------
        ndarray, float32 (..., J, 8) (and bool (...) with ``return_reached``)
            A new array: ``local`` with the two joints' rotations corrected.

        Examples
        --------
        >>> import numpy as np, skelsimd
        >>> leg = skelsimd.Skeleton([-1, 0, 1], names=["hip", "knee", "ankle"])
        >>> local = np.tile(np.float32([0, 0, 0, 1, 0, 0, 0, 1]), (3, 1))
        >>> local[1, 4:7] = [0, -0.5, 0.01]; local[2, 4:7] = [0, -0.5, -0.01]
        >>> fixed = leg.two_bone(local, ("hip", "knee", "ankle"), [0.2, -0.7, 0.1],
        ...                      pole=[0, 0, 1], mid_axis=[1, 0, 0])
        >>> g = skelsimd.qts_local_to_global_matrix(fixed, leg)
        >>> np.round(g[2, :, 3].astype(float), 4).tolist()
        [0.2, -0.7, 0.1]
        """
        return _ik.two_bone(self, local, joints, target, pole=pole, mid_axis=mid_axis, twist=twist,
                            soften=soften, weight=weight, return_reached=return_reached)

    def look_at(
        self,
        local: ArrayLike,
        chain: Sequence[_Joint],
        target: ArrayLike,
        weights: ArrayLike | None = None,
        *,
        forward: ArrayLike = (1, 0, 0),
        up: ArrayLike = (0, 1, 0),
        offset: ArrayLike = (0, 0, 0),
        pole: ArrayLike = (0, 1, 0),
        twist: ArrayLike = 0.0,
    ) -> Float32Array:
        """Aim a joint at a target with the rotation spread over a chain of its ancestors, as
        ozz-animation's look-at sample does with IKAimJob.

        The chain is walked from the aiming joint (``chain[0]``, e.g. the head) down its
        ancestors (``chain[1:]``, e.g. neck and spine joints, each an ancestor of the previous):
        each joint gets the aim correction of the first joint's forward axis and offset point
        as corrected so far, expressed in that joint's space, blended by its weight. With the
        last weight 1 the forward axis ends exactly on the target (ozz's sample uses 0.5 for
        every joint but the last). One forward-kinematics call and one kernel call for the
        whole chain and every character; corrections within [bound:ik.look_at] of the float64
        reference (``skelsimd.reference.ik.look_at``). A chain joint with a singular matrix (a
        zero scale) gets the identity, and so does every joint after it in the chain; a
        non-finite target or a zero ``forward`` leaves the pose as it is.

        Parameters
        ----------
        local : array_like, (..., J, 8)
        chain : sequence of joint names or indices
        target : array_like, (..., 3)
            Model space.
        weights : array_like, (len(chain),), optional
            Per-joint weights (default all 1: the first joint does all the work).
        forward, up, offset : array_like, (3,) or (..., 3)
            The first joint's aiming axis, up axis and eye offset in its own space.
        pole, twist
            As :func:`skelsimd.ik_aim`.

        Returns
        -------
        ndarray, float32 (..., J, 8)

        Examples
        --------
        >>> import numpy as np, skelsimd
        >>> neck = skelsimd.Skeleton([-1, 0, 1], names=["spine", "neck", "head"])
        >>> local = np.tile(np.float32([0, 0, 0, 1, 0, 0.3, 0, 1]), (3, 1))
        >>> posed = neck.look_at(local, ["head", "neck", "spine"], [1.0, 2.0, 1.0],
        ...                      weights=[0.5, 0.5, 1.0])
        >>> g = skelsimd.qts_local_to_global_matrix(posed, neck)
        >>> aim = g[2, :, 0]; to_target = np.float32([1, 2, 1]) - g[2, :, 3]
        >>> bool(np.allclose(aim, to_target / np.linalg.norm(to_target), atol=1e-5))
        True
        """
        return _ik.look_at(self, local, chain, target, weights, forward=forward, up=up,
                           offset=offset, pole=pole, twist=twist)

    def solve_chain(
        self,
        local: ArrayLike,
        chain: Sequence[_Joint],
        target: ArrayLike,
        *,
        iterations: int = 16,
        tolerance: float = 1e-3,
        return_error: bool = False,
    ) -> Any:
        """IK for a chain of any length by cyclic coordinate descent (CCD; ozz has no such job):
        each iteration turns every chain joint, from the end effector's parent up to the root,
        so that the end effector points at the target (one :func:`skelsimd.ik_aim` per joint,
        batched over all poses), until the end is within ``tolerance`` times the chain length
        of the target or ``iterations`` are done, or the chain has stopped moving (no pose's
        error improved by more than a few float32 roundings of the chain length in 8 iterations
        in a row). Bone lengths are kept (only rotations change); an unreachable target gives
        the chain stretched towards it.

        Parameters
        ----------
        local : array_like, (..., J, 8)
        chain : sequence of joint names or indices
            Root first, end effector last, each an ancestor of the next.
        target : array_like, (..., 3)
            Model space, finite (NaN or inf is a ValueError).
        iterations : int in [0, 10000]
            At most ``skelsimd.ik.MAX_CHAIN_ITERATIONS`` (10000; more is a ValueError), so no
            call runs unbounded.
        tolerance : float >= 0, finite
            Relative to the chain length (the sum of its joints' distances).
        return_error : bool
            Also return the end effector's distance to the target (float32, (...)).

        Returns
        -------
        ndarray, float32 (..., J, 8) (and the distances with ``return_error``)

        Examples
        --------
        >>> import numpy as np, skelsimd
        >>> arm = skelsimd.Skeleton([-1, 0, 1, 2])
        >>> local = np.tile(np.float32([0, 0, 0, 1, 1, 0, 0, 1]), (4, 1))   # along x
        >>> posed, err = arm.solve_chain(local, [0, 1, 2, 3], [1.0, 2.0, 0.5],
        ...                              iterations=64, tolerance=1e-5, return_error=True)
        >>> bool(err < 3e-5)
        True
        """
        return _ik.solve_chain(self, local, chain, target, iterations=iterations,
                               tolerance=tolerance, return_error=return_error)

    # --- pictures (skelsimd.plotting, imported when called: it needs matplotlib) ---------------

    @overload
    def plot(self, ax: None = None, *, labels: bool | None = None, view: _View | None = None,
             color: Any = "tab:blue") -> Figure: ...
    @overload
    def plot(self, ax: Axes, *, labels: bool | None = None, view: _View | None = None,
             color: Any = "tab:blue") -> Axes: ...
    def plot(
        self,
        ax: Axes | None = None,
        *,
        labels: bool | None = None,
        view: _View | None = None,
        color: Any = "tab:blue",
    ) -> Figure | Axes:
        """The rest pose as a stick figure (or the hierarchy as a tree without a rest pose);
        see :func:`skelsimd.plotting.plot_skeleton`."""
        from .plotting import plot_skeleton
        return plot_skeleton(self, ax, labels=labels, view=view, color=color)

    def _repr_html_(self) -> str:
        from .plotting import skeleton_html
        return skeleton_html(self)


# --- left/right names ----------------------------------------------------------------------------

def mirror_pairs(skeleton_or_names: Skeleton | Sequence[str]) -> list[tuple[int, int]]:
    """Left/right joint pairs found from the joint names, as a list of ``(left, right)`` index
    pairs (the joint whose name has Left / L / l first).

    A joint's counterpart is the first existing name among: ``Left`` <-> ``Right`` anywhere in
    the name (any case: ``LeftArm``, ``left_arm``, ``mixamorig:LeftArm``); a lone ``L`` / ``R``
    at the start or after a separator (``_ . - : |`` or a space) followed by the end, a
    separator, an uppercase letter or a digit (``LHipJoint``, ``L_Hip``, ``hip_l``,
    ``upper_arm.L``, ``Bip01 L Thigh``) or an uppercase ``L`` / ``R`` ending a camel-case name
    (``ThighL``); a lowercase ``l`` / ``r`` prefix of a lowercase name (``lhand`` / ``rhand``).
    Pairs must be mutual; joints without a counterpart (the spine, the head) are their own
    mirror.

    Examples
    --------
    >>> from skelsimd.skeleton import mirror_pairs
    >>> mirror_pairs(["Hips", "LeftFoot", "RightFoot", "l_hand", "r_hand"])
    [(1, 2), (3, 4)]
    """
    return _names.mirror_pairs(cast("Iterable[str]", getattr(skeleton_or_names, "names",
                                                            skeleton_or_names)))


fill_docstrings(globals())
