"""A typed user script: the README's tour with annotations, checked by ``mypy --strict`` in CI
(.ci/run) and run by the test suite (tests/test_typing.py), so it is both well-typed and true.

The calls under ``if TYPE_CHECKING:`` are wrong on purpose and carry ``# type: ignore[...]``:
``mypy --strict`` warns about an unused ignore, so if the stubs stopped catching these mistakes
(for example by typing a function as ``Any``) the check would fail.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

import skelsimd
from skelsimd import testing
from skelsimd.bounds import bound, depth_bound


def tour(rng: np.random.Generator) -> dict[str, float]:
    parents, names = testing.humanoid_skeleton()
    skeleton = skelsimd.Skeleton(parents, names)
    local: npt.NDArray[np.float32] = testing.random_joints((10, 96), rng).astype(np.float32)
    glob: npt.NDArray[np.float32] = skelsimd.local_to_global(local, skeleton)
    back = skelsimd.global_to_local(glob, skeleton)
    palette = skelsimd.multiply_joints(glob, skelsimd.invert_joints(glob[0], rigid=True))
    isa: str = skelsimd.isa()

    clip: skelsimd.Clip = skelsimd.data.load_example()
    mats = skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton)
    half = skelsimd.blend_joints(clip.local[0], clip.local[100], 0.5, method="nlerp")
    q = skelsimd.slerp(clip.local[0, :, :4], clip.local[1, :, :4], 0.25, method="exact")
    m = skelsimd.quat_to_matrix(q, scalar_first=False)
    q2 = skelsimd.matrix_to_quat(m)
    angles = skelsimd.quat_to_euler(q, "ZXY", degrees=True)
    q3: npt.NDArray[np.float32] = skelsimd.euler_to_quat(angles, "ZXY", degrees=True)
    sixd = skelsimd.quat_to_sixd(q3, layout="rows")
    rotvec = skelsimd.quat_to_rotvec(skelsimd.sixd_to_quat(sixd, layout="rows"))
    sub: skelsimd.Clip = clip[::2]
    start, stop = clip.skeleton.subtree("LeftCollar")

    text = io.StringIO()
    skelsimd.save_bvh(clip[:4], text)
    again = skelsimd.load_bvh(text=text.getvalue())

    compressed = skelsimd.compress(clip, precision=0.01)
    decoded: npt.NDArray[np.float32] = compressed.decompress()

    surface = skelsimd.Surface(8, 8, preset="cloth")
    surface.pinned[0, :] = True
    surface.step(0.1, n=4, gravity=(0.0, -9.8, 0.0))
    normals = surface.normals()

    assert back.shape == local.shape and palette.shape == glob.shape and isa in {
        "scalar", "sse41", "avx2", "avx512", "neon"}
    assert mats.shape == clip.local.shape[:2] + (3, 4) and half.shape == clip.local[0].shape
    assert rotvec.shape == q.shape[:-1] + (3,) and sixd.shape == q.shape[:-1] + (6,)
    assert q2.shape == q.shape and sub.frames == (clip.frames + 1) // 2 and stop > start
    assert again.frames == 4 and decoded.shape == clip.local.shape and normals.shape == (3, 8, 8)
    err = float(np.abs(back - local).max())
    assert err <= bound("global_to_local.round_trip")
    return {"round_trip": err, "walk_bound_depth_14": depth_bound(14, 10.0),
            "ratio": compressed.ratio}


if TYPE_CHECKING:   # mistakes the stubs must reject (never run)
    _q = np.zeros((2, 4), np.float32)
    skelsimd.slerp(_q, _q, 0.5, method="fastest")  # type: ignore[arg-type]
    skelsimd.local_to_global(_q, [-1], precision="float16")  # type: ignore[arg-type]
    _n: int = skelsimd.quat_normalize(_q)  # type: ignore[assignment]
    skelsimd.Surface(8, 8, preset="jelly")  # type: ignore[arg-type]
    skelsimd.quat_to_sixd(_q, layout="diagonal")  # type: ignore[arg-type]
    skelsimd.no_such_function()  # type: ignore[attr-defined]


if __name__ == "__main__":
    print(tour(np.random.default_rng(0)))
