"""Operands with many dimensions: a result with more dimensions than NumPy allows (64) is a
ValueError naming the operands, raised before any shape buffer is filled (these cases used to
write past a 64-entry shape buffer in the glue: undefined behaviour, caught by the sanitizer
build that runs this file); a result of exactly 64 dimensions works."""
import numpy as np
import pytest

import skelsimd

MAXDIMS = 64


def ones(shape):
    return np.ones(shape, dtype=np.float32)


def unit_quats(lead):
    q = np.zeros(lead + (4,), dtype=np.float32)
    q[..., 3] = 1
    return q


def qts(lead):
    x = np.zeros(lead + (8,), dtype=np.float32)
    x[..., 3] = 1
    x[..., 7] = 1
    return x


def joint_mats(lead):
    m = np.zeros(lead + (3, 4), dtype=np.float32)
    m[..., 0, 0] = m[..., 1, 1] = m[..., 2, 2] = 1
    return m


LEG = skelsimd.Skeleton([-1, 0, 1])

TOO_MANY = [
    # (call, words the message must contain)
    (lambda: skelsimd.slerp(unit_quats(()), unit_quats(()), ones((1,) * 64)), "q0, q1 and t"),
    (lambda: skelsimd.nlerp(unit_quats(()), unit_quats(()), ones((1,) * 64)), "q0, q1 and t"),
    (lambda: skelsimd.slerp(unit_quats(()), unit_quats(()), ones((1,) * 64), method="exact"),
     "q0, q1 and t"),
    (lambda: skelsimd.qts_to_matrix(qts((1,) * 62 + (3,))), "x"),
    (lambda: skelsimd.quat_to_matrix(unit_quats((1,) * 63)), "q"),
    (lambda: skelsimd.qts_local_to_global_matrix(qts((1,) * 61 + (2, 4)), [-1, 0, 1, 2]),
     "local"),
    (lambda: skelsimd.blend_joints(qts((2,)), qts((2,)), ones((1,) * 63)),
     "joints, blend and t"),
    (lambda: skelsimd.blend_joints(qts((1,) * 62 + (2,)), qts((1,) * 62 + (2,)),
                                   ones((1,) * 63)), "joints, blend and t"),
]


@pytest.mark.parametrize("case", range(len(TOO_MANY)))
def test_result_beyond_numpys_limit_is_a_value_error(case):
    call, names = TOO_MANY[case]
    with pytest.raises(ValueError, match="more than NumPy's limit of 64") as info:
        call()
    assert str(info.value).startswith(names + ":")


