/*
 * convert.c (glue) -- Python entry points of the rotation conversion family. The public wrappers
 * with their documentation are in skelsimd/convert.py; kernels in src/kernels/convert.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   euler_to_quat(angles, seq, out, degrees, scalar_first)
 *   quat_to_euler(q, seq, out, degrees, scalar_first) -> (out, number of gimbal-locked rotations)
 *   rotvec_to_quat(rotvec, out, degrees, scalar_first)
 *   quat_to_rotvec(q, out, degrees, scalar_first)
 *   matrix_to_sixd(m, out, layout)      sixd_to_matrix(sixd, out, layout)
 *   quat_to_sixd(q, out, layout, scalar_first)   sixd_to_quat(sixd, out, layout, scalar_first)
 * Every argument is validated (TypeError / ValueError naming it) before anything is written.
 */
#include "args.h"

#include "../kernels/convert.h"

#include <string.h>

enum convert_kind {
    EULER_TO_QUAT, QUAT_TO_EULER, ROTVEC_TO_QUAT, QUAT_TO_ROTVEC,
    MATRIX_TO_SIXD, SIXD_TO_MATRIX, QUAT_TO_SIXD, SIXD_TO_QUAT
};

/* One elementwise operand: `in` of shape (..., block) -> out (..., out_block); never in place. */
static const sks_signature convert_specs[] = {
    {"euler_to_quat", 1, {{"angles", "(..., 3)", 1, {3}, 0}}, 1, {4}},
    {"quat_to_euler", 1, {{"q", "(..., 4)", 1, {4}, 0}}, 1, {3}},
    {"rotvec_to_quat", 1, {{"rotvec", "(..., 3)", 1, {3}, 0}}, 1, {4}},
    {"quat_to_rotvec", 1, {{"q", "(..., 4)", 1, {4}, 0}}, 1, {3}},
    {"matrix_to_sixd", 1, {{"m", "(..., 3, 3)", 2, {3, 3}, 0}}, 1, {6}},
    {"sixd_to_matrix", 1, {{"sixd", "(..., 6)", 1, {6}, 0}}, 2, {3, 3}},
    {"quat_to_sixd", 1, {{"q", "(..., 4)", 1, {4}, 0}}, 1, {6}},
    {"sixd_to_quat", 1, {{"sixd", "(..., 6)", 1, {6}, 0}}, 1, {4}},
};

/* SciPy's `seq`: three of 'xyz' (extrinsic) or three of 'XYZ' (intrinsic), consecutive axes
 * different. Returns the SKS_EULER_SEQ code, or -1 with an exception set. */
static int parse_seq(PyObject *obj)
{
    const char *s;
    Py_ssize_t len;
    int axis[3], i, extrinsic = 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "seq: expected a str of three axes such as 'xyz' or 'ZXZ', "
                     "got %s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    s = PyUnicode_AsUTF8AndSize(obj, &len);
    if (s == NULL) return -1;
    if (len != 3) {
        PyErr_Format(PyExc_ValueError, "seq: expected 3 axes such as 'xyz' (extrinsic) or 'XYZ' "
                     "(intrinsic), got %R", obj);
        return -1;
    }
    for (i = 0; i < 3; i++) {
        const char c = s[i];
        const int lower = c >= 'x' && c <= 'z', upper = c >= 'X' && c <= 'Z';
        if (!lower && !upper) {
            PyErr_Format(PyExc_ValueError, "seq: expected axes from 'xyz' (extrinsic) or 'XYZ' "
                         "(intrinsic), got %R", obj);
            return -1;
        }
        if (i == 0) extrinsic = lower;
        else if (extrinsic != lower) {
            PyErr_Format(PyExc_ValueError, "seq: expected all axes lowercase (extrinsic) or all "
                         "uppercase (intrinsic), got %R", obj);
            return -1;
        }
        axis[i] = lower ? c - 'x' : c - 'X';
    }
    if (axis[0] == axis[1] || axis[1] == axis[2]) {
        PyErr_Format(PyExc_ValueError, "seq: expected consecutive axes to be different, got %R", obj);
        return -1;
    }
    return SKS_EULER_SEQ(axis[0], axis[1], axis[2], extrinsic);
}

