"""Prints a hash of every kernel family's outputs on fixed random inputs, per SIMD variant this CPU
runs. .ci/clang_check runs it against the gcc and the clang build: the two must print the same
lines (the same operations in the same order, no FMA: bit-identical across compilers too)."""
import hashlib

import numpy as np

import skelsimd as S
from skelsimd import testing as T
from skelsimd._isa import supported_isas, use_isa


def outputs(rng):
    parents, _ = T.humanoid_skeleton()
    local = T.random_joints((64, 96), rng)
    qts = T.random_qts((64, 96), rng, scale=(0.5, 2.0))
    q0, q1 = T.special_quaternion_pairs(1000, rng)
    t = rng.uniform(-0.5, 1.5, 1000).astype(np.float32)
    m4 = T.random_mat4((500,), rng, projective=0.5)
    pts = rng.uniform(-1, 1, (500, 3)).astype(np.float32)
    pos, nrm, idx, w = T.random_mesh(2000, 4, 96, rng)
    clip = S.data.load_example()
    surface = S.Surface(24, 20, preset="cloth")
    surface.pinned[0, :] = True
    yield "local_to_global", S.local_to_global(local, parents)
    yield "local_to_global f64", S.local_to_global(local, parents, precision="float64")
    yield "global_to_local", S.global_to_local(local, parents)
    yield "invert_joints", S.invert_joints(local)
    yield "matmul4", S.matmul4(m4, m4[::-1])
    yield "transform_points", S.transform_points(m4, pts)
    palette = S.skinning_palette(local[:4], parents, local[0])
    yield "skinning_palette", palette
    yield "skin", np.concatenate(S.skin(pos, idx, w, palette, normals=nrm), axis=-1)
    yield "slerp fast", S.slerp(q0, q1, t)
    yield "slerp exact", S.slerp(q0, q1, t, method="exact")
    yield "nlerp", S.nlerp(q0, q1, t)
    yield "blend_layers", S.blend_layers(np.stack([qts, qts[::-1], qts[:, ::-1]], axis=1),
                                         np.array([0.5, 0.3, 0.2], np.float32))
    yield "quat_to_matrix", S.quat_to_matrix(q0 * 3)
    yield "euler_to_quat", S.euler_to_quat(rng.uniform(-720, 720, (1000, 3)), "ZXY", degrees=True)
    yield "quat_to_euler", S.quat_to_euler(q0, "xyz", suppress_warnings=True)
    yield "quat_to_rotvec", S.quat_to_rotvec(q1)
    yield "sixd_to_quat", S.sixd_to_quat(rng.standard_normal((1000, 6)))
    yield "matrix_to_qts", S.matrix_to_qts(S.qts_to_matrix(qts))
    yield "qts_local_to_global_matrix", S.qts_local_to_global_matrix(qts, parents)
    yield "qts_local_to_global f64", S.qts_local_to_global(qts, parents, precision="float64")
    c = S.compress(clip, precision=0.01)
    yield "compress", np.frombuffer(c.to_bytes(), np.uint8)
    yield "sample_many", c.sample_many(np.linspace(0, c.duration, 333))
    surface.apply_effector([10.0, 0.5, 12.0], 4.0, -2.0)
    yield "surface", surface.step(0.05, n=20, gravity=(0, -9.81, 0)).copy()
    yield "normals", surface.normals()
    off = rng.uniform(-1, 1, (64, 96, 6)).astype(np.float32)
    yield "inertialize_update", np.concatenate(
        S.inertialize_update(qts, off, off[::-1], halflife=0.1, dt=1 / 60), axis=-1)
    yield "inertialize_transition", np.concatenate(
        S.inertialize_transition(qts, off, qts[::-1], off[::-1]), axis=-1)


for isa in supported_isas():
    with use_isa(isa):
        for name, array in outputs(np.random.default_rng(7)):
            digest = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]
            print(f"{isa:7} {name:28} {digest}")