EXACTLY_64 = [
    lambda: skelsimd.slerp(unit_quats((1,) * 63), unit_quats(()), ones((1,) * 63)),
    lambda: skelsimd.nlerp(unit_quats((1,) * 63), unit_quats(()), 0.5),
    lambda: skelsimd.qts_to_matrix(qts((1,) * 62)),
    lambda: skelsimd.quat_to_matrix(unit_quats((1,) * 62)),
    lambda: skelsimd.matrix_to_quat(ones((1,) * 62 + (3, 3))),
    lambda: skelsimd.matrix_to_qts(ones((1,) * 62 + (3, 4))),
    lambda: skelsimd.quat_multiply(unit_quats((1,) * 63), unit_quats(())),
    lambda: skelsimd.quat_rotate(unit_quats((1,) * 63), ones((3,))),
    lambda: skelsimd.quat_normalize(unit_quats((1,) * 63)),
    lambda: skelsimd.qts_local_to_global_matrix(qts((1,) * 60 + (2, 4)), [-1, 0, 1, 2]),
    lambda: skelsimd.qts_local_to_global(qts((1,) * 61 + (2, 4)), [-1, 0, 1, 2]),
    lambda: skelsimd.blend_joints(qts((1,) * 62 + (2,)), qts((2,)), ones((1,) * 62)),
    lambda: skelsimd.blend_layers(qts((1,) * 61 + (2, 3)), [1.0, 1.0]),
    lambda: skelsimd.multiply_joints(ones((1,) * 62 + (3, 4)), ones((3, 4))),
    lambda: skelsimd.invert_joints(ones((1,) * 62 + (3, 4))),
    lambda: skelsimd.matmul4(ones((1,) * 62 + (4, 4)), ones((4, 4))),
    lambda: skelsimd.transform_points(ones((1,) * 62 + (3, 4)), ones((1,) * 63 + (3,))),
    lambda: skelsimd.local_to_global(ones((1,) * 61 + (2, 3, 4)), [-1, 0]),
    lambda: skelsimd.mat4_local_to_global(ones((1,) * 61 + (2, 4, 4)), [-1, 0]),
    lambda: skelsimd.skinning_palette(ones((1,) * 61 + (2, 3, 4)), [-1, 0], ones((2, 3, 4))),
    lambda: skelsimd.skin(ones((1,) * 62 + (2, 3)), [[0], [1]], [[1.0], [1.0]],
                          ones((1,) * 61 + (2, 3, 4))),
    lambda: skelsimd.normalize_weights(ones((1,) * 64)),
    # the runtime's pure-Python layers broadcast without NumPy's limit of 32 dimensions
    lambda: skelsimd.make_additive(qts((1,) * 61 + (3, 2)), qts((1,) * 40 + (2,))),
    lambda: skelsimd.apply_additive(qts((1,) * 62 + (2,)), qts((2,))),
    lambda: skelsimd.apply_additive(qts((2,)), qts((1,) * 62 + (2,))),
    lambda: skelsimd.ik_two_bone(joint_mats((1,) * 62), joint_mats(()), joint_mats(()),
                                 ones((3,)), pole=ones((1,) * 63 + (3,)))[0],
    lambda: skelsimd.ik_aim(joint_mats(()), ones((1,) * 63 + (3,)), twist=ones((1,) * 50))[0],
    # (the Skeleton methods walk the poses to joint matrices (..., J, 3, 4): 61 leading
    # dimensions at most)
    lambda: LEG.two_bone(qts((1,) * 50 + (3,)), (0, 1, 2), ones((1,) * 61 + (3,)),
                         pole=ones((3,))),
    lambda: LEG.look_at(qts((1,) * 40 + (3,)), [2, 1], ones((1,) * 61 + (3,))),
    lambda: LEG.solve_chain(qts((1,) * 61 + (3,)), [0, 1, 2], ones((1,) * 40 + (3,)),
                            iterations=2),
]

# ... and refuse a result beyond NumPy's limit, naming the operands
TOO_MANY_RUNTIME = [
    (lambda: skelsimd.ik_two_bone(joint_mats((1,) * 62), joint_mats(()), joint_mats(()),
                                  ones((3,)), pole=ones((3,)), soften=ones((1,) * 64)),
     "ik_two_bone"),
    (lambda: skelsimd.ik_aim(joint_mats(()), ones((1,) * 63 + (3,)), weight=ones((1,) * 64)),
     "ik_aim"),
    (lambda: LEG.solve_chain(qts((1,) * 61 + (3,)), [0, 1, 2], ones((1,) * 62 + (3,))),
     "local and target"),
    (lambda: LEG.look_at(qts((1,) * 61 + (3,)), [2, 1], ones((1,) * 62 + (3,))),
     "local and target"),
]


@pytest.mark.parametrize("case", range(len(TOO_MANY_RUNTIME)))
def test_runtime_result_beyond_numpys_limit_is_a_value_error(case):
    call, names = TOO_MANY_RUNTIME[case]
    with pytest.raises(ValueError, match="more than NumPy's limit of 64") as info:
        call()
    assert str(info.value).startswith(names + ":")


@pytest.mark.parametrize("case", range(len(EXACTLY_64)))
def test_results_of_up_to_64_dimensions_work(case):
    result = EXACTLY_64[case]()
    assert result.ndim <= MAXDIMS


def test_operands_beyond_the_limit_cannot_be_built():
    """NumPy itself refuses 65 dimensions, so operands never exceed the limit."""
    with pytest.raises(ValueError):
        np.ones((1,) * 65, dtype=np.float32)
