"""Operands with many dimensions, for every entry of the registry of the public API
(tests/catalog.py) that has core axes: a result with more dimensions than NumPy allows (64) is a
ValueError naming the operands, raised before any shape buffer is filled (these cases used to
write past a 64-entry shape buffer in the glue: undefined behaviour, caught by the sanitizer
build that runs this file); a result of up to 64 dimensions works. The operands are the core
parts of each entry's first valid call, given leading dimensions of length 1."""
import numpy as np
import pytest

import catalog
import skelsimd

MAXDIMS = 64


def _core_call(name):
    """(fn, core operands, keyword variants, operand specs, output core ndim) of `name`."""
    spec = catalog.CORE_AXES[name]
    operands, out_core = spec[0], spec[1]
    variants = spec[2] if len(spec) > 2 else ({},)
    fn, args, _ = catalog.CATALOG[name][2](np.random.default_rng(2024))[0]
    assert len(args) == len(operands), name
    core = []
    for arg, op in zip(args, operands):
        if op is None:
            core.append(arg)
        else:
            a = np.asarray(arg, dtype=np.float32)
            core.append(a[(0,) * (a.ndim - op[1])].copy())
    return fn, core, variants, operands, out_core


def _with_leads(core, operands, leads):
    """The core operands with leads[i] leading dimensions of length 1 (operand i)."""
    return [a if op is None or not leads[i] else a.reshape((1,) * leads[i] + a.shape)
            for i, (a, op) in enumerate(zip(core, operands))]


def _names(operands):
    names = [op[0] for op in operands if op is not None]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cases():
    """(id, name, kwargs, leads, expected result ndim or None for too many)."""
    cases = []
    for name in sorted(catalog.CORE_AXES):
        _, _, variants, operands, out_core = _core_call(name)
        bcast = [i for i, op in enumerate(operands) if op is not None]
        for k, kw in enumerate(variants):
            tag = f"{name}-{k}" if len(variants) > 1 else name
            for i in bcast:
                c = operands[i][1]
                most = [0] * len(operands)
                most[i] = MAXDIMS - c               # the operand at NumPy's limit
                if c < out_core:                    # its result would exceed the limit
                    cases.append((f"{tag}-{operands[i][0]}-too-many", name, kw, most, None))
                fit = [0] * len(operands)
                fit[i] = MAXDIMS - max(c, out_core)
                cases.append((f"{tag}-{operands[i][0]}-fits", name, kw, fit,
                               fit[i] + out_core))
            every = [MAXDIMS - operands[i][1] if i in bcast else 0 for i in range(len(operands))]
            lead = max(every)
            cases.append((f"{tag}-all-at-the-limit", name, kw, every,
                          None if lead + out_core > MAXDIMS else lead + out_core))
    return cases


CASES = _cases()
TOO_MANY = [c for c in CASES if c[4] is None]
FITS = [c for c in CASES if c[4] is not None]


def test_the_former_cases_are_covered():
    """The calls this file listed before it read the registry are all still made."""
    too_many = {c[1] for c in TOO_MANY}
    assert {"slerp", "nlerp", "qts_to_matrix", "quat_to_matrix", "qts_local_to_global_matrix",
            "blend_joints"} <= too_many
    assert "slerp-1-t-too-many" in {c[0] for c in TOO_MANY}      # method="exact"
    assert {"slerp", "nlerp", "qts_to_matrix", "quat_to_matrix", "matrix_to_quat",
            "matrix_to_qts", "quat_multiply", "quat_rotate", "quat_normalize",
            "qts_local_to_global_matrix", "qts_local_to_global", "blend_joints", "blend_layers",
            "multiply_joints", "invert_joints", "matmul4", "transform_points", "local_to_global",
            "mat4_local_to_global", "skinning_palette", "skin",
            "normalize_weights"} <= {c[1] for c in FITS if c[4] == MAXDIMS or c[1] in
                                     ("matrix_to_quat", "matrix_to_qts", "blend_layers")}


@pytest.mark.parametrize("case", TOO_MANY, ids=[c[0] for c in TOO_MANY])
def test_result_beyond_numpys_limit_is_a_value_error(case):
    _, name, kw, leads, _ = case
    fn, core, _, operands, _ = _core_call(name)
    args = _with_leads(core, operands, leads)
    with pytest.raises(ValueError, match="more than NumPy's limit of 64") as info:
        fn(*args, **kw)
    assert str(info.value).startswith(_names(operands) + ":")


@pytest.mark.parametrize("case", FITS, ids=[c[0] for c in FITS])
def test_results_of_up_to_64_dimensions_work(case):
    _, name, kw, leads, ndim = case
    fn, core, _, operands, _ = _core_call(name)
    result = fn(*_with_leads(core, operands, leads), **kw)
    assert result.ndim == ndim <= MAXDIMS


def test_operands_beyond_the_limit_cannot_be_built():
    """NumPy itself refuses 65 dimensions, so operands never exceed the limit."""
    with pytest.raises(ValueError):
        np.ones((1,) * 65, dtype=np.float32)


# --- the runtime's layers (additive, IK, the Skeleton steps) ------------------------------------
# Not kernel cores of the registry: they broadcast in Python (without NumPy's limit of 32
# dimensions) before their kernels run, so their limits are listed here.

def ones(shape):
    return np.ones(shape, dtype=np.float32)


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

RUNTIME_UP_TO_64 = [
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


@pytest.mark.parametrize("case", range(len(RUNTIME_UP_TO_64)))
def test_runtime_results_of_up_to_64_dimensions_work(case):
    result = RUNTIME_UP_TO_64[case]()
    assert result.ndim <= MAXDIMS

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
