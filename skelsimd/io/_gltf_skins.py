"""The glTF node tree and skins: nodes read and checked (no cycles, one parent), a skin's
joints in depth-first order with the nodes between them folded (:class:`_FoldPlan`, built once
per skin; :class:`_Folding`, an animation's), the skinned mesh primitives, and the similarity
test and QTS conversion of folded matrices (see :mod:`skelsimd.io.gltf`)."""
from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Iterable, Protocol, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from .._rotation64 import matrix_to_quat
from ..skeleton import Skeleton
from .._influences import SKIN_MAX_INFLUENCES, largest_influences
from ._gltf_document import (
    Arr, F64, WEIGHT_TOLERANCE, _COMPONENTS, _Doc, _FLOAT32_MAX, _MAX_CHAIN_NODES, _NORM_SCALE,
    _PRIMITIVE_COST, _SKIN_COST, _TOLERANCE_FLOOR, _get_index, _get_int, _get_list,
    _get_numbers, _get_obj, _is_int)


# --- the result ------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class GltfSkin:
    """One skin: its joints as a skeleton (depth-first, names from the nodes made unique).

    Attributes
    ----------
    name : str
    skeleton : Skeleton
        The joints in depth-first order of the node tree; a joint's parent is its nearest
        ancestor node that is a joint of this skin. ``rest`` is the folded rest pose (QTS
        ``(J, 8)``, or matrices ``(J, 3, 4)`` where a scale is not uniform).
    nodes : ndarray of int, (J,)
        The glTF node index of each joint, in skeleton order.
    inverse_bind : ndarray, float32 (J, 3, 4)
        The inverse bind matrices, skeleton order (identity when the file has none).
    joints : ndarray of int, (J,)
        The skin's ``joints`` as listed in the file (``nodes == joints[perm]``).
    perm : ndarray of intp, (J,)
        Skeleton joint i is the file's joint ``perm[i]``.
    """
    name: str
    skeleton: Skeleton
    nodes: Arr
    inverse_bind: Arr
    joints: Arr
    perm: Arr
    chains: tuple[tuple[int, ...], ...] = dataclasses.field(repr=False, default=())
    plan: _FoldPlan | None = dataclasses.field(repr=False, default=None)

    def __repr__(self) -> str:
        return (f"GltfSkin({self.name!r:.40}, {_names(self.skeleton.names)}; inverse_bind "
                f"{self.inverse_bind.shape})")

    def _repr_html_(self) -> str:
        from ..plotting import gltf_skin_html
        return gltf_skin_html(self)


_M = TypeVar("_M", bound="_SkinnedMesh")


