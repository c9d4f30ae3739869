"""Test and benchmark data: random rotations, joint matrices and hierarchies, and a realistic
96-joint game skeleton. Shared by the test suite, the benchmarks and users' own property tests."""
from __future__ import annotations
import numpy as np

from ._grid import grid_positions
from ._rotation64 import quat_to_matrix
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Iterable
    from ._typing import _Shape
    from typing import Any, Literal
    import numpy
    from numpy.typing import ArrayLike, DTypeLike, NDArray
    from ._typing import Float32Array, Float64Array, Int32Array

    _Node = tuple[str, list["_Node"]]   # (name, children) of the humanoid tree

__all__ = [
    "random_quaternions",
    "quaternions_to_matrices",
    "random_joints",
    "random_parents",
    "chain_parents",
    "humanoid_skeleton",
    "depths",
    "random_mat4",
    "random_mesh",
    "random_qts",
    "perturbed_quaternions",
    "special_quaternion_pairs",
    "random_motion",
]


def _dims(shape: _Shape) -> tuple[int, ...]:
    """A shape argument as a tuple (an int or NumPy integer is a 1-D shape)."""
    return (cast(int, shape),) if np.isscalar(shape) else tuple(cast("Iterable[int]", shape))


def random_quaternions(shape: _Shape, rng: np.random.Generator) -> Float64Array:
    """Uniformly distributed unit quaternions (x, y, z, w), float64, shape ``(*shape, 4)``."""
    shape = _dims(shape)
    q = rng.standard_normal(shape + (4,))
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    n[n == 0] = 1.0
    unit: Float64Array = q / n
    return unit


def quaternions_to_matrices(q: ArrayLike) -> Float64Array:
    """Rotation matrices (..., 3, 3) float64 of unit quaternions (x, y, z, w)."""
    return quat_to_matrix(q)


def random_joints(
    shape: _Shape,
    rng: np.random.Generator,
    *,
    translation: float = 1.0,
    scale: tuple[float, float] | None = None,
    shear: float = 0.0,
    dtype: DTypeLike = np.float32,
) -> NDArray[Any]:
    """Joint matrices ``(*shape, 3, 4)``: a uniformly random rotation (from a unit quaternion), a
    translation uniform in [-translation, translation]^3, optionally multiplied on the right by
    a per-axis scale drawn uniformly from `scale` = (lo, hi) and a random shear of size `shear`."""
    shape = _dims(shape)
    r = quaternions_to_matrices(random_quaternions(shape, rng))
    if scale is not None:
        s = rng.uniform(scale[0], scale[1], size=shape + (3,))
        r = r * s[..., None, :]
    if shear:
        sh = np.eye(3) + np.triu(rng.uniform(-shear, shear, size=shape + (3, 3)), 1)
        r = r @ sh
    t = rng.uniform(-translation, translation, size=shape + (3,))
    m = np.concatenate([r, t[..., None]], axis=-1)
    return m.astype(dtype)


def random_parents(
    n: int, rng: np.random.Generator, *, root_probability: float = 0.05, chain_probability: float = 0.5
) -> Int32Array:
    """A random valid hierarchy of n joints (parents[j] < j): joint 0 is a root, later joints
    are roots with `root_probability`, continue the chain (parent j - 1) with
    `chain_probability`, else hang below a uniformly chosen earlier joint."""
    parents = np.empty(n, dtype=np.int32)
    for j in range(n):
        u = rng.random()
        if j == 0 or u < root_probability:
            parents[j] = -1
        elif u < root_probability + chain_probability:
            parents[j] = j - 1
        else:
            parents[j] = rng.integers(0, j)
    return parents


def chain_parents(n: int) -> Int32Array:
    """A single chain: parents[j] = j - 1 (the deepest hierarchy of n joints)."""
    return np.arange(-1, n - 1, dtype=np.int32)


def depths(parents: ArrayLike) -> Int32Array:
    """Depth of every joint (roots 0)."""
    parents = np.asarray(parents)
    d = np.zeros(len(parents), dtype=np.int32)
    for j, p in enumerate(parents):
        d[j] = 0 if p < 0 else d[p] + 1
    return d


