import numpy as np
import pytest

import skelsimd


@pytest.mark.parametrize("align", [16, 32, 64, 4096])
def test_aligned_arrays(align):
    a = skelsimd.empty_aligned((7, 96, 3, 4), align=align)
    assert a.dtype == np.float32 and a.shape == (7, 96, 3, 4) and a.flags.c_contiguous
    assert skelsimd.is_aligned(a, align)
    z = skelsimd.zeros_aligned(10, np.float64, align=align)
    assert z.shape == (10,) and (z == 0).all() and skelsimd.is_aligned(z, align)


def test_aligned_arrays_work_as_out(rng):
    from skelsimd import testing as T

    parents = T.humanoid_skeleton()[0]
    local = T.random_joints((3, 96), rng)
    out = skelsimd.empty_aligned(local.shape)
    assert np.array_equal(skelsimd.local_to_global(local, parents, out), skelsimd.local_to_global(local, parents))


def test_bad_alignment():
    with pytest.raises(ValueError, match="power of two"):
        skelsimd.empty_aligned(4, align=48)