class _SkinnedMesh(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def joint_indices(self) -> Arr: ...
    @property
    def weights(self) -> Arr: ...


def _compact_influences(mesh: _M, max_influences: int) -> _M:
    """compact_influences of GltfMesh and UsdMesh (frozen dataclasses with name,
    joint_indices and weights): each vertex's ``max_influences`` largest weights, renormalised
    where a non-zero weight was cut, with a warning naming the mesh and the count."""
    if isinstance(max_influences, bool) or not isinstance(max_influences, int) \
            or max_influences < 1:
        raise ValueError(f"max_influences: expected an int >= 1, got {max_influences!r}")
    ji, w, cut = largest_influences(mesh.joint_indices, mesh.weights, max_influences)
    if cut:
        warnings.warn(f"{mesh.name}: {cut} of {len(w)} vertices have more than "
                      f"{max_influences} non-zero weights; kept the {max_influences} "
                      "largest, renormalised", UserWarning, stacklevel=3)
    out: _M = dataclasses.replace(cast(Any, mesh), joint_indices=ji, weights=w)
    return out


@dataclasses.dataclass(frozen=True)
class GltfMesh:
    """A skinned mesh primitive: exactly what :func:`skelsimd.skin` takes.

    Attributes
    ----------
    name : str
        ``"<mesh name>[<primitive>]"``.
    node, mesh, primitive : int
        The skinned node, its mesh and the primitive's index in it.
    skin : int
        Index of its skin in ``GltfAsset.skins``.
    positions : ndarray, float32 (V, 3)
    normals : ndarray, float32 (V, 3) or None
    triangles : ndarray, int32 (T, 3)
        Triangle strips and fans converted to triangles.
    joint_indices : ndarray, int32 (V, K)
        Skeleton order (not the file's ``skin.joints`` order); K = 4 per JOINTS_n set (8 or
        12 with two or three sets). ``skelsimd.skin`` takes up to 12: see
        :meth:`compact_influences` for more sets.
    weights : ndarray, float32 (V, K)
        Rows renormalised to sum to 1.
    uvs : ndarray, float32 (V, 2) or None
        The first texture coordinates (``TEXCOORD_0``, normalized integers decoded), as in the
        file (origin at the image's top left), or None.
    """
    name: str
    node: int
    mesh: int
    primitive: int
    skin: int
    positions: Arr
    normals: Arr | None
    triangles: Arr
    joint_indices: Arr
    weights: Arr
    uvs: Arr | None = None

    def __repr__(self) -> str:
        return (f"GltfMesh({self.name!r:.40}, {len(self.positions)} vertices, "
                f"{len(self.triangles)} triangles, {self.weights.shape[1]} influences, "
                f"skin {self.skin})")

    def _repr_html_(self) -> str:
        from ..plotting import gltf_mesh_html
        return gltf_mesh_html(self)

    def compact_influences(self, max_influences: int = SKIN_MAX_INFLUENCES) -> GltfMesh:
        """The mesh with at most ``max_influences`` columns of influences (default 12, what
        :func:`skelsimd.skin` takes): each vertex keeps its ``max_influences`` largest weights
        (ties: the first columns), in their order, moved first. Exact (the same skinned
        vertices) for a vertex with at most that many non-zero weights; one with more has its
        kept weights divided by their sum, with a warning naming the mesh and how many
        vertices.

        Examples
        --------
        >>> import skelsimd, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
        >>> _ = open(path, "wb").write(skelsimd.io.gltf.example_glb())
        >>> skelsimd.load_gltf(path).meshes[0].compact_influences(1).weights.shape
        (4, 1)
        """
        return _compact_influences(self, max_influences)


def _names(names: Any, what: str = "joints", shown: int = 4) -> str:
    """"N what: a, b, c, ..." with each name cut at 20 characters (one-line reprs)."""
    names = list(names)
    cut = [n if len(n) <= 20 else n[:19] + "\u2026" for n in names[:shown]]
    return f"{len(names)} {what}" + (": " + ", ".join(cut) if cut else "") + \
        (", ..." if len(names) > shown else "")


# --- nodes -----------------------------------------------------------------------------------------

def _trs_matrix(t: Any, q: Any, s: Any) -> F64:
    """4x4 float64 T R S of (..., 3), (..., 4) unit quaternion, (..., 3)."""
    x, y, z, w = np.moveaxis(q, -1, 0)
    m = np.zeros(q.shape[:-1] + (4, 4))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    m[..., :3, :3] *= s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def _unit(q: list[float], where: str) -> list[float]:
    n = math.sqrt(math.fsum(x * x for x in q))
    if n == 0 or not math.isfinite(n):
        raise ValueError(f"{where}: expected a unit quaternion, got {q!r:.60}")
    return [x / n for x in q]


class _Node:
    __slots__ = ("index", "name", "children", "matrix", "t", "r", "s", "mesh", "skin", "parent")
    index: int
    name: str
    children: list[int]
    matrix: F64 | None
    t: list[float]
    r: list[float]
    s: list[float]
    mesh: int | None
    skin: int | None
    parent: int


def _read_nodes(doc: _Doc) -> list[_Node]:
    nodes = []
    count = len(doc.nodes)
    identity_t, identity_r, identity_s = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0]
    for i, d in enumerate(doc.nodes):
        if type(d) is not dict:
            _get_obj(doc.nodes, i, "nodes")            # raises, naming the node
        n = _Node()
        n.index, n.parent = i, -1
        name = d.get("name")
        n.name = name if isinstance(name, str) and name else f"node{i}"
        kids = d.get("children", [])
        if type(kids) is not list or not all(type(c) is int and 0 <= c < count for c in kids):
            w = f"nodes[{i}]"
            for k, c in enumerate(_get_list(d, "children", w)):
                if not _is_int(c) or not 0 <= c < count:
                    raise ValueError(f"{w}.children[{k}]: {c!r:.40} is not a node index "
                                     f"(the file has {count} nodes)")
        n.children = kids
        n.matrix, n.t, n.r, n.s = None, identity_t, identity_r, identity_s
        if "matrix" in d:
            w = f"nodes[{i}]"
            m = np.array(_get_numbers(d, "matrix", w, 16, []))
            n.matrix = m.reshape(4, 4).T.copy()         # column-major in the file
            if np.abs(n.matrix[3] - [0, 0, 0, 1]).max() > 1e-6:
                raise ValueError(f"{w}.matrix: expected an affine matrix (last row 0 0 0 1), "
                                 f"got last row {n.matrix[3].tolist()}")
            if "translation" in d or "rotation" in d or "scale" in d:
                raise ValueError(f"{w}: has both matrix and translation/rotation/scale")
        elif "translation" in d or "rotation" in d or "scale" in d:
            w = f"nodes[{i}]"
            n.t = _get_numbers(d, "translation", w, 3, identity_t)
            n.r = (_unit(_get_numbers(d, "rotation", w, 4, []), f"{w}.rotation")
                   if "rotation" in d else identity_r)
            n.s = _get_numbers(d, "scale", w, 3, identity_s)
        n.mesh = (None if d.get("mesh") is None
                  else _get_index(d, "mesh", f"nodes[{i}]", len(doc.meshes), "meshes"))
        n.skin = (None if d.get("skin") is None
                  else _get_index(d, "skin", f"nodes[{i}]", len(doc.skins), "skins"))
        nodes.append(n)
    for n in nodes:
        for c in n.children:
            if nodes[c].parent >= 0:
                raise ValueError(f"nodes[{c}]: a child of nodes[{nodes[c].parent}] and of "
                                 f"nodes[{n.index}] (a node has at most one parent)")
            nodes[c].parent = n.index
    state = [0] * len(nodes)          # 0 unseen, 1 on this walk, 2 done
    for i in range(len(nodes)):
        walk, j = [], i
        while j >= 0 and state[j] == 0:
            state[j] = 1
            walk.append(j)
            j = nodes[j].parent
        if j >= 0 and state[j] == 1:
            cyc = walk[walk.index(j):]
            raise ValueError("nodes: a cycle of children: " +
                             " -> ".join(f"nodes[{k}]" for k in reversed(cyc + [j])))
        for k in walk:
            state[k] = 2
    # depth-first pre-order position and root of every node (scene roots in index order)
    doc.preorder = [0] * len(nodes)
    doc.root_of = [0] * len(nodes)
    position = 0
    for r in range(len(nodes)):
        if nodes[r].parent >= 0:
            continue
        stack = [r]
        while stack:
            k = stack.pop()
            doc.preorder[k] = position
            doc.root_of[k] = r
            position += 1
            stack.extend(reversed(nodes[k].children))
    return nodes