def _humanoid_tree() -> _Node:
    def chain(names: list[str]) -> _Node:
        node: _Node = (names[-1], [])
        for name in reversed(names[:-1]):
            node = (name, [node])
        return node

    def hand(side: str) -> _Node:
        fingers = [chain([f"{f}_metacarpal_{side}", f"{f}_01_{side}", f"{f}_02_{side}", f"{f}_03_{side}"])
                   for f in ("index", "middle", "ring", "pinky")]
        fingers.insert(0, chain([f"thumb_01_{side}", f"thumb_02_{side}", f"thumb_03_{side}"]))
        return (f"hand_{side}", fingers)

    def arm(side: str) -> _Node:
        return (f"clavicle_{side}", [
            (f"upperarm_{side}", [
                (f"lowerarm_{side}", [hand(side), (f"lowerarm_twist_{side}", [])]),
                (f"upperarm_twist_{side}", []),
            ])
        ])

    def leg(side: str) -> _Node:
        return (f"thigh_{side}", [
            (f"calf_{side}", [
                (f"foot_{side}", [(f"ball_{side}", [(f"toe_{side}", [])])]),
                (f"calf_twist_{side}", []),
            ]),
            (f"thigh_twist_{side}", []),
        ])

    face: list[_Node] = [
        ("jaw", [("lip_lower", []), chain(["tongue_01", "tongue_02"])]),
        ("eye_l", []), ("eye_r", []), ("brow_l", []), ("brow_r", []), ("lip_upper", []),
        ("cheek_l", []), ("cheek_r", []),
        chain(["ponytail_01", "ponytail_02", "ponytail_03"]),
    ]
    head = ("neck_01", [("neck_02", [("head", face)])])
    spine_top = ("spine_05", [head, arm("l"), arm("r"), chain(["cape_01", "cape_02", "cape_03"])])
    spine = chain(["spine_01", "spine_02", "spine_03", "spine_04"])
    # hang spine_top below spine_04
    node = spine
    while node[1]:
        node = node[1][0]
    node[1].append(spine_top)
    pelvis = ("pelvis", [spine, leg("l"), leg("r")])
    ik: list[_Node] = [("ik_foot_root", [("ik_foot_l", []), ("ik_foot_r", [])]),
          ("ik_hand_root", [("ik_hand_gun", [])])]
    return ("root", [pelvis] + ik)


def humanoid_skeleton() -> tuple[Int32Array, list[str]]:
    """A 96-joint game character (root, pelvis, five spine joints, two neck joints, head with face joints,
    arms with twist joints and four-joint fingers, legs, IK helpers, cape and ponytail chains),
    flattened depth-first. Returns (parents int32 (96,), names list)."""
    parents: list[int] = []
    names: list[str] = []

    def visit(node: _Node, parent: int) -> None:
        name, children = node
        index = len(names)
        names.append(name)
        parents.append(parent)
        for child in children:
            visit(child, index)

    visit(_humanoid_tree(), -1)
    return np.asarray(parents, dtype=np.int32), names


def random_mat4(
    shape: _Shape,
    rng: np.random.Generator,
    *,
    translation: float = 1.0,
    projective: float = 0.0,
    dtype: DTypeLike = np.float32,
) -> NDArray[Any]:
    """4x4 matrices ``(*shape, 4, 4)``: random_joints completed with the last row (0, 0, 0, 1); with
    `projective` > 0 the last row becomes (u, u, u, 1 + u') with u, u' uniform in
    [-projective, projective] (a projective transform)."""
    shape = _dims(shape)
    m = np.zeros(shape + (4, 4))
    m[..., :3, :] = random_joints(shape, rng, translation=translation, dtype=np.float64)
    m[..., 3, 3] = 1.0
    if projective:
        m[..., 3, :] += rng.uniform(-projective, projective, size=shape + (4,))
    return m.astype(dtype)