static const char *const layout_choices[] = {"columns", "rows", NULL};

/* A conversion divided over the pool: items [begin, end) per chunk; quat_to_euler's count of
 * gimbal-locked rotations kept per slot and summed after the join. */
typedef struct convert_job {
    enum convert_kind kind;
    const sks_convert_kernels *k;
    int seq, flags;
    float *o;
    const float *x;
    size_t in_floats, out_floats;
    size_t locked[SKS_POOL_MAX_THREADS];
} convert_job;

static void convert_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    convert_job *j = (convert_job *)ctx;
    const sks_convert_kernels *k = j->k;
    float *o = j->o + begin * j->out_floats;
    const float *x = j->x + begin * j->in_floats;
    const size_t n = end - begin;
    const int seq = j->seq, flags = j->flags;
    switch (j->kind) {
    case EULER_TO_QUAT: k->euler_to_quat(o, x, n, seq, flags); break;
    case QUAT_TO_EULER: j->locked[slot] += k->quat_to_euler(o, x, n, seq, flags); break;
    case ROTVEC_TO_QUAT: k->rotvec_to_quat(o, x, n, flags); break;
    case QUAT_TO_ROTVEC: k->quat_to_rotvec(o, x, n, flags); break;
    case MATRIX_TO_SIXD: k->matrix_to_sixd(o, x, n, flags); break;
    case SIXD_TO_MATRIX: k->sixd_to_matrix(o, x, n, flags); break;
    case QUAT_TO_SIXD: k->quat_to_sixd(o, x, n, flags); break;
    case SIXD_TO_QUAT: k->sixd_to_quat(o, x, n, flags); break;
    }
}

/* The whole call: `seq` is the parsed code (Euler kinds), `flags` the SKS_CONVERT_* flags. */
static PyObject *convert_call(enum convert_kind kind, PyObject *in_obj, PyObject *out_obj, int seq,
                              int flags)
{
    const sks_signature *sp = &convert_specs[kind];
    const sks_convert_kernels *k = SKS_KERNELS(convert);
    PyArrayObject *in, *out;
    const Py_ssize_t items = sks_call_unary(sp, in_obj, out_obj, &in, &out);
    const size_t n = (size_t)items;
    size_t locked = 0;
    if (items < 0) return NULL;
    {
        convert_job j;
        size_t slot;
        j.kind = kind;
        j.k = k;
        j.seq = seq;
        j.flags = flags;
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(in);
        j.in_floats = sks_block_floats(sp->in[0].ndim, sp->in[0].block);
        j.out_floats = sks_block_floats(sp->out_ndim, sp->out_block);
        memset(j.locked, 0, sizeof j.locked);
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for(n, SKS_NS_ROTATION, convert_chunk, &j);
        Py_END_ALLOW_THREADS
        for (slot = 0; slot < SKS_POOL_MAX_THREADS; slot++) locked += j.locked[slot];
    }
    Py_DECREF(in);
    if (kind == QUAT_TO_EULER) {
        PyObject *res = Py_BuildValue("(Nn)", (PyObject *)out, (Py_ssize_t)locked);
        return res;
    }
    return (PyObject *)out;
}

/* `bit` when obj is true, 0 when false or None, -1 (exception set) when it has no truth value. */
static int flag(PyObject *obj, const char *name, int bit)
{
    const int v = sks_parse_bool(obj, name, 0);
    return v < 0 ? -1 : (v ? bit : 0);
}

static PyObject *euler_entry(enum convert_kind kind, PyObject *const *args, Py_ssize_t nargs)
{
    int seq, degrees, scalar_first;
    if (!sks_check_nargs(convert_specs[kind].func, nargs, 5)) return NULL;
    seq = parse_seq(args[1]);
    if (seq < 0) return NULL;
    degrees = flag(args[3], "degrees", SKS_CONVERT_DEGREES);
    if (degrees < 0) return NULL;
    scalar_first = flag(args[4], "scalar_first", SKS_CONVERT_SCALAR_FIRST);
    if (scalar_first < 0) return NULL;
    return convert_call(kind, args[0], args[2], seq, degrees | scalar_first);
}