def _rest_matrix(node: _Node) -> F64:
    if node.matrix is not None:
        return node.matrix
    return _trs_matrix(np.array(node.t), np.array(node.r), np.array(node.s))


# --- skins -----------------------------------------------------------------------------------------

def _unique_names(names: Iterable[str]) -> list[str]:
    seen, out = set(), []
    for name in names:
        new, k = name, 1
        while new in seen:
            new = f"{name}.{k}"
            k += 1
        seen.add(new)
        out.append(new)
    return out


def _read_skin(doc: _Doc, nodes: list[_Node], s: int, tol: float) -> GltfSkin:
    w = f"skins[{s}]"
    doc.spend(_SKIN_COST, w)
    d = _get_obj(doc.skins, s, "skins")
    joints = _get_list(d, "joints", w)
    if not joints:
        raise ValueError(f"{w}.joints: expected at least one joint")
    seen: dict[int, int] = {}
    for k, j in enumerate(joints):
        if not _is_int(j) or not 0 <= j < len(nodes):
            raise ValueError(f"{w}.joints[{k}]: {j!r:.40} is not a node index")
        if j in seen:
            raise ValueError(f"{w}.joints[{k}]: nodes[{j}] is already joints[{seen[j]}]")
        seen[j] = k
    roots: dict[int, int] = {}
    for j in joints:
        roots.setdefault(doc.root_of[j], j)
    if len(roots) > 1:
        (ra, ja), (rb, jb) = list(roots.items())[:2]
        raise ValueError(f"{w}.joints: nodes[{ja}] and nodes[{jb}] have no common root "
                         f"(their roots are nodes[{ra}] and nodes[{rb}])")
    # depth-first order of the node tree; a joint's parent is its nearest joint ancestor and
    # its chain the nodes from there (exclusive; from the root for root joints) down to it
    order = sorted(joints, key=doc.preorder.__getitem__)
    index_of = {n: k for k, n in enumerate(order)}
    parents: list[int] = []
    chains: list[tuple[int, ...]] = []
    for n in order:
        walk = [n]
        p = nodes[n].parent
        while p >= 0 and p not in index_of:
            walk.append(p)
            p = nodes[p].parent
        doc.chain_nodes += len(walk)
        if doc.chain_nodes > _MAX_CHAIN_NODES:
            raise ValueError(f"{w}: the joints' folded node chains exceed {_MAX_CHAIN_NODES} "
                             "nodes in all (a node tree too deep)")
        parents.append(index_of[p] if p >= 0 else -1)
        chains.append(tuple(reversed(walk)))
    perm = np.array([seen[n] for n in order], dtype=np.intp)
    names = _unique_names([nodes[n].name for n in order])
    ibm_index = _get_index(d, "inverseBindMatrices", w, len(doc.accessors), "accessors")
    if ibm_index is None:
        ibm = np.tile(np.eye(4)[:3], (len(joints), 1, 1))
    else:
        a = doc.floats(ibm_index, f"{w}.inverseBindMatrices", {5126}, ("MAT4",), bounded=True)
        if len(a) < len(joints):
            raise ValueError(f"{w}.inverseBindMatrices: accessors[{ibm_index}] has {len(a)} "
                             f"matrices for {len(joints)} joints")
        full = a[:len(joints)].reshape(-1, 4, 4).transpose(0, 2, 1)
        off = np.abs(full[:, 3] - [0, 0, 0, 1]).max(axis=1)
        if (off > 1e-5).any():
            k = int(np.argmax(off > 1e-5))
            raise ValueError(f"{w}.inverseBindMatrices: accessors[{ibm_index}] matrix {k} is "
                             f"not affine (last row {full[k, 3].tolist()})")
        ibm = full[:, :3]
    ibm = ibm[perm].astype(np.float32)
    plan = _FoldPlan(nodes, chains)
    rest = plan.rest
    if not (np.abs(rest) <= _FLOAT32_MAX).all():
        raise ValueError(f"{w}: the joints' rest matrices go beyond the float32 range")
    ok = _similar(rest[:, :3, :3], tol)
    rest_arg = (_to_qts(rest) if ok.all() else rest[:, :3, :].astype(np.float32))
    name = d.get("name")
    skeleton = Skeleton(np.array(parents, dtype=np.int32), names, rest=rest_arg)
    return GltfSkin(name=name if isinstance(name, str) else f"skin{s}", skeleton=skeleton,
                    nodes=np.array(order, dtype=np.intp), inverse_bind=ibm,
                    joints=np.array(joints, dtype=np.intp), perm=perm, chains=tuple(chains),
                    plan=plan)