def random_mesh(
    vertices: int,
    influences: int,
    joints: int,
    rng: np.random.Generator,
    *,
    zero_weights: float = 0.0,
    repeat_indices: float = 0.0,
) -> tuple[Float32Array, Float32Array, Int32Array, Float32Array]:
    """A random skinned mesh: positions (V, 3) uniform in [-1, 1], unit normals (V, 3), joint
    indices (V, K) int32 in [0, joints) and weights (V, K) float32 summing to 1 per vertex. A
    fraction `zero_weights` of the weights is zero (every vertex keeps one non-zero) and a
    fraction `repeat_indices` of the indices repeats the vertex's first one.
    Returns (positions, normals, joint_indices, weights)."""
    positions = rng.uniform(-1.0, 1.0, size=(vertices, 3)).astype(np.float32)
    normals = rng.standard_normal((vertices, 3))
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    indices = rng.integers(0, joints, size=(vertices, influences)).astype(np.int32)
    if repeat_indices and influences > 1:
        rep = rng.random((vertices, influences)) < repeat_indices
        rep[:, 0] = False
        indices[rep] = np.broadcast_to(indices[:, :1], indices.shape)[rep]
    weights = rng.random((vertices, influences))
    if zero_weights:
        zero = rng.random((vertices, influences)) < zero_weights
        zero[np.arange(vertices), rng.integers(0, influences, vertices)] = False
        weights[zero] = 0.0
    weights /= weights.sum(axis=1, keepdims=True)
    return positions, normals.astype(np.float32), indices, weights.astype(np.float32)


def random_qts(
    shape: _Shape,
    rng: np.random.Generator,
    *,
    translation: float = 1.0,
    scale: tuple[float, float] | None = None,
    dtype: DTypeLike = np.float32,
) -> NDArray[Any]:
    """QTS joints ``(*shape, 8)`` = (qx, qy, qz, qw, tx, ty, tz, s): uniformly random unit quaternions,
    translations uniform in [-translation, translation]^3, and uniform scales drawn from
    `scale` = (lo, hi) (1 when None)."""
    shape = _dims(shape)
    x = np.empty(shape + (8,))
    x[..., :4] = random_quaternions(shape, rng)
    x[..., 4:7] = rng.uniform(-translation, translation, size=shape + (3,))
    x[..., 7] = 1.0 if scale is None else rng.uniform(scale[0], scale[1], size=shape)
    return x.astype(dtype)


def perturbed_quaternions(q: ArrayLike, angle: float | ArrayLike, rng: np.random.Generator) -> Float64Array:
    """Unit quaternions (float64) a random rotation of about `angle` radians (scalar or array
    broadcasting with q[..., 0]) away from the unit quaternions q: near-parallel pairs."""
    q = np.asarray(q, dtype=np.float64)
    axis = rng.standard_normal(q.shape[:-1] + (3,))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    half = np.broadcast_to(0.5 * np.asarray(angle, dtype=np.float64), q.shape[:-1])[..., None]
    d = np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)
    x, y, z, w = np.moveaxis(q, -1, 0)
    dx, dy, dz, dw = np.moveaxis(np.broadcast_to(d, q.shape), -1, 0)
    r = np.stack([dw * x + dx * w + dy * z - dz * y, dw * y - dx * z + dy * w + dz * x,
                  dw * z + dx * y - dy * x + dz * w, dw * w - dx * x - dy * y - dz * z], axis=-1)
    unit: Float64Array = r / np.linalg.norm(r, axis=-1, keepdims=True)
    return unit


def special_quaternion_pairs(
    n: int, rng: np.random.Generator, dtype: DTypeLike = np.float32
) -> tuple[NDArray[Any], NDArray[Any]]:
    """(q0, q1) float arrays (n, 4) mixing the pairs interpolation finds hard: random, identical,
    antipodal (q1 = -q0), near-parallel and near-antipodal (angles from 1e-7 to 1e-2 radians,
    ``|dot| > 0.9999``), orthogonal (dot = 0 up to rounding) and the identity with itself."""
    q0 = random_quaternions(n, rng)
    kind = rng.integers(0, 7, size=n)
    q1 = random_quaternions(n, rng)
    angle = 10.0 ** rng.uniform(-7, -2, size=n)
    near = perturbed_quaternions(q0, angle, rng)
    q1 = np.where((kind == 1)[:, None], q0, q1)
    q1 = np.where((kind == 2)[:, None], -q0, q1)
    q1 = np.where((kind == 3)[:, None], near, q1)
    q1 = np.where((kind == 4)[:, None], -near, q1)
    ortho = np.stack([-q0[:, 1], q0[:, 0], -q0[:, 3], q0[:, 2]], axis=-1)
    q1 = np.where((kind == 5)[:, None], ortho, q1)
    ident = np.array([0.0, 0.0, 0.0, 1.0])
    q0 = np.where((kind == 6)[:, None], ident, q0)
    q1 = np.where((kind == 6)[:, None], ident, q1)
    q0, q1 = q0.astype(dtype), q1.astype(dtype)
    q1[kind == 1] = q0[kind == 1]          # identical after rounding too
    q1[kind == 2] = -q0[kind == 2]
    return q0, q1


