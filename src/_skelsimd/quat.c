/*
 * quat.c (glue) -- Python entry points of the quaternion family. The public wrappers with their
 * documentation are in skelsimd/quat.py; kernels in src/kernels/quat.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   quat_multiply(a, b, out)          quat_rotate(q, v, out)
 *   quat_conjugate(q, out)            quat_normalize(q, out)
 *   quat_to_matrix(q, out, scalar_first)    matrix_to_quat(m, out, scalar_first)
 *   qts_to_matrix(x, out)             matrix_to_qts(m, out)
 */
#include "args.h"

#include "../kernels/quat.h"

enum unary_kind { CONJUGATE, NORMALIZE, TO_MATRIX, FROM_MATRIX, QTS_TO_MATRIX, MATRIX_TO_QTS };

/* One elementwise operand: `in` of shape (..., in_trailing) -> out (..., out_trailing). */
typedef sks_unary_layout unary_spec;

static const unary_spec unary_specs[] = {
    {"quat_conjugate", "q", "(..., 4)", 1, {4, 0}, 1, {4, 0}, 1},
    {"quat_normalize", "q", "(..., 4)", 1, {4, 0}, 1, {4, 0}, 1},
    {"quat_to_matrix", "q", "(..., 4)", 1, {4, 0}, 2, {3, 3}, 0},
    {"matrix_to_quat", "m", "(..., 3, 3)", 2, {3, 3}, 1, {4, 0}, 0},
    {"qts_to_matrix", "x", "(..., 8)", 1, {8, 0}, 2, {3, 4}, 0},
    {"matrix_to_qts", "m", "(..., 3, 4)", 2, {3, 4}, 1, {8, 0}, 0},
};

static PyObject *unary_call(enum unary_kind kind, PyObject *in_obj, PyObject *out_obj,
                            int scalar_first)
{
    const unary_spec *sp = &unary_specs[kind];
    const sks_quat_kernels *k = SKS_KERNELS(quat);
    PyArrayObject *in, *out;
    const Py_ssize_t items = sks_prepare_unary(sp, in_obj, out_obj, &in, &out);
    const size_t n = (size_t)items;
    if (items < 0) return NULL;
    {
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(in);
        Py_BEGIN_ALLOW_THREADS
        switch (kind) {
        case CONJUGATE: k->conjugate(o, x, n); break;
        case NORMALIZE: k->normalize(o, x, n); break;
        case TO_MATRIX: k->to_matrix(o, x, n, scalar_first); break;
        case FROM_MATRIX: k->from_matrix(o, x, n, scalar_first); break;
        case QTS_TO_MATRIX: k->qts_to_matrix(o, x, n); break;
        case MATRIX_TO_QTS: k->matrix_to_qts(o, x, n); break;
        }
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(in);
    return (PyObject *)out;
}

/* Two broadcasting operands: a (..., 4) with b (..., nb) -> out (..., nb): multiply (nb = 4,
 * names a, b) and rotate (nb = 3, names q, v). out may be exactly either operand. */
static PyObject *binary_call(int rotate, PyObject *const *args)
{
    static const char *const mul_names[2] = {"a", "b"}, *const rot_names[2] = {"q", "v"};
    const char *const *names = rotate ? rot_names : mul_names;
    const npy_intp nb = rotate ? 3 : 4;
    static const int trailing[2] = {1, 1};
    PyArrayObject *ops[2] = {NULL, NULL}, *out = NULL;
    npy_intp shape[NPY_MAXDIMS];
    sks_broadcast bc;
    int i;
    for (i = 0; i < 2; i++) {
        const npy_intp want = i ? nb : 4;
        ops[i] = sks_as_float32(args[i], names[i]);
        if (ops[i] == NULL) goto fail;
        if (sks_check_shape(ops[i], names[i], 1, &want, 1, want == 4 ? "(..., 4)" : "(..., 3)") < 0)
            goto fail;
    }
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    if (sks_check_rank(bc.out_ndim + 1, rotate ? "q and v" : "a and b") < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = nb;
    out = sks_prepare_out(args[2], "out", bc.out_ndim + 1, shape);
    if (out == NULL) goto fail;
    for (i = 0; i < 2; i++) {
        if (sks_check_overlap(out, "out", ops[i], names[i], 1) < 0) goto fail;
    }
    if (PyArray_SIZE(out) > 0) {
        const sks_quat_kernels *k = SKS_KERNELS(quat);
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        float *o = (float *)PyArray_DATA(out);
        const float *a = (const float *)PyArray_DATA(ops[0]);
        const float *b = (const float *)PyArray_DATA(ops[1]);
        npy_intp it;
        Py_BEGIN_ALLOW_THREADS
        for (it = 0; it < outer; it++) {
            npy_intp off[2], step[2];
            sks_broadcast_offsets(&bc, it, off, step);
            if (rotate) {
                k->rotate(o + it * inner * 3, a + off[0] * 4, (size_t)step[0], b + off[1] * 3,
                          (size_t)step[1], (size_t)inner);
            } else {
                k->multiply(o + it * inner * 4, a + off[0] * 4, (size_t)step[0], b + off[1] * 4,
                            (size_t)step[1], (size_t)inner);
            }
        }
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(ops[0]);
    Py_DECREF(ops[1]);
    return (PyObject *)out;
fail:
    Py_XDECREF(ops[0]);
    Py_XDECREF(ops[1]);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_quat_multiply(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("quat_multiply", nargs, 3)) return NULL;
    return binary_call(0, args);
}

static PyObject *py_quat_rotate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("quat_rotate", nargs, 3)) return NULL;
    return binary_call(1, args);
}

/* unary entry points: (in, out) or (in, out, scalar_first) */
static PyObject *unary_entry(enum unary_kind kind, PyObject *const *args, Py_ssize_t nargs,
                             int with_flag)
{
    int flag = 0;
    if (!sks_check_nargs(unary_specs[kind].func, nargs, with_flag ? 3 : 2)) return NULL;
    if (with_flag) {
        flag = sks_parse_bool(args[2], "scalar_first", 0);
        if (flag < 0) return NULL;
    }
    return unary_call(kind, args[0], args[1], flag);
}

static PyObject *py_quat_conjugate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(CONJUGATE, args, nargs, 0);
}

static PyObject *py_quat_normalize(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(NORMALIZE, args, nargs, 0);
}

static PyObject *py_quat_to_matrix(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(TO_MATRIX, args, nargs, 1);
}

static PyObject *py_matrix_to_quat(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(FROM_MATRIX, args, nargs, 1);
}

static PyObject *py_qts_to_matrix(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(QTS_TO_MATRIX, args, nargs, 0);
}

static PyObject *py_matrix_to_qts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_entry(MATRIX_TO_QTS, args, nargs, 0);
}

#define QUAT_METHOD(name, sig)                                                                 \
    {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, #name sig ": see skelsimd." #name}

PyMethodDef sks_quat_methods[] = {
    QUAT_METHOD(quat_multiply, "(a, b, out)"),
    QUAT_METHOD(quat_rotate, "(q, v, out)"),
    QUAT_METHOD(quat_conjugate, "(q, out)"),
    QUAT_METHOD(quat_normalize, "(q, out)"),
    QUAT_METHOD(quat_to_matrix, "(q, out, scalar_first)"),
    QUAT_METHOD(matrix_to_quat, "(m, out, scalar_first)"),
    QUAT_METHOD(qts_to_matrix, "(x, out)"),
    QUAT_METHOD(matrix_to_qts, "(m, out)"),
    {NULL, NULL, 0, NULL}};