class _FoldPlan:
    """How a skin's folded local matrices are evaluated, built once per skin.

    The joints' chains (root-most node first, the joint last) are laid end to end in ``flat``
    (columns: ``index`` maps node indices to them; ``rest_local`` holds their rest matrices).
    Products of a run of a chain's rest matrices come from a segment tree over ``flat`` (built
    on first use: O(log L) matrix products per run, vectorized over runs), so an animation's
    folding costs in proportion to the occurrences of the nodes it animates, never to the
    chains' lengths. ``fold_plan(animated)`` gives an animation's :class:`_Folding`."""

    def __init__(self, nodes: list[_Node], chains: list[tuple[int, ...]]) -> None:
        used = sorted({n for c in chains for n in c})
        self.index = {n: k for k, n in enumerate(used)}
        self.nodes = np.array(used, dtype=np.intp)
        self.t = np.array([nodes[n].t for n in used], dtype=np.float64).reshape(len(used), 3)
        self.r = np.array([nodes[n].r for n in used], dtype=np.float64).reshape(len(used), 4)
        self.s = np.array([nodes[n].s for n in used], dtype=np.float64).reshape(len(used), 3)
        self.rest_local = _trs_matrix(self.t, self.r, self.s)
        for k, n in enumerate(used):
            m = nodes[n].matrix
            if m is not None:
                self.rest_local[k] = m
        lens = np.array([len(c) for c in chains], dtype=np.intp)
        self.lengths = lens
        self.start = np.concatenate([[0], np.cumsum(lens)]).astype(np.intp)
        self.flat = np.array([self.index[n] for c in chains for n in c], dtype=np.intp)
        self.joint_of = np.repeat(np.arange(len(chains), dtype=np.intp), lens)
        order = np.argsort(self.flat, kind="stable")
        self.occ_pos = order.astype(np.intp)
        self.occ_start = np.searchsorted(self.flat[order], np.arange(len(used) + 1)).astype(np.intp)
        self._tree: F64 | None = None
        self.rest_similar: dict[float, bool] = {}   # tolerance -> the rest pose is QTS-exact
        self.rest = self.products(self.start[:-1], self.start[1:])

    def occurrences(self, node: int) -> int:
        """How many chains hold the node (0 when none)."""
        k = self.index.get(node)
        return 0 if k is None else int(self.occ_start[k + 1] - self.occ_start[k])

    def products(self, lo: Arr, hi: Arr) -> F64:
        """The products (Q, 4, 4) of the rest matrices of flat[lo:hi] (identity when empty)."""
        lo, hi = np.asarray(lo, dtype=np.intp), np.asarray(hi, dtype=np.intp)
        out = np.broadcast_to(np.eye(4), (len(lo), 4, 4)).copy()
        single = hi - lo == 1
        out[single] = self.rest_local[self.flat[lo[single]]]
        many = hi - lo > 1
        if many.any():
            out[many] = self._tree_products(lo[many], hi[many])
        return out

    def _tree_products(self, lo: Arr, hi: Arr) -> F64:
        size = 1
        while size < len(self.flat):
            size *= 2
        if self._tree is None:
            tree = np.broadcast_to(np.eye(4), (2 * size, 4, 4)).copy()
            tree[size:size + len(self.flat)] = self.rest_local[self.flat]
            level = size // 2
            while level >= 1:
                k = np.arange(level, 2 * level)
                tree[k] = tree[2 * k] @ tree[2 * k + 1]
                level //= 2
            self._tree = tree
        tree = self._tree
        left = np.broadcast_to(np.eye(4), (len(lo), 4, 4)).copy()
        right = left.copy()
        lo, hi = lo + size, hi + size
        while True:
            live = lo < hi
            if not live.any():
                break
            m = live & (lo % 2 == 1)
            left[m] = left[m] @ tree[lo[m]]
            lo = lo + m
            m = live & (hi % 2 == 1)
            hi = hi - m
            right[m] = tree[hi[m]] @ right[m]
            lo, hi = lo // 2, hi // 2
        out: F64 = left @ right
        return out

    def folding(self, animated: Iterable[int]) -> _Folding:
        """The folding of an animation whose TRS channels move the nodes `animated`."""
        return _Folding(self, sorted(self.index[n] for n in animated if n in self.index))