def perturbed_grid(
    rows: int,
    cols: int,
    rng: np.random.Generator,
    *,
    spacing: float = 1.0,
    noise: float = 0.05,
    topology: Literal["plane", "cylinder", "torus"] | str = "plane",
) -> Float32Array:
    """Positions float32 (3, rows, cols) of a Surface grid (flat plane at y = 0, or a cylinder
    around the y axis) with independent Gaussian noise of standard deviation ``noise * spacing``
    on every coordinate."""
    xyz = grid_positions(rows, cols, spacing, topology).astype(np.float64)
    xyz += rng.normal(0.0, noise * spacing, xyz.shape)
    return xyz.astype(np.float32)


def random_motion(
    frames: int,
    parents: ArrayLike,
    rng: np.random.Generator,
    *,
    translation: float = 10.0,
    root_travel: float = 0.0,
    noise: float = 0.0,
    static: float = 0.0,
    spin: bool = False,
    scales: bool = False,
    dtype: DTypeLike = np.float32,
) -> NDArray[Any]:
    """A smooth random clip of QTS local poses (frames, J, 8), like motion capture: each joint
    rotates about a random rest orientation by a few sine waves (some joints not at all, some
    constant), bones have random lengths up to `translation`, roots travel up to `root_travel`
    along a smooth path (and spin about their vertical axis with `spin`), `noise` adds jitter
    (radians and units), `static` is the fraction of the clip held still in one stretch, and
    `scales` gives some joints constant or animated uniform scales."""
    parents = np.asarray(parents)
    joints = len(parents)
    t = np.arange(frames) / 30.0
    q = np.empty((frames, joints, 4))
    local = np.empty((frames, joints, 8))
    for j in range(joints):
        kind = rng.integers(0, 6)
        base = random_quaternions((), rng)
        if kind == 0:
            base = np.array([0.0, 0.0, 0.0, 1.0])
        angle = np.zeros(frames)
        axis = rng.standard_normal(3)
        if kind >= 2:
            for _ in range(rng.integers(1, 4)):
                angle += rng.uniform(0.02, 1.2) * np.sin(rng.uniform(0.2, 8.0) * t + rng.uniform(0, 6.3))
        if spin and parents[j] < 0:
            axis = np.array([0.0, 1.0, 0.0])
            angle += rng.uniform(-4.0, 4.0) * t
        if noise and kind >= 2:
            angle += rng.normal(0.0, noise, frames)
        axis /= np.linalg.norm(axis)
        d = np.concatenate([np.sin(0.5 * angle)[:, None] * axis, np.cos(0.5 * angle)[:, None]], 1)
        x, y, z, w = base
        dx, dy, dz, dw = d.T
        q[:, j] = np.stack([w * dx + x * dw + y * dz - z * dy, w * dy - x * dz + y * dw + z * dx,
                            w * dz + x * dy - y * dx + z * dw, w * dw - x * dx - y * dy - z * dz], 1)
        offset = rng.uniform(-translation, translation, 3) if parents[j] >= 0 else np.zeros(3)
        local[:, j, 4:7] = offset
        if parents[j] < 0 and root_travel:
            path = np.stack([np.sin(rng.uniform(0.1, 1.0) * t + rng.uniform(0, 6.3)) for _ in range(3)], 1)
            local[:, j, 4:7] += root_travel * path
            if noise:
                local[:, j, 4:7] += rng.normal(0.0, noise, (frames, 3))
        elif parents[j] >= 0 and kind == 5:
            local[:, j, 4:7] += 0.1 * translation * np.sin(rng.uniform(0.5, 3.0) * t)[:, None]
        local[:, j, 7] = 1.0
        if scales and kind == 1:
            local[:, j, 7] = rng.uniform(0.5, 2.0)
        elif scales and kind == 4:
            local[:, j, 7] = 1.0 + 0.1 * np.sin(rng.uniform(0.5, 3.0) * t)
    local[..., :4] = q
    if static and frames > 2:
        length = int(static * frames)
        start = rng.integers(0, frames - length + 1)
        local[start:start + length] = local[start]
    return local.astype(dtype)
