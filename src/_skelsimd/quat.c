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

/* One elementwise operand: `in` of shape (..., block) -> out (..., out_block). */
static const sks_signature unary_specs[] = {
    {"quat_conjugate", 1, {{"q", "(..., 4)", 1, {4}, 1}}, 1, {4}},
    {"quat_normalize", 1, {{"q", "(..., 4)", 1, {4}, 1}}, 1, {4}},
    {"quat_to_matrix", 1, {{"q", "(..., 4)", 1, {4}, 0}}, 2, {3, 3}},
    {"matrix_to_quat", 1, {{"m", "(..., 3, 3)", 2, {3, 3}, 0}}, 1, {4}},
    {"qts_to_matrix", 1, {{"x", "(..., 8)", 1, {8}, 0}}, 2, {3, 4}},
    {"matrix_to_qts", 1, {{"m", "(..., 3, 4)", 2, {3, 4}, 0}}, 1, {8}},
};

/* An elementwise call divided over the pool: items [begin, end) per chunk. */
typedef struct unary_job {
    enum unary_kind kind;
    const sks_quat_kernels *k;
    int scalar_first;
    float *o;
    const float *x;
    size_t in_floats, out_floats;
} unary_job;

static void unary_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const unary_job *j = (const unary_job *)ctx;
    const sks_quat_kernels *k = j->k;
    float *o = j->o + begin * j->out_floats;
    const float *x = j->x + begin * j->in_floats;
    const size_t n = end - begin;
    (void)slot;
    switch (j->kind) {
    case CONJUGATE: k->conjugate(o, x, n); break;
    case NORMALIZE: k->normalize(o, x, n); break;
    case TO_MATRIX: k->to_matrix(o, x, n, j->scalar_first); break;
    case FROM_MATRIX: k->from_matrix(o, x, n, j->scalar_first); break;
    case QTS_TO_MATRIX: k->qts_to_matrix(o, x, n); break;
    case MATRIX_TO_QTS: k->matrix_to_qts(o, x, n); break;
    }
}

static PyObject *unary_call(enum unary_kind kind, PyObject *in_obj, PyObject *out_obj,
                            int scalar_first)
{
    const sks_signature *sp = &unary_specs[kind];
    const sks_quat_kernels *k = SKS_KERNELS(quat);
    PyArrayObject *in, *out;
    const Py_ssize_t items = sks_call_unary(sp, in_obj, out_obj, &in, &out);
    const size_t n = (size_t)items;
    if (items < 0) return NULL;
    {
        unary_job j;
        j.kind = kind;
        j.k = k;
        j.scalar_first = scalar_first;
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(in);
        j.in_floats = sks_block_floats(sp->in[0].ndim, sp->in[0].block);
        j.out_floats = sks_block_floats(sp->out_ndim, sp->out_block);
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for(n, SKS_NS_OUT_FLOAT * (double)(j.out_floats + j.in_floats),
                         unary_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(in);
    return (PyObject *)out;
}

/* Two broadcasting operands, out may be exactly either: a (..., 4) with b (..., 4) -> out
 * (..., 4), and q (..., 4) with v (..., 3) -> out (..., 3). */
static const sks_signature multiply_sig = {
    "quat_multiply", 2, {{"a", "(..., 4)", 1, {4}, 1}, {"b", "(..., 4)", 1, {4}, 1}}, 1, {4}};
static const sks_signature rotate_sig = {
    "quat_rotate", 2, {{"q", "(..., 4)", 1, {4}, 1}, {"v", "(..., 3)", 1, {3}, 1}}, 1, {3}};

static PyObject *py_quat_multiply(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return sks_binary_call(&multiply_sig, args, nargs, SKS_KERNELS(quat)->multiply);
}

static PyObject *py_quat_rotate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return sks_binary_call(&rotate_sig, args, nargs, SKS_KERNELS(quat)->rotate);
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

PyMethodDef sks_quat_methods[] = {
    SKS_METHOD(quat_multiply, "(a, b, out)"),
    SKS_METHOD(quat_rotate, "(q, v, out)"),
    SKS_METHOD(quat_conjugate, "(q, out)"),
    SKS_METHOD(quat_normalize, "(q, out)"),
    SKS_METHOD(quat_to_matrix, "(q, out, scalar_first)"),
    SKS_METHOD(matrix_to_quat, "(m, out, scalar_first)"),
    SKS_METHOD(qts_to_matrix, "(x, out)"),
    SKS_METHOD(matrix_to_qts, "(m, out)"),
    {NULL, NULL, 0, NULL}};