class _Folding:
    """One animation's folding of one skin. Joints split into three kinds:

    * static: nothing in the chain is animated: the folded rest matrix;
    * direct: the chain is the joint alone and it is animated: its sampled T, R, S;
    * folded: a longer chain with animated nodes: ``C_0 A_1(t) C_1 ... A_m(t) C_m``, the
      constant runs ``C`` computed once here, the animated locals ``A`` per frame, the product
      reduced pairwise (log2 m batched steps)."""

    def __init__(self, plan: _FoldPlan, cols: list[int]) -> None:
        self.plan = plan
        self.cols = np.array(cols, dtype=np.intp)               # animated columns, sampled order
        colpos = np.full(len(plan.rest_local), -1, dtype=np.intp)
        colpos[self.cols] = np.arange(len(self.cols))
        counts = plan.occ_start[self.cols + 1] - plan.occ_start[self.cols]
        first = np.repeat(plan.occ_start[self.cols], counts)
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        pos = np.sort(plan.occ_pos[first + within])
        joint = plan.joint_of[pos]
        single = plan.lengths[joint] == 1
        self.direct = joint[single]
        self.direct_col = colpos[plan.flat[pos[single]]]
        pos, joint = pos[~single], joint[~single]
        self.folded, first_of = np.unique(joint, return_index=True)
        J = len(plan.lengths)
        kind = np.zeros(J, dtype=np.int8)
        kind[self.direct] = 1
        kind[self.folded] = 2
        self.static = np.flatnonzero(kind == 0)
        self.occurrences = len(pos) + len(self.direct)
        # constant run before each animated occurrence, and after the last one of each joint
        new_joint = np.ones(len(pos), dtype=bool)
        new_joint[1:] = joint[1:] != joint[:-1]
        lo = np.where(new_joint, plan.start[joint], np.concatenate([[0], pos[:-1] + 1]))
        self.before = plan.products(lo, pos)
        ends = np.append(first_of[1:], len(pos)).astype(np.intp) if len(pos) else first_of
        self.after = plan.products(pos[ends - 1] + 1, plan.start[self.folded + 1])
        self.occ_col = colpos[plan.flat[pos]]
        self.counts = ends - first_of

    def fold(self, local: F64) -> F64:
        """Folded local matrices (n, len(folded), 4, 4) from the animated columns' local
        matrices (n, len(cols), 4, 4)."""
        cur = self.before[None] @ local[:, self.occ_col]
        counts = self.counts
        while len(counts) and counts.max() > 1:
            halves = (counts + 1) // 2
            starts = np.cumsum(counts) - counts
            k = np.arange(int(halves.sum())) - np.repeat(np.cumsum(halves) - halves, halves)
            left = np.repeat(starts, halves) + 2 * k
            pair = 2 * k + 1 < np.repeat(counts, halves)
            nxt = cur[:, left]
            nxt[:, pair] = nxt[:, pair] @ cur[:, left[pair] + 1]
            cur, counts = nxt, halves
        out: F64 = cur @ self.after[None]
        return out


