"""Every SIMD variant gives the scalar variant's results byte for byte, for every valid call of
the registry of the public API (tests/catalog.py): one parametrised test over the kernels, the
conversions, the walks, skinning, blending, additive layers, IK, tracks, root motion, surfaces,
the BVH reader and compressed clips. The registry's valid calls include the inputs that reach
each kernel's special blocks (broadcast and fallback blocks, wide-range and projective matrices,
gimbal lock, zero and NaN quaternions, degenerate chains, every surface row width and alignment,
clips of every kind): the family tests hold no copy of this test."""
import numpy as np
import pytest

from skelsimd._isa import supported_isas, use_isa

import catalog

VALID = sorted(name for name, entry in catalog.CATALOG.items() if len(entry) > 2)


def test_the_registry_has_valid_calls_for_the_kernel_families():
    families = {"local_to_global", "mat4_local_to_global", "skin", "slerp", "blend_joints",
                "quat_multiply", "euler_to_quat", "qts_local_to_global", "make_additive",
                "apply_additive", "ik_two_bone", "ik_aim", "Track.sample", "blend_motion",
                "CompressedClip.decompress", "load_bvh",
                # the family tests' former copies of this test
                "matmul4", "transform_points", "multiply_joints", "skinning_palette",
                "normalize_weights", "nlerp", "blend_layers", "quat_to_euler", "rotvec_to_quat",
                "quat_to_rotvec", "sixd_to_matrix", "sixd_to_quat", "quat_to_sixd",
                "Surface.step", "compress", "CompressedClip.sample"}
    assert families <= set(VALID)


@pytest.mark.parametrize("name", VALID)
def test_every_variant_is_bit_identical_to_scalar(name):
    results = {}
    for isa in supported_isas():
        calls = catalog.CATALOG[name][2](np.random.default_rng(2024))    # the same inputs
        with use_isa(isa):
            results[isa] = [catalog.result_arrays(fn(*args, **kwargs))
                            for fn, args, kwargs in calls]
    for isa, got in results.items():
        for k, (arrays, want) in enumerate(zip(got, results["scalar"])):
            assert len(arrays) == len(want)
            for a, b in zip(arrays, want):
                assert a.dtype == b.dtype and a.shape == b.shape, (isa, k)
                assert a.tobytes() == b.tobytes(), f"{name} call {k}: {isa} differs from scalar"