static PyObject *rotvec_entry(enum convert_kind kind, PyObject *const *args, Py_ssize_t nargs)
{
    int degrees, scalar_first;
    if (!sks_check_nargs(convert_specs[kind].func, nargs, 4)) return NULL;
    degrees = flag(args[2], "degrees", SKS_CONVERT_DEGREES);
    if (degrees < 0) return NULL;
    scalar_first = flag(args[3], "scalar_first", SKS_CONVERT_SCALAR_FIRST);
    if (scalar_first < 0) return NULL;
    return convert_call(kind, args[0], args[1], 0, degrees | scalar_first);
}

/* (in, out, layout) or, with a quaternion side, (in, out, layout, scalar_first) */
static PyObject *sixd_entry(enum convert_kind kind, PyObject *const *args, Py_ssize_t nargs,
                            int with_quat)
{
    int layout, scalar_first = 0;
    if (!sks_check_nargs(convert_specs[kind].func, nargs, with_quat ? 4 : 3)) return NULL;
    layout = sks_parse_choice(args[2], "layout", layout_choices, 0);
    if (layout < 0) return NULL;
    if (with_quat) {
        scalar_first = flag(args[3], "scalar_first", SKS_CONVERT_SCALAR_FIRST);
        if (scalar_first < 0) return NULL;
    }
    return convert_call(kind, args[0], args[1], 0, (layout ? SKS_CONVERT_ROWS : 0) | scalar_first);
}

/* py_<name>(self, args, nargs) -> <entry>(KIND, args, nargs[, extra]) */
#define CONVERT_ENTRY(name, ...)                                                               \
    static PyObject *py_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs)       \
    {                                                                                         \
        (void)self;                                                                           \
        return __VA_ARGS__;                                                                   \
    }

CONVERT_ENTRY(euler_to_quat, euler_entry(EULER_TO_QUAT, args, nargs))
CONVERT_ENTRY(quat_to_euler, euler_entry(QUAT_TO_EULER, args, nargs))
CONVERT_ENTRY(rotvec_to_quat, rotvec_entry(ROTVEC_TO_QUAT, args, nargs))
CONVERT_ENTRY(quat_to_rotvec, rotvec_entry(QUAT_TO_ROTVEC, args, nargs))
CONVERT_ENTRY(matrix_to_sixd, sixd_entry(MATRIX_TO_SIXD, args, nargs, 0))
CONVERT_ENTRY(sixd_to_matrix, sixd_entry(SIXD_TO_MATRIX, args, nargs, 0))
CONVERT_ENTRY(quat_to_sixd, sixd_entry(QUAT_TO_SIXD, args, nargs, 1))
CONVERT_ENTRY(sixd_to_quat, sixd_entry(SIXD_TO_QUAT, args, nargs, 1))

PyMethodDef sks_convert_methods[] = {
    SKS_METHOD(euler_to_quat, "(angles, seq, out, degrees, scalar_first)"),
    SKS_METHOD(quat_to_euler, "(q, seq, out, degrees, scalar_first) -> (out, locked)"),
    SKS_METHOD(rotvec_to_quat, "(rotvec, out, degrees, scalar_first)"),
    SKS_METHOD(quat_to_rotvec, "(q, out, degrees, scalar_first)"),
    SKS_METHOD(matrix_to_sixd, "(m, out, layout)"),
    SKS_METHOD(sixd_to_matrix, "(sixd, out, layout)"),
    SKS_METHOD(quat_to_sixd, "(q, out, layout, scalar_first)"),
    SKS_METHOD(sixd_to_quat, "(sixd, out, layout, scalar_first)"),
    {NULL, NULL, 0, NULL}};