# --- meshes ----------------------------------------------------------------------------------------

def _triangles(idx: Arr, mode: int, where: str) -> Arr:
    n = len(idx)
    if mode == 4:
        if n % 3:
            raise ValueError(f"{where}: {n} indices for triangles, not a multiple of 3")
        return idx.reshape(-1, 3)
    if n < 3:
        return np.zeros((0, 3), dtype=idx.dtype)
    i = np.arange(n - 2)
    if mode == 5:       # strip: (i, i + 1 + i%2, i + 2 - i%2)
        return np.stack([idx[i], idx[i + 1 + i % 2], idx[i + 2 - i % 2]], axis=1)
    return np.stack([idx[i + 1], idx[i + 2], np.broadcast_to(idx[0], i.shape)], axis=1)  # fan


def _read_meshes(doc: _Doc, nodes: list[_Node], skins: list[GltfSkin]) -> list[GltfMesh]:
    out = []
    inverse_perms: dict[int, Arr] = {}
    for node in nodes:
        if node.mesh is None or node.skin is None:
            continue
        m = node.mesh
        mesh = _get_obj(doc.meshes, m, "meshes")
        mname = mesh.get("name") if isinstance(mesh.get("name"), str) else f"mesh{m}"
        sk = skins[node.skin]
        if node.skin not in inverse_perms:
            inverse_perms[node.skin] = np.empty(len(sk.perm), dtype=np.int32)
            inverse_perms[node.skin][sk.perm] = np.arange(len(sk.perm), dtype=np.int32)
        inverse_perm = inverse_perms[node.skin]
        for p, prim in enumerate(_get_list(mesh, "primitives", f"meshes[{m}]")):
            w = f"meshes[{m}].primitives[{p}]"
            doc.spend(_PRIMITIVE_COST, w)      # nodes sharing a mesh: each visit counts
            if not isinstance(prim, dict):
                raise ValueError(f"{w}: expected a JSON object")
            mode = _get_int(prim, "mode", w, 0, 6, default=4)
            if mode < 4:
                warnings.warn(f"{w} ({mname!r}): mode {mode} (points or lines) skipped, only "
                              "triangles are read", stacklevel=3)
                continue
            attrs = prim.get("attributes")
            if not isinstance(attrs, dict):
                raise ValueError(f"{w}.attributes: expected a JSON object")

            def attr(key: str, allowed: set[int], types: tuple[str, ...]) -> F64 | None:
                i = _get_index(attrs, key, f"{w}.attributes", len(doc.accessors), "accessors")
                if i is None:
                    return None
                return doc.floats(i, f"{w}.attributes.{key}", allowed, types)

            def need(key: str, allowed: set[int], types: tuple[str, ...]) -> F64:
                a = attr(key, allowed, types)
                if a is None:
                    raise ValueError(f"{w}.attributes.{key}: required, missing")
                return a

            pos = need("POSITION", set(_COMPONENTS), ("VEC3",))
            V = len(pos)
            normals = attr("NORMAL", {5120, 5122, 5126}, ("VEC3",))
            uvs = attr("TEXCOORD_0", {5120, 5121, 5122, 5123, 5126}, ("VEC2",))
            sets_j: list[F64] = []
            sets_w: list[F64] = []
            k = 0
            while f"JOINTS_{k}" in attrs or f"WEIGHTS_{k}" in attrs:
                jn = need(f"JOINTS_{k}", {5121, 5123}, ("VEC4",))
                wt = need(f"WEIGHTS_{k}", {5121, 5123, 5126}, ("VEC4",))
                sets_j.append(jn)
                sets_w.append(wt)
                k += 1
            if not sets_j:
                warnings.warn(f"{w} ({mname!r}): on a skinned node but without JOINTS_0/"
                              "WEIGHTS_0; skipped", stacklevel=3)
                continue
            for key, a in [("NORMAL", normals), ("TEXCOORD_0", uvs)] + [(f"JOINTS_{i}", a) for i, a in
                                                    enumerate(sets_j)] + \
                    [(f"WEIGHTS_{i}", a) for i, a in enumerate(sets_w)]:
                if a is not None and len(a) != V:
                    raise ValueError(f"{w}.attributes.{key}: {len(a)} elements, POSITION has {V}")
            ji = np.concatenate(sets_j, axis=1)
            wts = np.concatenate(sets_w, axis=1)
            for i in range(len(sets_j)):
                if doc.accessors[attrs[f"JOINTS_{i}"]].get("normalized", False) is True:
                    raise ValueError(f"{w}.attributes.JOINTS_{i}: joint indices must not be "
                                     "normalized")
            if ji.size and ji.max() >= len(sk.perm):
                v, c = np.argwhere(ji >= len(sk.perm))[0]
                raise ValueError(f"{w}.attributes.JOINTS_{c // 4}: vertex {v} has joint "
                                 f"{int(ji[v, c])}, the skin has {len(sk.perm)} joints")
            if (wts < 0).any():
                v, c = np.argwhere(wts < 0)[0]
                raise ValueError(f"{w}.attributes.WEIGHTS_{c // 4}: vertex {v} has a negative "
                                 f"weight {wts[v, c]}")
            quantum = 0.0
            for i in range(len(sets_w)):
                ct = doc.accessors[attrs[f"WEIGHTS_{i}"]]["componentType"]
                if ct != 5126:
                    quantum = max(quantum, 0.5 / _NORM_SCALE[ct])
            wts, bad = _normalize(wts, WEIGHT_TOLERANCE + quantum * wts.shape[1])
            if bad:
                warnings.warn(f"{w} ({mname!r}): {bad} of {V} vertices have weights whose sum "
                              f"differs from 1 by more than the tolerance; renormalised",
                              stacklevel=3)
            jidx: Arr = inverse_perm[ji.astype(np.intp)]
            idx_i = _get_index(prim, "indices", w, len(doc.accessors), "accessors")
            if idx_i is None:
                idx = np.arange(V, dtype=np.int64)
            else:
                a = doc.accessor(idx_i, f"{w}.indices")
                acc = doc.accessors[idx_i]
                if acc["type"] != "SCALAR" or acc["componentType"] not in (5121, 5123, 5125):
                    raise ValueError(f"{w}.indices: accessors[{idx_i}] must be SCALAR unsigned "
                                     "integers")
                idx = a[:, 0].astype(np.int64)
                if idx.size and int(idx.max()) >= V:
                    k = int(np.argmax(idx >= V))
                    raise ValueError(f"{w}.indices: index {int(idx[k])} at position {k} exceeds "
                                     f"the vertex count {V}")
            tri = _triangles(idx, mode, f"{w}.indices").astype(np.int32)
            out.append(GltfMesh(
                name=f"{mname}[{p}]", node=node.index, mesh=m, primitive=p, skin=node.skin,
                positions=pos.astype(np.float32),
                normals=None if normals is None else normals.astype(np.float32),
                triangles=np.ascontiguousarray(tri), joint_indices=np.ascontiguousarray(jidx),
                weights=np.ascontiguousarray(wts, dtype=np.float32),
                uvs=None if uvs is None else uvs.astype(np.float32)))
    return out


def _normalize(w: F64, tol: float) -> tuple[F64, int]:
    """Rows divided by their sums (float64, rounded once); zero rows get 1 on the first
    influence. Returns (weights, number of rows off by more than tol)."""
    s = w.sum(axis=1)
    bad = int(np.count_nonzero(np.abs(s - 1.0) > tol))
    zero = s == 0
    w = w.copy()
    w[zero, 0] = 1.0
    s[zero] = 1.0
    return w / s[:, None], bad


def _axis_scales(a: F64) -> F64:
    """The axis scales (column lengths) (..., 3) of 3x3 matrices a."""
    out: F64 = np.sqrt((a * a).sum(axis=-2))
    return out


def _similar(a: F64, tol: float) -> NDArray[np.bool_]:
    """Whether 3x3 matrices a (...) are similarities within the relative tolerance tol: axis
    scales spread by at most tol times their mean, every pair of axes orthogonal within tol
    (|cos| <= tol); a zero matrix is one (scale 0)."""
    tol = max(tol, _TOLERANCE_FLOOR)
    s = _axis_scales(a)
    mean = s.mean(axis=-1)
    spread = s.max(axis=-1) - s.min(axis=-1)
    unit = a / np.where(s == 0, 1.0, s)[..., None, :]
    g = np.swapaxes(unit, -1, -2) @ unit
    cos = np.abs(g - np.eye(3) * np.diagonal(g, axis1=-2, axis2=-1)[..., None, :])
    shear = cos.max(axis=(-2, -1))
    zero = (s == 0).all(axis=-1)
    ok: NDArray[np.bool_] = zero | ((spread <= tol * mean) & (shear <= tol) & (s > 0).all(axis=-1))
    return ok


def _to_qts(m: F64) -> NDArray[np.float32]:
    """QTS float32 (..., 8) of similarity matrices (..., 4, 4) float64 (within a tolerance:
    the scale is the mean of the axis scales, the rotation that of the normalised axes, by
    Shepperd's method, which projects a near-rotation onto a unit quaternion)."""
    a = m[..., :3, :3]
    axes = _axis_scales(a)
    sign = np.where(np.linalg.det(a) < 0, -1.0, 1.0)
    s = sign * axes.mean(axis=-1)
    r = a / np.where(axes == 0, 1.0, sign[..., None] * axes)[..., None, :]
    r = np.where((axes == 0).any(axis=-1)[..., None, None], np.eye(3), r)
    q = matrix_to_quat(r)
    return np.concatenate([q, m[..., :3, 3], s[..., None]], axis=-1).astype(np.float32)


